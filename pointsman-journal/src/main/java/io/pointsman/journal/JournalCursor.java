package io.pointsman.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.zip.CRC32C;

/**
 * Reads durable records back from the segment files, in sequence order, from a sequence number
 * on, on the caller's thread: the I/O thread is never involved, so re-reading adds nothing to
 * the append path. It reads only below the journal's durable end (every record there is
 * completely written: a write is issued before the force that covers it), through its own file
 * handles. A segment reclaimed meanwhile held only delivered records; the cursor moves on to the
 * oldest segment still there.
 *
 * <p>Not thread-safe: one thread uses a cursor at a time.
 */
final class JournalCursor implements Closeable {
  private static final int CHUNK_BYTES = 1 << 20;

  private final SegmentedJournal journal;
  private final CRC32C crc = new CRC32C();
  private long next;
  private SegmentState segment;
  private JournalIO.JournalFile file;
  private long salt;
  private long capacity;
  private long position;
  private ByteBuffer chunk = ByteBuffer.allocate(0);
  private long chunkStart;

  JournalCursor(SegmentedJournal journal, long fromSequence) {
    this.journal = journal;
    this.next = Math.max(1, fromSequence);
  }

  /** The sequence number the next read starts at. */
  long next() {
    return next;
  }

  /**
   * Reads up to {@code max} caller records of one type, with sequence numbers from {@link
   * #next()} up to the durable end, and moves past every record it looked at.
   *
   * @return the records, in sequence order, each with {@code delivered} false (the cursor does
   *     not know)
   * @throws IOException if a segment cannot be read
   */
  List<RecoveredRecord> read(int max, byte type) throws IOException {
    List<RecoveredRecord> out = new ArrayList<>();
    try {
      readInto(out, max, type);
    } catch (IOException | RuntimeException e) {
      closeQuietly();
      if (out.isEmpty()) {
        throw e;
      }
      // Hand over what was read; the failure shows again on the next read.
    }
    return out;
  }

  private void readInto(List<RecoveredRecord> out, int max, byte type) throws IOException {
    long end = journal.durableEnd();
    while (out.size() < max && next < end) {
      if (segment == null && !openSegment()) {
        break;
      }
      RecordFormat.Decoded d = decodeAt(position);
      if (d == null) {
        // Nothing valid here yet: the rest below the durable end is in a later segment the
        // cursor reaches through this one's seal; try again later.
        break;
      }
      if (d.sequence >= end) {
        break;
      }
      long sequence = d.sequence;
      position = chunkStart + d.end();
      if (d.type == RecordFormat.TYPE_SEAL) {
        closeSegment();
        next = Math.max(next, sequence + 1);
        continue;
      }
      if (sequence >= next) {
        if (d.type == type) {
          out.add(new RecoveredRecord(sequence, d.type, d.payload(chunk), false));
        }
        next = sequence + 1;
      }
    }
  }

  private void closeQuietly() {
    try {
      closeSegment();
    } catch (IOException suppressed) {
      // The handle is dropped either way; the next read opens the segment again.
    }
  }

  private boolean openSegment() throws IOException {
    for (int attempt = 0; attempt < 8; attempt++) {
      ConcurrentSkipListMap<Long, SegmentState> index = journal.readableSegments();
      Map.Entry<Long, SegmentState> entry = index.floorEntry(next);
      if (entry == null) {
        // Everything before the oldest segment still there was delivered and reclaimed.
        entry = index.firstEntry();
      }
      if (entry == null) {
        return false;
      }
      SegmentState candidate = entry.getValue();
      JournalIO.JournalFile opened;
      try {
        opened = journal.io().open(candidate.path);
      } catch (NoSuchFileException reclaimed) {
        continue;
      }
      try {
        ByteBuffer header = ByteBuffer.allocate(RecordFormat.SEGMENT_HEADER_BYTES);
        while (header.hasRemaining() && opened.read(header.position(), header) >= 0) {
          // read the whole header
        }
        header.flip();
        String problem = RecordFormat.checkSegmentHeader(header, candidate.id);
        if (problem != null) {
          throw new JournalCorruptedException(candidate.path, 0, problem);
        }
        salt = RecordFormat.salt(header);
        capacity = opened.size();
      } catch (IOException | RuntimeException e) {
        opened.close();
        throw e;
      }
      segment = candidate;
      file = opened;
      position = RecordFormat.SEGMENT_HEADER_BYTES;
      chunk.limit(0);
      chunkStart = position;
      next = Math.max(next, candidate.firstSequence);
      return true;
    }
    return false;
  }

  /** Decodes the record at a file offset, reading from the file where the chunk falls short. */
  private RecordFormat.Decoded decodeAt(long at) throws IOException {
    RecordFormat.Decoded d = decodeCached(at);
    if (d != null) {
      return d;
    }
    // The cached bytes may predate the write of this record: read them again.
    fill(at, CHUNK_BYTES);
    if (chunk.limit() >= RecordFormat.RECORD_HEADER_BYTES
        && chunk.getInt(0) == RecordFormat.RECORD_MAGIC) {
      int length = chunk.getInt(8);
      long needed = (long) RecordFormat.RECORD_HEADER_BYTES + length;
      if (length >= 0 && needed > chunk.limit() && at + needed <= capacity) {
        fill(at, (int) needed);
      }
    }
    return decodeCached(at);
  }

  private RecordFormat.Decoded decodeCached(long at) {
    long offset = at - chunkStart;
    if (offset < 0 || offset + RecordFormat.RECORD_HEADER_BYTES > chunk.limit()) {
      return null;
    }
    RecordFormat.Decoded d = RecordFormat.decode(chunk, (int) offset, segment.id, salt, crc);
    return d.valid() ? d : null;
  }

  private void fill(long at, int bytes) throws IOException {
    int size = (int) Math.max(0, Math.min(bytes, capacity - at));
    if (chunk.capacity() < size) {
      chunk = ByteBuffer.allocate(size);
    }
    chunk.clear().limit(size);
    while (chunk.hasRemaining()) {
      if (file.read(at + chunk.position(), chunk) < 0) {
        break;
      }
    }
    chunk.flip();
    chunkStart = at;
  }

  private void closeSegment() throws IOException {
    JournalIO.JournalFile open = file;
    segment = null;
    file = null;
    if (open != null) {
      open.close();
    }
  }

  @Override
  public void close() throws IOException {
    closeSegment();
  }
}
