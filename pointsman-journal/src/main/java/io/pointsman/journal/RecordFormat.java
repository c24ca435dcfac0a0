package io.pointsman.journal;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The on-disk layout. All integers are big-endian.
 *
 * <pre>
 * segment header (32 bytes)
 *   0  int   magic "PMJS"
 *   4  short format version (1)
 *   6  short reserved, 0
 *   8  long  segment id
 *   16 long  salt, random per segment
 *   24 int   CRC32C of bytes 0..23
 *   28 int   reserved, 0
 *
 * record (36-byte header, then the payload)
 *   0  int   magic "PMJR"
 *   4  byte  type: 0..127 caller records, -1 delivered mark, -2 seal
 *   5  byte  flags: bit 0 = more records of the same unit follow
 *   6  short reserved, 0
 *   8  int   payload length
 *   12 int   write delta: sequence minus the sequence of the first record of the same write
 *   16 long  sequence number
 *   24 long  segment id
 *   32 int   CRC32C of (salt, bytes 0..31, payload)
 * </pre>
 */
final class RecordFormat {
  static final int SEGMENT_MAGIC = 0x504D4A53;
  static final short FORMAT_VERSION = 1;
  static final int SEGMENT_HEADER_BYTES = 32;
  static final int RECORD_MAGIC = 0x504D4A52;
  static final int RECORD_HEADER_BYTES = 36;
  static final byte TYPE_DELIVERED = -1;
  static final byte TYPE_SEAL = -2;
  static final byte FLAG_UNIT_CONTINUES = 1;

  private static final String SEGMENT_PREFIX = "segment-";
  private static final String SEGMENT_SUFFIX = ".log";
  private static final String PREPARATION_SUFFIX = ".prep";

  private RecordFormat() {}

  static String segmentFileName(long segmentId) {
    return String.format("%s%016x%s", SEGMENT_PREFIX, segmentId, SEGMENT_SUFFIX);
  }

  static String preparationFileName(long segmentId) {
    return String.format("%s%016x%s", SEGMENT_PREFIX, segmentId, PREPARATION_SUFFIX);
  }

  /** Returns the id encoded in a segment file name, or -1 if the name is not a segment's. */
  static long segmentId(String fileName) {
    return idWithSuffix(fileName, SEGMENT_SUFFIX);
  }

  /** Returns the id encoded in a preparation file name, or -1. */
  static long preparationId(String fileName) {
    return idWithSuffix(fileName, PREPARATION_SUFFIX);
  }

