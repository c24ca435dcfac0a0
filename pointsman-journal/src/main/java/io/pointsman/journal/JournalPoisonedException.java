package io.pointsman.journal;

/**
 * Thrown, or used to fail a pending append, once a write, force, rename, directory sync or
 * delete of the journal has failed. After such a failure the kernel may have dropped the dirty
 * pages and a retried sync could report success for data that is gone, so the journal refuses all
 * further work until the process restarts and recovery reads what is really on disk.
 *
 * <p>The original I/O failure is the {@linkplain #getCause() cause}. Immutable.
 */
public final class JournalPoisonedException extends JournalException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed; the constructor appends the instruction to restart
   * @param cause the I/O failure that poisoned the journal
   */
  public JournalPoisonedException(String message, Throwable cause) {
    super(message + "; the journal refuses all further appends: restart the process so that"
        + " recovery can read what is durable", cause);
  }
}
