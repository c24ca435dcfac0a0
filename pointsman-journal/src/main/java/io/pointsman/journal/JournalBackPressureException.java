package io.pointsman.journal;

/**
 * Thrown by an append when the journal's queue stayed full for the whole
 * {@linkplain JournalConfig.Builder#enqueueTimeout(java.time.Duration) enqueue timeout}: the disk
 * cannot keep up. Nothing was enqueued. Immutable.
 */
public final class JournalBackPressureException extends JournalException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message how long the caller waited and how full the queue was
   */
  public JournalBackPressureException(String message) {
    super(message);
  }
}
