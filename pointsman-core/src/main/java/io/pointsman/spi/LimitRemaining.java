package io.pointsman.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * What one matched limit has left after a call was admitted, so a host can set
 * {@code x-ratelimit-*} style headers. Immutable.
 *
 * @param rule the rule's name, for example {@code "budget:team:t1"}
 * @param unit what is counted: {@code "requests"}, {@code "tokens"}, {@code "micros"} or
 *     {@code "concurrent"}
 * @param limit the limit in that unit
 * @param remaining what is left in that unit (never negative)
 * @param resetsAt when the current period ends, or {@code null} when it never resets
 */
public record LimitRemaining(String rule, String unit, long limit, long remaining,
    Instant resetsAt) {

  /**
   * Validates the fields.
   *
   * @param rule the rule's name, for example {@code "budget:team:t1"}
   * @param unit what is counted: {@code "requests"}, {@code "tokens"}, {@code "micros"} or
   *     {@code "concurrent"}
   * @param limit the limit in that unit
   * @param remaining what is left in that unit (never negative)
   * @param resetsAt when the current period ends, or {@code null} when it never resets
   * @throws NullPointerException if rule or unit is null
   */
  public LimitRemaining {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(unit, "unit");
    remaining = Math.max(0, remaining);
  }
}
