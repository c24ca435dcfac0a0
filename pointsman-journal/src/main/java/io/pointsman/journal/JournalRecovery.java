package io.pointsman.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.zip.CRC32C;

/**
 * Reads a journal directory back after a restart. Runs once, on the opening thread, before the
 * I/O thread starts.
 *
 * <p>The rules, which {@code docs/durability.md} explains: scan each segment up to its first
 * invalid record. Every segment but the tail must end with a seal record. In the tail, an invalid
 * record followed only by zeros, garbage or records of the same unforced write is a torn tail:
 * its bytes are zeroed and forced. Anything else is corruption, reported without touching a file.
 * The only other change recovery makes is deleting preparation files, which never hold records.
 */
final class JournalRecovery {

  /** A scanned, valid record, before delivered marks are applied. */
  private static final class Scanned {
    final long sequence;
    final byte type;
    final byte flags;
    final byte[] payload;
    final int offset;

    Scanned(long sequence, byte type, byte flags, byte[] payload, int offset) {
      this.sequence = sequence;
      this.type = type;
      this.flags = flags;
      this.payload = payload;
      this.offset = offset;
    }
  }

  /** The state handed to the journal. */
  static final class Result {
    List<RecoveredRecord> records = List.of();
    /** Segments holding or about to hold records, oldest first; the last is the tail. */
    List<SegmentState> segments = new ArrayList<>();
    long tailSalt;
    int tailWritePosition;
    int tailCapacity;
    JournalIO.JournalFile tailFile;
    long preparedId = -1;
    long preparedSalt;
    int preparedCapacity;
    JournalIO.JournalFile preparedFile;
    long nextSegmentId = 1;
    long nextSequence = 1;
    int tornBytesZeroed;
  }

  private final JournalIO io;
  private final Path directory;
  private final CRC32C crc = new CRC32C();

  JournalRecovery(JournalIO io, Path directory) {
    this.io = io;
    this.directory = directory;
  }

