package io.pointsman.spi;

/**
 * Thrown by a {@link CounterStore} that cannot reach its counters (a remote store that is down,
 * timing out or refusing). The limiter decides what that means: by default the call is refused
 * with 503, or, when configured to fail open, admitted without limits. Either way it is counted.
 *
 * <p>{@link #outcomeUnknown()} tells whether the operation may have been applied although no
 * reply arrived (a reply lost after the command was sent). Every operation of a store is
 * idempotent by its operation id, so the limiter retries such an operation with the same id.
 */
public class CounterStoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Whether the store may have applied the operation. */
  private final boolean outcomeUnknown;

  /**
   * Creates the exception for an operation whose outcome is unknown (the conservative choice).
   *
   * @param message what could not be reached
   * @param cause the underlying failure, or {@code null}
   */
  public CounterStoreUnavailableException(String message, Throwable cause) {
    this(message, cause, true);
  }

  /**
   * Creates the exception.
   *
   * @param message what could not be reached
   * @param cause the underlying failure, or {@code null}
   * @param outcomeUnknown true when the operation may have been applied (the request may have
   *     reached the store), false when it certainly was not (the connection was refused, or the
   *     store answered with an error)
   */
  public CounterStoreUnavailableException(String message, Throwable cause,
      boolean outcomeUnknown) {
    super(message, cause);
    this.outcomeUnknown = outcomeUnknown;
  }

  /**
   * Returns whether the operation may have been applied although this was thrown.
   *
   * @return true when the outcome is unknown
   */
  public boolean outcomeUnknown() {
    return outcomeUnknown;
  }
}