  private static long idWithSuffix(String fileName, String suffix) {
    if (!fileName.startsWith(SEGMENT_PREFIX) || !fileName.endsWith(suffix)
        || fileName.length() != SEGMENT_PREFIX.length() + 16 + suffix.length()) {
      return -1;
    }
    try {
      return Long.parseUnsignedLong(
          fileName.substring(SEGMENT_PREFIX.length(), SEGMENT_PREFIX.length() + 16), 16);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  static int recordBytes(int payloadLength) {
    return RECORD_HEADER_BYTES + payloadLength;
  }

  static void writeSegmentHeader(ByteBuffer destination, long segmentId, long salt) {
    int start = destination.position();
    destination.putInt(SEGMENT_MAGIC).putShort(FORMAT_VERSION).putShort((short) 0)
        .putLong(segmentId).putLong(salt);
    CRC32C crc = new CRC32C();
    crc.update(destination.duplicate().position(start).limit(start + 24));
    destination.putInt((int) crc.getValue()).putInt(0);
  }

  /**
   * Validates a segment header.
   *
   * @return null if valid, else the reason
   */
  static String checkSegmentHeader(ByteBuffer segment, long expectedId) {
    if (segment.limit() < SEGMENT_HEADER_BYTES) {
      return "file is shorter than a segment header (" + segment.limit() + " bytes)";
    }
    if (segment.getInt(0) != SEGMENT_MAGIC) {
      return "bad segment magic " + Integer.toHexString(segment.getInt(0));
    }
    CRC32C crc = new CRC32C();
    crc.update(segment.duplicate().position(0).limit(24));
    if ((int) crc.getValue() != segment.getInt(24)) {
      return "segment header checksum mismatch";
    }
    if (segment.getShort(4) != FORMAT_VERSION) {
      return "unknown format version " + segment.getShort(4);
    }
    if (segment.getLong(8) != expectedId) {
      return "segment header names id " + segment.getLong(8) + " but the file name says "
          + expectedId;
    }
    return null;
  }

  static long salt(ByteBuffer segment) {
    return segment.getLong(16);
  }

  /** Encodes one record at the buffer's position. */
  static void encode(ByteBuffer destination, CRC32C crc, long salt, long segmentId, byte type,
      byte flags, int writeDelta, long sequence, byte[] payload) {
    int start = destination.position();
    destination.putInt(RECORD_MAGIC).put(type).put(flags).putShort((short) 0)
        .putInt(payload.length).putInt(writeDelta).putLong(sequence).putLong(segmentId);
    crc.reset();
    updateSalt(crc, salt);
    crc.update(destination.duplicate().position(start).limit(start + 32));
    crc.update(payload);
    destination.putInt((int) crc.getValue());
    destination.put(payload);
  }

  private static void updateSalt(CRC32C crc, long salt) {
    for (int shift = 56; shift >= 0; shift -= 8) {
      crc.update((int) (salt >>> shift) & 0xFF);
    }
  }

  /**
   * A decoded record header, or the reason nothing valid starts at the offset. Payload bytes are
   * at {@code offset + RECORD_HEADER_BYTES}.
   */
  static final class Decoded {
    final String failure;
    final int offset;
    final byte type;
    final byte flags;
    final int length;
    final int writeDelta;
    final long sequence;

    private Decoded(String failure, int offset, byte type, byte flags, int length, int writeDelta,
        long sequence) {
      this.failure = failure;
      this.offset = offset;
      this.type = type;
      this.flags = flags;
      this.length = length;
      this.writeDelta = writeDelta;
      this.sequence = sequence;
    }

    boolean valid() {
      return failure == null;
    }

    int end() {
      return offset + RECORD_HEADER_BYTES + length;
    }

    long writeFirstSequence() {
      return sequence - writeDelta;
    }

    byte[] payload(ByteBuffer segment) {
      byte[] payload = new byte[length];
      segment.get(offset + RECORD_HEADER_BYTES, payload);
      return payload;
    }

    static Decoded failed(int offset, String failure) {
      return new Decoded(failure, offset, (byte) 0, (byte) 0, 0, 0, 0);
    }
  }

  /** Decodes and checks the record at an offset of a whole-segment buffer. */
  static Decoded decode(ByteBuffer segment, int offset, long segmentId, long salt, CRC32C crc) {
    int limit = segment.limit();
    if (offset + RECORD_HEADER_BYTES > limit) {
      return Decoded.failed(offset, "no room for a record header before the end of the file");
    }
    int magic = segment.getInt(offset);
    if (magic != RECORD_MAGIC) {
      return Decoded.failed(offset, magic == 0 && allZero(segment, offset, RECORD_HEADER_BYTES)
          ? "zero bytes where a record header should be"
          : "bad record magic " + Integer.toHexString(magic));
    }
    int length = segment.getInt(offset + 8);
    if (length < 0 || length > limit - offset - RECORD_HEADER_BYTES) {
      return Decoded.failed(offset, "record length " + length + " runs past the end of the file");
    }
    crc.reset();
    updateSalt(crc, salt);
    crc.update(segment.duplicate().position(offset).limit(offset + 32));
    crc.update(segment.duplicate()
        .position(offset + RECORD_HEADER_BYTES).limit(offset + RECORD_HEADER_BYTES + length));
    if ((int) crc.getValue() != segment.getInt(offset + 32)) {
      return Decoded.failed(offset, "record checksum mismatch");
    }
    long recordSegment = segment.getLong(offset + 24);
    if (recordSegment != segmentId) {
      return Decoded.failed(offset, "record belongs to segment " + recordSegment);
    }
    byte type = segment.get(offset + 4);
    if (type < TYPE_SEAL) {
      return Decoded.failed(offset, "unknown reserved record type " + type);
    }
    int writeDelta = segment.getInt(offset + 12);
    long sequence = segment.getLong(offset + 16);
    if (writeDelta < 0 || sequence < 1 || sequence - writeDelta < 1) {
      return Decoded.failed(offset, "impossible sequence " + sequence + " with write delta "
          + writeDelta);
    }
    return new Decoded(null, offset, type, segment.get(offset + 5), length, writeDelta, sequence);
  }

  static boolean allZero(ByteBuffer buffer, int from, int length) {
    int end = Math.min(buffer.limit(), from + length);
    for (int i = from; i < end; i++) {
      if (buffer.get(i) != 0) {
        return false;
      }
    }
    return true;
  }

  /** Returns one past the last non-zero byte at or after {@code from}, or {@code from}. */
  static int endOfNonZero(ByteBuffer buffer, int from) {
    for (int i = buffer.limit() - 1; i >= from; i--) {
      if (buffer.get(i) != 0) {
        return i + 1;
      }
    }
    return from;
  }
}
