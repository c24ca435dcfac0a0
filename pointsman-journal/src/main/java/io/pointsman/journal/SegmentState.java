package io.pointsman.journal;

import java.nio.file.Path;
import java.util.BitSet;

/**
 * What the I/O thread knows about one segment that holds records: its first sequence number and
 * which of its caller records are not yet delivered. Confined to the thread that owns the journal
 * state (the opener during recovery, then the I/O thread).
 */
final class SegmentState {
  final long id;
  final Path path;
  final long firstSequence;
  private final BitSet undelivered = new BitSet();
  private int undeliveredCount;

  SegmentState(long id, Path path, long firstSequence) {
    this.id = id;
    this.path = path;
    this.firstSequence = firstSequence;
  }

  void addUndelivered(long sequence) {
    undelivered.set(index(sequence));
    undeliveredCount++;
  }

  /** Returns whether the sequence was an undelivered caller record of this segment. */
  boolean markDelivered(long sequence) {
    if (sequence < firstSequence || sequence - firstSequence > Integer.MAX_VALUE) {
      return false;
    }
    int index = index(sequence);
    if (!undelivered.get(index)) {
      return false;
    }
    undelivered.clear(index);
    undeliveredCount--;
    return true;
  }

  boolean isUndelivered(long sequence) {
    return sequence >= firstSequence && sequence - firstSequence <= Integer.MAX_VALUE
        && undelivered.get(index(sequence));
  }

  int undeliveredCount() {
    return undeliveredCount;
  }

  private int index(long sequence) {
    return Math.toIntExact(sequence - firstSequence);
  }
}
