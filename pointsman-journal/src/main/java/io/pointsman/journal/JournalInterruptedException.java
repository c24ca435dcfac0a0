package io.pointsman.journal;

/**
 * Thrown by an append whose calling thread was interrupted while it waited for space in the
 * queue. Nothing was enqueued and the thread's interrupt status is set again. The journal itself
 * is unaffected. Immutable.
 */
public final class JournalInterruptedException extends JournalException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param cause the interruption
   */
  public JournalInterruptedException(InterruptedException cause) {
    super("interrupted while waiting for space in the journal queue; nothing was appended", cause);
  }
}