  Result recover() throws IOException {
    TreeMap<Long, Path> segmentFiles = new TreeMap<>();
    List<Path> preparations = new ArrayList<>();
    for (Path file : io.list(directory)) {
      String name = file.getFileName().toString();
      long id = RecordFormat.segmentId(name);
      if (id > 0) {
        segmentFiles.put(id, file);
      } else if (RecordFormat.preparationId(name) > 0) {
        preparations.add(file);
      }
    }
    Result result = new Result();
    if (segmentFiles.isEmpty()) {
      deletePreparations(preparations);
      return result;
    }
    long previousId = -1;
    for (Map.Entry<Long, Path> entry : segmentFiles.entrySet()) {
      if (previousId != -1 && entry.getKey() != previousId + 1) {
        throw new JournalCorruptedException(entry.getValue(), 0, "segment "
            + segmentName(previousId + 1) + " is missing between " + segmentName(previousId)
            + " and " + segmentName(entry.getKey()));
      }
      previousId = entry.getKey();
    }
    result.nextSegmentId = segmentFiles.lastKey() + 1;

    Map<Long, Scanned> data = new LinkedHashMap<>();
    List<long[]> marks = new ArrayList<>();
    Long expectedSequence = null;
    List<Map.Entry<Long, Path>> ordered = new ArrayList<>(segmentFiles.entrySet());
    for (int i = 0; i < ordered.size(); i++) {
      long id = ordered.get(i).getKey();
      Path path = ordered.get(i).getValue();
      ByteBuffer segment = readWhole(path);
      String headerProblem = RecordFormat.checkSegmentHeader(segment, id);
      if (headerProblem != null) {
        throw new JournalCorruptedException(path, 0, headerProblem);
      }
      long salt = RecordFormat.salt(segment);
      if (expectedSequence == null && id == 1) {
        expectedSequence = 1L;
      }
      List<Scanned> scanned = new ArrayList<>();
      int offset = RecordFormat.SEGMENT_HEADER_BYTES;
      boolean sealed = false;
      RecordFormat.Decoded invalid = null;
      while (true) {
        RecordFormat.Decoded decoded = RecordFormat.decode(segment, offset, id, salt, crc);
        if (!decoded.valid()) {
          invalid = decoded;
          break;
        }
        if (expectedSequence != null && decoded.sequence != expectedSequence) {
          throw new JournalCorruptedException(path, offset, "valid record has sequence "
              + decoded.sequence + " where " + expectedSequence + " was expected");
        }
        scanned.add(new Scanned(decoded.sequence, decoded.type, decoded.flags,
            decoded.payload(segment), offset));
        expectedSequence = decoded.sequence + 1;
        offset = decoded.end();
        if (decoded.type == RecordFormat.TYPE_SEAL) {
          sealed = true;
          break;
        }
      }
      boolean last = i == ordered.size() - 1;
      if (sealed) {
        if (last) {
          throw new JournalCorruptedException(path, offset, "segment is sealed but the segment"
              + " that follows it, " + segmentName(id + 1) + ", is missing");
        }
        collect(result, id, path, scanned, expectedSequence, data, marks);
        continue;
      }
      if (expectedSequence == null) {
        throw new JournalCorruptedException(path, offset, "the oldest segment holds no valid"
            + " record although older segments were reclaimed: " + invalid.failure);
      }
      // This is the tail: the first segment without a seal. What follows may only be the
      // preallocated next segment, untouched.
      if (ordered.size() - i > 2) {
        throw new JournalCorruptedException(path, offset, "segment is not sealed ("
            + invalid.failure + ") but " + (ordered.size() - i - 1) + " segments follow it");
      }
      if (!last) {
        long nextId = ordered.get(i + 1).getKey();
        Path nextPath = ordered.get(i + 1).getValue();
        ByteBuffer next = readWhole(nextPath);
        String nextHeader = RecordFormat.checkSegmentHeader(next, nextId);
        if (nextHeader != null) {
          throw new JournalCorruptedException(nextPath, 0, nextHeader);
        }
        int dirty = RecordFormat.endOfNonZero(next, RecordFormat.SEGMENT_HEADER_BYTES);
        if (dirty != RecordFormat.SEGMENT_HEADER_BYTES) {
          throw new JournalCorruptedException(path, offset, "segment is not sealed ("
              + invalid.failure + ") but the next segment " + nextPath.getFileName()
              + " holds data up to offset " + dirty);
        }
        result.preparedId = nextId;
        result.preparedSalt = RecordFormat.salt(next);
        result.preparedCapacity = next.limit();
      }
      checkTornTail(path, segment, id, salt, invalid, expectedSequence);
      int keep = dropIncompleteUnit(scanned);
      int cut = keep == scanned.size() ? offset : scanned.get(keep).offset;
      List<Scanned> kept = scanned.subList(0, keep);
      long tailExpected = expectedSequence - (scanned.size() - keep);
      int dirtyEnd = RecordFormat.endOfNonZero(segment, cut);
      JournalIO.JournalFile tail = io.open(path);
      try {
        if (dirtyEnd > cut) {
          zero(tail, cut, dirtyEnd);
          tail.force(false);
          result.tornBytesZeroed = dirtyEnd - cut;
        }
      } catch (IOException | RuntimeException e) {
        tail.close();
        throw e;
      }
      result.tailFile = tail;
      result.tailSalt = salt;
      result.tailWritePosition = cut;
      result.tailCapacity = segment.limit();
      expectedSequence = tailExpected;
      collect(result, id, path, kept, expectedSequence, data, marks);
      if (result.segments.isEmpty() || result.segments.get(result.segments.size() - 1).id != id) {
        result.segments.add(new SegmentState(id, path, expectedSequence));
      }
      break;
    }
    if (result.preparedId > 0) {
      try {
        result.preparedFile = io.open(directory.resolve(RecordFormat.segmentFileName(
            result.preparedId)));
      } catch (IOException | RuntimeException e) {
        result.tailFile.close();
        throw e;
      }
    }
    result.nextSequence = expectedSequence;
    applyMarks(result, data, marks);
    // Only once the scan found nothing corrupt: a corruption error leaves every file as it was.
    deletePreparations(preparations);
    return result;
  }

  /**
   * Deletes leftover preparation files. A preparation file never holds a record: it is renamed
   * into place only after it is complete and forced, so a leftover one is an interrupted
   * preallocation.
   */
  private void deletePreparations(List<Path> preparations) throws IOException {
    if (preparations.isEmpty()) {
      return;
    }
    for (Path preparation : preparations) {
      io.delete(preparation);
    }
    io.syncDirectory(directory);
  }

