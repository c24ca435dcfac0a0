package io.pointsman.limits.redis;

import io.pointsman.spi.CounterStoreUnavailableException;

/**
 * The Redis server holding limit counters may evict them ({@code maxmemory-policy} is not
 * {@code noeviction}, or could not be read) and that was not explicitly allowed. An evicted
 * budget silently restarts at zero, so the store refuses: at build time when the server
 * answers then, else on the first operation (which the limiter turns into a fail-closed 503).
 */
public final class EvictionPolicyException extends CounterStoreUnavailableException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message the policy found and what to do
   */
  public EvictionPolicyException(String message) {
    super(message, null, false);
  }
}
