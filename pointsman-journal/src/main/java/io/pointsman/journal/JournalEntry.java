package io.pointsman.journal;

import java.util.Arrays;
import java.util.Objects;

/**
 * One record to append as part of a unit: a type and an opaque payload. Immutable: the payload
 * is copied on creation and on access.
 */
public final class JournalEntry {
  private final byte type;
  private final byte[] payload;

  private JournalEntry(byte type, byte[] payload) {
    this.type = type;
    this.payload = payload;
  }

  /**
   * Creates an entry.
   *
   * @param type the caller's record type, 0 to 127; negative types are reserved by the journal
   * @param payload the bytes to store; copied
   * @return the entry
   * @throws NullPointerException if {@code payload} is null
   * @throws IllegalArgumentException if {@code type} is negative
   */
  public static JournalEntry of(byte type, byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    SegmentedJournal.checkType(type);
    return new JournalEntry(type, payload.clone());
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

  byte[] payloadNoCopy() {
    return payload;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof JournalEntry
        && ((JournalEntry) other).type == type
        && Arrays.equals(((JournalEntry) other).payload, payload);
  }

  @Override
  public int hashCode() {
    return 31 * type + Arrays.hashCode(payload);
  }

  @Override
  public String toString() {
    return "JournalEntry[type=" + type + ", " + payload.length + " bytes]";
  }
}
