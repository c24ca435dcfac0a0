package io.pointsman.journal;

/**
 * Base of the journal's unchecked exceptions. Immutable and safe to share between threads.
 */
public class JournalException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates an exception with a message.
   *
   * @param message what went wrong and what to do about it
   */
  public JournalException(String message) {
    super(message);
  }

  /**
   * Creates an exception with a message and a cause.
   *
   * @param message what went wrong and what to do about it
   * @param cause the underlying failure
   */
  public JournalException(String message, Throwable cause) {
    super(message, cause);
  }
}
