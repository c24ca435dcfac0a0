package io.pointsman.limits;

import java.util.Objects;

/**
 * One limit on one scope. Immutable.
 *
 * <p>Its name, used in denials ({@code PointsmanException.rule()}) and in
 * {@code ChatResult.remaining()}, is {@code budget:<scope>} for a lifetime budget,
 * {@code budget-daily:<scope>}, {@code budget-weekly:<scope>} or {@code budget-monthly:<scope>}
 * for a periodic one, {@code concurrency:<scope>}, {@code rpm:<scope>} and {@code tpm:<scope>},
 * where {@code <scope>} is {@code <kind>:<id>} (for example {@code budget:team:t1}) or
 * {@code global}.
 *
 * @param kind what is limited
 * @param scope what it applies to
 * @param limit the limit: micro-units, calls in flight, requests or tokens per minute
 * @param period the budget's period ({@link Period#total()} for the other kinds)
 */
public record LimitRule(Kind kind, Scope scope, long limit, Period period) {
  /** What a rule limits. */
  public enum Kind {
    /** Micro-units spent plus held in a period. */
    BUDGET("micros"),
    /** Calls in flight at once. */
    CONCURRENCY("concurrent"),
    /** Requests per minute (GCRA, burst of the limit). */
    REQUESTS_PER_MINUTE("requests"),
    /** Tokens per minute, counted at the reservation's bound (GCRA, burst of the limit). */
    TOKENS_PER_MINUTE("tokens");

    private final String unit;

    Kind(String unit) {
      this.unit = unit;
    }

    /**
     * Returns the unit reported in {@code LimitRemaining.unit()}.
     *
     * @return the unit
     */
    public String unit() {
      return unit;
    }
  }

  /**
   * Validates the fields.
   *
   * @param kind what is limited
   * @param scope what it applies to
   * @param limit the limit: micro-units, calls in flight, requests or tokens per minute
   * @param period the budget's period ({@link Period#total()} for the other kinds)
   * @throws NullPointerException if a reference is null
   * @throws IllegalArgumentException if the limit is negative or above
   *     {@link io.pointsman.spi.Counter#MAX_VALUE}, a non-budget rule has a period, a
   *     concurrency or rate limit is below 1, or a rate exceeds one unit per microsecond
   */
  public LimitRule {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(period, "period");
    if (limit < 0 || limit > io.pointsman.spi.Counter.MAX_VALUE) {
      throw new IllegalArgumentException("limit must be between 0 and "
          + io.pointsman.spi.Counter.MAX_VALUE + ": " + limit);
    }
    if (kind != Kind.BUDGET && period.unit() != Period.Unit.TOTAL) {
      throw new IllegalArgumentException(kind + " rules have no period");
    }
    if (kind != Kind.BUDGET && limit < 1) {
      throw new IllegalArgumentException(kind + " limit must be at least 1: " + limit);
    }
    if ((kind == Kind.REQUESTS_PER_MINUTE || kind == Kind.TOKENS_PER_MINUTE)
        && limit > 60_000_000L) {
      // The GCRA counts in microseconds: above one unit per microsecond the interval is zero.
      throw new IllegalArgumentException(kind + " limit must not exceed 60,000,000: " + limit);
    }
  }

  /**
   * Returns the rule's name.
   *
   * @return for example {@code budget:team:t1} or {@code budget-daily:org:acme}
   */
  public String name() {
    String prefix = switch (kind) {
      case BUDGET -> period.unit() == Period.Unit.TOTAL ? "budget" : "budget-" + period.label();
      case CONCURRENCY -> "concurrency";
      case REQUESTS_PER_MINUTE -> "rpm";
      case TOKENS_PER_MINUTE -> "tpm";
    };
    return prefix + ":" + scope;
  }
}
