package io.pointsman.journal;

import java.nio.file.Path;

/**
 * Thrown by {@link SegmentedJournal#open(JournalConfig)} when the journal holds damage that a
 * crash cannot explain: an invalid record inside a sealed segment, an invalid record followed by
 * a valid one written later, a missing segment. Recovery stops without modifying or deleting any
 * file, so the evidence stays in place for inspection.
 *
 * <p>Immutable.
 */
public final class JournalCorruptedException extends JournalException {
  private static final long serialVersionUID = 1L;

  private final transient Path segment;
  /** The byte offset of the damage inside the segment. */
  private final long offset;
  /** What is wrong, without the location. */
  private final String reason;

  /**
   * Creates the exception.
   *
   * @param segment the segment file where the damage was found
   * @param offset the byte offset in that file
   * @param reason what is wrong at that offset
   */
  public JournalCorruptedException(Path segment, long offset, String reason) {
    super("journal corrupted in " + segment + " at offset " + offset + ": " + reason
        + "; recovery stopped and modified nothing: keep the directory for inspection and"
        + " restore it or repair it before restarting");
    this.segment = segment;
    this.offset = offset;
    this.reason = reason;
  }

  /**
   * Returns the segment file where the damage was found.
   *
   * @return the segment path
   */
  public Path segment() {
    return segment;
  }

  /**
   * Returns the byte offset of the damage inside {@link #segment()}.
   *
   * @return the offset
   */
  public long offset() {
    return offset;
  }

  /**
   * Returns what is wrong, without the location.
   *
   * @return the reason
   */
  public String reason() {
    return reason;
  }
}
