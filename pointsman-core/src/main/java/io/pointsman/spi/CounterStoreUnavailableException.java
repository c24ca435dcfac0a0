package io.pointsman.spi;

/**
 * Thrown by a {@link CounterStore} that cannot reach its counters (a remote store that is down,
 * timing out or refusing). The limiter decides what that means: by default the call is refused
 * with 503, or, when configured to fail open, admitted without limits. Either way it is counted.
 */
public class CounterStoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what could not be reached
   * @param cause the underlying failure, or {@code null}
   */
  public CounterStoreUnavailableException(String message, Throwable cause) {
    super(message, cause);
  }
}
