package io.pointsman.spi;

import java.time.Duration;

/**
 * Decides whether a failed provider attempt is retried and after what pause. Every attempt,
 * retried or not, has its own dispatch intent and is accounted. Implementations must be
 * thread-safe and must not block.
 */
public interface RetryPolicy {
  /**
   * The attempt budget every default uses: the gateway's when neither
   * {@code maxAttempts} nor a policy is set, and the router module's backoff policy's.
   */
  int DEFAULT_MAX_ATTEMPTS = 2;

  /**
   * Returns the most attempts one call may make.
   *
   * @return at least 1
   */
  int maxAttempts();

  /**
   * Decides what happens after a failed attempt.
   *
   * @param attempt the attempt that failed, from 1
   * @param failure how it failed
   * @return the pause before the next attempt ({@link Duration#ZERO} for none), or {@code null}
   *     to stop and fail the call
   */
  Duration retryAfter(int attempt, ProviderException failure);

  /** The longest provider retry-after the default policy waits for before a retry. */
  Duration DEFAULT_MAX_RETRY_AFTER = Duration.ofSeconds(10);

  /**
   * Returns the default policy: {@code attempts(DEFAULT_MAX_ATTEMPTS)}.
   *
   * @return the policy
   */
  static RetryPolicy ofDefaults() {
    return attempts(DEFAULT_MAX_ATTEMPTS);
  }

  /**
   * Returns a policy that retries retryable failures (408, 409, 429, 5xx, unknown
   * outcomes), up to {@code maxAttempts} attempts in all, without a pause unless the provider
   * asked for one. A provider's retry-after ({@code retry-after}, {@code retry-after-ms}) is
   * waited for before the retry on the deployment that sent it; a hint longer than
   * {@link #DEFAULT_MAX_RETRY_AFTER} ends the retries on that deployment (the gateway asks
   * again, without the hint, for another deployment: the hint concerns only the one that
   * sent it).
   *
   * @param maxAttempts the attempt budget, 1 to 10
   * @return the policy
   * @throws IllegalArgumentException if out of range
   */
  static RetryPolicy attempts(int maxAttempts) {
    if (maxAttempts < 1 || maxAttempts > 10) {
      throw new IllegalArgumentException("maxAttempts must be between 1 and 10: " + maxAttempts);
    }
    return new RetryPolicy() {
      @Override
      public int maxAttempts() {
        return maxAttempts;
      }

      @Override
      public Duration retryAfter(int attempt, ProviderException failure) {
        if (!failure.retryable() || attempt >= maxAttempts) {
          return null;
        }
        Duration hint = failure.retryAfter();
        if (hint == null) {
          return Duration.ZERO;
        }
        return hint.compareTo(DEFAULT_MAX_RETRY_AFTER) > 0 ? null : hint;
      }

      @Override
      public String toString() {
        return "RetryPolicy.attempts(" + maxAttempts + ")";
      }
    };
  }
}
