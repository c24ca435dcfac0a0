package io.pointsman.provider;

import java.time.Duration;
import java.util.Objects;

/**
 * The time limits of one provider attempt. The call's own deadline, when it has one, ends the
 * attempt earlier still. Immutable.
 *
 * @param connect how long opening a connection may take (a failure here means nothing was sent)
 * @param firstByte how long the provider may take, after the send, to start its response
 * @param betweenChunks the longest silence allowed inside a response body (keep-alive comments
 *     count as data)
 * @param total the longest an attempt may take from send to the end of its body
 */
public record HttpTimeouts(
    Duration connect, Duration firstByte, Duration betweenChunks, Duration total) {

  /**
   * Validates the fields.
   *
   * @param connect how long opening a connection may take (a failure here means nothing was sent)
   * @param firstByte how long the provider may take, after the send, to start its response
   * @param betweenChunks the longest silence allowed inside a response body (keep-alive comments
   *     count as data)
   * @param total the longest an attempt may take from send to the end of its body
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if a duration is zero or negative
   */
  public HttpTimeouts {
    for (Duration d : new Duration[] {connect, firstByte, betweenChunks, total}) {
      Objects.requireNonNull(d, "timeouts must not be null");
      if (d.isZero() || d.isNegative()) {
        throw new IllegalArgumentException("timeouts must be positive: " + d);
      }
    }
  }

  /**
   * Returns the defaults: connect 10 s, first byte 120 s, between chunks 60 s, total 10 min
   * (long generations of large models take minutes).
   *
   * @return the defaults
   */
  public static HttpTimeouts ofDefaults() {
    return new HttpTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(120),
        Duration.ofSeconds(60), Duration.ofMinutes(10));
  }
}
