package io.pointsman.router;

import java.time.Duration;
import java.util.Objects;

/**
 * When a deployment is taken out of rotation. After {@code failureThreshold} consecutive failed
 * attempts the deployment opens (receives nothing) for {@code openFor}; then it is half-open and
 * admits one probe at a time; a successful probe closes it, a failed one opens it again for
 * twice as long, up to {@code maxOpenFor}. Immutable.
 *
 * @param failureThreshold consecutive failures that open the deployment, at least 1
 * @param openFor the first open period
 * @param maxOpenFor the longest open period after repeated failed probes
 */
public record Cooldown(int failureThreshold, Duration openFor, Duration maxOpenFor) {

  /**
   * Validates the fields.
   *
   * @param failureThreshold consecutive failures that open the deployment, at least 1
   * @param openFor the first open period
   * @param maxOpenFor the longest open period after repeated failed probes
   * @throws NullPointerException if a duration is null
   * @throws IllegalArgumentException if a value is out of range
   */
  public Cooldown {
    Objects.requireNonNull(openFor, "openFor");
    Objects.requireNonNull(maxOpenFor, "maxOpenFor");
    if (failureThreshold < 1 || openFor.isNegative() || openFor.isZero()
        || maxOpenFor.compareTo(openFor) < 0) {
      throw new IllegalArgumentException("bad cooldown: " + failureThreshold + ", " + openFor
          + ", " + maxOpenFor);
    }
  }

  /**
   * Returns the defaults: 3 consecutive failures, 30 s open, at most 5 min.
   *
   * @return the defaults
   */
  public static Cooldown ofDefaults() {
    return new Cooldown(3, Duration.ofSeconds(30), Duration.ofMinutes(5));
  }
}
