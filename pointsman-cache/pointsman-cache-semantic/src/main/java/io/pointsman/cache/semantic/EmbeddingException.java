package io.pointsman.cache.semantic;

/** The embedding runtime failed. The semantic cache turns it into a miss. */
public final class EmbeddingException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed
   * @param cause the runtime's exception
   */
  public EmbeddingException(String message, Throwable cause) {
    super(message, cause);
  }
}
