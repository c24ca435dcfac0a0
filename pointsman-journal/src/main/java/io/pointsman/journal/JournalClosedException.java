package io.pointsman.journal;

/** Thrown by an append or mark made after {@link SegmentedJournal#close()}. Immutable. */
public final class JournalClosedException extends JournalException {
  private static final long serialVersionUID = 1L;

  /** Creates the exception. */
  public JournalClosedException() {
    super("the journal is closed");
  }
}
