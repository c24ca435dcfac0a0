package io.pointsman.spi;

/**
 * Thrown by a shared {@link CounterStore} whose counters cannot be trusted: its generation
 * marker is missing (the server restarted without persistence, failed over to a replica that
 * had not received the data, or was flushed) or a rebuild is in progress. Nothing was changed.
 * The limiter refuses to admit against such counters (fail closed, 503) until they are rebuilt
 * from the system of record ({@link CounterStore#beginRebuild}).
 */
public class CounterStoreStaleException extends CounterStoreUnavailableException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what is stale and why
   */
  public CounterStoreStaleException(String message) {
    super(message, null, false);
  }
}
