package io.pointsman.journal;

import java.util.Arrays;

/**
 * A record found valid by recovery: its sequence number, type, payload, and whether a durable
 * delivered mark covers it. Immutable: the payload is copied on access.
 */
public final class RecoveredRecord {
  private final long sequence;
  private final byte type;
  private final byte[] payload;
  private final boolean delivered;

  RecoveredRecord(long sequence, byte type, byte[] payload, boolean delivered) {
    this.sequence = sequence;
    this.type = type;
    this.payload = payload;
    this.delivered = delivered;
  }

  /**
   * Returns the sequence number the append completed with.
   *
   * @return the global, monotonic sequence number
   */
  public long sequence() {
    return sequence;
  }

  /**
   * Returns the record type.
   *
   * @return the type, 0 to 127
   */
  public byte type() {
    return type;
  }

  /**
   * Returns a copy of the payload.
   *
   * @return the payload bytes
   */
  public byte[] payload() {
    return payload.clone();
  }

  /**
   * Returns whether a delivered mark for this record was durable before the restart.
   *
   * @return {@code true} if delivered; such a record needs no further handling
   */
  public boolean delivered() {
    return delivered;
  }

  @Override
  public boolean equals(Object other) {
    if (!(other instanceof RecoveredRecord)) {
      return false;
    }
    RecoveredRecord that = (RecoveredRecord) other;
    return sequence == that.sequence
        && type == that.type
        && delivered == that.delivered
        && Arrays.equals(payload, that.payload);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(sequence) * 31 + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "RecoveredRecord[seq=" + sequence + ", type=" + type + ", " + payload.length
        + " bytes" + (delivered ? ", delivered]" : "]");
  }
}
