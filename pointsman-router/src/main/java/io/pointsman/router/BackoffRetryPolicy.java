package io.pointsman.router;

import io.pointsman.spi.ProviderException;
import io.pointsman.spi.RetryPolicy;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * A {@link RetryPolicy} with an attempt budget, exponential backoff with full jitter and the
 * provider's retry-after: the pause before attempt {@code k + 1} is a uniform draw from
 * {@code [0, min(maxBackoff, base * 2^(k-1))]}, raised to the provider's retry-after hint when
 * one came. A hint longer than {@code maxRetryAfter} stops retrying: holding a caller that long
 * is worse than failing it. Only retryable failures are retried. The hint concerns the
 * deployment that sent it: for a retry on another deployment the gateway asks again without it.
 * The gateway itself never retries a stream after a chunk reached the caller, nor a failure
 * that is not {@linkplain ProviderException#retryableOnSameDeployment() retryable on the same
 * deployment} (an exhausted quota) on the deployment that reported it, whatever the policy
 * says.
 *
 * <pre>{@code
 * RetryPolicy policy = BackoffRetryPolicy.builder().maxAttempts(3)
 *     .backoff(Duration.ofMillis(200), Duration.ofSeconds(5)).build();
 * }</pre>
 *
 * <p>Immutable and thread-safe (with the default random source).
 */
public final class BackoffRetryPolicy implements RetryPolicy {
  private final int maxAttempts;
  private final long baseNanos;
  private final long maxBackoffNanos;
  private final Duration maxRetryAfter;
  private final RandomGenerator random;

  private BackoffRetryPolicy(Builder b) {
    this.maxAttempts = b.maxAttempts;
    this.baseNanos = b.base.toNanos();
    this.maxBackoffNanos = b.maxBackoff.toNanos();
    this.maxRetryAfter = b.maxRetryAfter;
    this.random = b.random;
  }

  /**
   * Returns the defaults: {@link RetryPolicy#DEFAULT_MAX_ATTEMPTS} attempts, backoff 100 ms doubling up to 5 s, retry-after up to 30 s.
   *
   * @return the policy
   */
  public static BackoffRetryPolicy ofDefaults() {
    return builder().build();
  }

  /**
   * Returns a new builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public int maxAttempts() {
    return maxAttempts;
  }

  @Override
  public Duration retryAfter(int attempt, ProviderException failure) {
    if (!failure.retryable() || attempt >= maxAttempts) {
      return null;
    }
    long ceiling = baseNanos << Math.min(attempt - 1, 30);
    if (ceiling <= 0 || ceiling > maxBackoffNanos) {
      ceiling = maxBackoffNanos;
    }
    RandomGenerator r = random != null ? random : ThreadLocalRandom.current();
    Duration pause = Duration.ofNanos(ceiling == 0 ? 0 : r.nextLong(ceiling + 1));
    Duration hint = failure.retryAfter();
    if (hint != null) {
      if (hint.compareTo(maxRetryAfter) > 0) {
        return null;
      }
      if (hint.compareTo(pause) > 0) {
        pause = hint;
      }
    }
    return pause;
  }

  @Override
  public String toString() {
    return "BackoffRetryPolicy(" + maxAttempts + " attempts, " + Duration.ofNanos(baseNanos)
        + ".." + Duration.ofNanos(maxBackoffNanos) + ", retry-after <= " + maxRetryAfter + ")";
  }

  /** Builds a {@link BackoffRetryPolicy}. Setters fail fast. Not thread-safe. */
  public static final class Builder {
    private int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;
    private Duration base = Duration.ofMillis(100);
    private Duration maxBackoff = Duration.ofSeconds(5);
    private Duration maxRetryAfter = Duration.ofSeconds(30);
    private RandomGenerator random;

    private Builder() {}

    /**
     * Sets the attempt budget, retries included. Default:
     * {@link RetryPolicy#DEFAULT_MAX_ATTEMPTS}.
     *
     * @param value 1 to 10
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxAttempts(int value) {
      if (value < 1 || value > 10) {
        throw new IllegalArgumentException("maxAttempts must be between 1 and 10: " + value);
      }
      this.maxAttempts = value;
      return this;
    }

    /**
     * Sets the backoff: the first ceiling and the largest.
     *
     * @param first the ceiling of the first pause
     * @param max the largest ceiling
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if negative or max is below first
     */
    public Builder backoff(Duration first, Duration max) {
      Objects.requireNonNull(first, "first");
      Objects.requireNonNull(max, "max");
      if (first.isNegative() || max.compareTo(first) < 0) {
        throw new IllegalArgumentException("bad backoff: " + first + ".." + max);
      }
      this.base = first;
      this.maxBackoff = max;
      return this;
    }

    /**
     * Sets the longest retry-after hint that is waited for.
     *
     * @param value the bound
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if negative
     */
    public Builder maxRetryAfter(Duration value) {
      Objects.requireNonNull(value, "maxRetryAfter");
      if (value.isNegative()) {
        throw new IllegalArgumentException("maxRetryAfter must not be negative");
      }
      this.maxRetryAfter = value;
      return this;
    }

    /**
     * Sets the jitter source, for seeded tests. Default: the thread's random.
     *
     * @param value the generator
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder random(RandomGenerator value) {
      this.random = Objects.requireNonNull(value, "random");
      return this;
    }

    /**
     * Builds the policy.
     *
     * @return the policy
     */
    public BackoffRetryPolicy build() {
      return new BackoffRetryPolicy(this);
    }
  }
}