  /**
   * Decides whether the bytes after the first invalid record of the tail are a torn write. A
   * valid record after the damage that belongs to a write started after the damaged record
   * proves the damaged record had been written and forced before: that is corruption.
   */
  private void checkTornTail(Path path, ByteBuffer segment, long id, long salt,
      RecordFormat.Decoded invalid, long expectedSequence) {
    int end = RecordFormat.endOfNonZero(segment, invalid.offset);
    for (int at = invalid.offset + 1; at + RecordFormat.RECORD_HEADER_BYTES <= end; at++) {
      if (segment.getInt(at) != RecordFormat.RECORD_MAGIC) {
        continue;
      }
      RecordFormat.Decoded later = RecordFormat.decode(segment, at, id, salt, crc);
      if (!later.valid()) {
        continue;
      }
      if (later.sequence < expectedSequence || later.writeFirstSequence() > expectedSequence) {
        throw new JournalCorruptedException(path, invalid.offset, invalid.failure
            + ", yet a valid record with sequence " + later.sequence + " written later follows"
            + " at offset " + at);
      }
    }
  }

  /** Returns how many scanned records to keep: a unit whose last record is missing is dropped. */
  private static int dropIncompleteUnit(List<Scanned> scanned) {
    int keep = scanned.size();
    while (keep > 0
        && (scanned.get(keep - 1).flags & RecordFormat.FLAG_UNIT_CONTINUES) != 0) {
      keep--;
    }
    return keep;
  }

  private void collect(Result result, long id, Path path, List<Scanned> scanned,
      long expectedSequence, Map<Long, Scanned> data, List<long[]> marks) {
    if (scanned.isEmpty()) {
      return;
    }
    SegmentState state = new SegmentState(id, path, scanned.get(0).sequence);
    for (Scanned record : scanned) {
      if (record.type >= 0) {
        data.put(record.sequence, record);
        state.addUndelivered(record.sequence);
      } else if (record.type == RecordFormat.TYPE_DELIVERED) {
        if (record.payload.length % Long.BYTES != 0) {
          throw new JournalCorruptedException(path, record.offset,
              "delivered mark payload of " + record.payload.length + " bytes");
        }
        ByteBuffer sequences = ByteBuffer.wrap(record.payload);
        long[] marked = new long[record.payload.length / Long.BYTES];
        for (int i = 0; i < marked.length; i++) {
          marked[i] = sequences.getLong();
        }
        marks.add(marked);
      }
    }
    result.segments.add(state);
  }

  private static void applyMarks(Result result, Map<Long, Scanned> data, List<long[]> marks) {
    TreeMap<Long, SegmentState> bySequence = new TreeMap<>();
    for (SegmentState state : result.segments) {
      bySequence.put(state.firstSequence, state);
    }
    for (long[] marked : marks) {
      for (long sequence : marked) {
        Map.Entry<Long, SegmentState> owner = bySequence.floorEntry(sequence);
        if (owner != null) {
          owner.getValue().markDelivered(sequence);
        }
      }
    }
    List<RecoveredRecord> records = new ArrayList<>(data.size());
    for (Scanned record : data.values()) {
      SegmentState owner = bySequence.floorEntry(record.sequence).getValue();
      records.add(new RecoveredRecord(record.sequence, record.type, record.payload,
          !owner.isUndelivered(record.sequence)));
    }
    result.records = Collections.unmodifiableList(records);
  }

  private ByteBuffer readWhole(Path path) throws IOException {
    try (JournalIO.JournalFile file = io.open(path)) {
      long size = file.size();
      if (size > Integer.MAX_VALUE - 8) {
        throw new JournalCorruptedException(path, 0, "segment file of " + size + " bytes");
      }
      ByteBuffer buffer = ByteBuffer.allocate((int) size);
      while (buffer.hasRemaining()) {
        if (file.read(buffer.position(), buffer) < 0) {
          break;
        }
      }
      buffer.flip();
      return buffer;
    }
  }

  static void zero(JournalIO.JournalFile file, long from, long to) throws IOException {
    ByteBuffer zeros = ByteBuffer.allocate((int) Math.min(1 << 20, to - from));
    for (long at = from; at < to; at += zeros.capacity()) {
      zeros.clear().limit((int) Math.min(zeros.capacity(), to - at));
      file.write(at, zeros);
    }
  }

  private static String segmentName(long id) {
    return RecordFormat.segmentFileName(id);
  }
}
