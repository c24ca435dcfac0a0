package io.pointsman.provider;

/**
 * A {@code text/event-stream} body that cannot be parsed within its bounds. Immutable.
 */
public final class SseException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is wrong with the stream (never its content)
   */
  public SseException(String message) {
    super(message);
  }
}
