package io.pointsman.limits;

import io.pointsman.Clock;
import io.pointsman.spi.Admission;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The default {@link Limiter} for one gateway instance: a {@link CounterLimiter} over an
 * {@link InProcessCounterStore}. Budgets (over the lifetime or calendar periods), concurrency,
 * requests and tokens per minute, per key, team, org, tag, model or globally; a call is
 * reserved in every matching rule or in none, without a global lock. At start, rebuild the
 * budgets from the ledger and the journal with {@link #rebuild}.
 *
 * <p>Thread-safe.
 *
 * <pre>{@code
 * InMemoryLimiter limiter = InMemoryLimiter.builder()
 *     .budget(Scope.team("t1"), 5_000_000)   // 5 currency units
 *     .budget(Scope.org("acme"), Period.daily(ZoneId.of("America/New_York")), 50_000_000)
 *     .concurrency(Scope.key("key-1"), 8)
 *     .build();
 * }</pre>
 */
public final class InMemoryLimiter implements Limiter {
  private final CounterLimiter delegate;

  private InMemoryLimiter(CounterLimiter delegate) {
    this.delegate = delegate;
  }

  /**
   * Returns a builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Reservation reserve(Admission admission) {
    return delegate.reserve(admission);
  }

  /**
   * Returns the counters of the first budget on a scope, in the current period.
   *
   * @param scope the budget's scope
   * @return the state, or {@code null} when no budget has that scope
   */
  public BudgetState budget(Scope scope) {
    return delegate.budget(scope);
  }

  /**
   * Returns every budget's counters in the current period, by rule name.
   *
   * @return the states, in registration order
   */
  public Map<String, BudgetState> budgets() {
    return delegate.budgets();
  }

  /**
   * Returns the calls in flight under a concurrency limit.
   *
   * @param scope the limit's scope
   * @return the count, or -1 when no concurrency limit has that scope
   */
  public long inflight(Scope scope) {
    return delegate.inflight(scope);
  }

  /**
   * Rebuilds the budgets from the system of record; see {@link CounterLimiter#rebuild}.
   *
   * @param spend where settled spend is read
   * @param held the dispatch intents of calls that never settled
   * @return one reservation per recovered hold, to settle or release once the ledger resolves it
   * @throws NullPointerException if an argument is null
   */
  public List<Reservation> rebuild(SpendSource spend, Collection<DispatchIntent> held) {
    return delegate.rebuild(spend, held);
  }

  /**
   * Returns the underlying limiter.
   *
   * @return the counter limiter
   */
  public CounterLimiter limiter() {
    return delegate;
  }

  /** A builder of {@link InMemoryLimiter}; see {@link CounterLimiter.Builder}. Not thread-safe. */
  public static final class Builder {
    private final CounterLimiter.Builder b = CounterLimiter.builder(new InProcessCounterStore());

    private Builder() {}

    /**
     * Adds a lifetime budget.
     *
     * @param scope what it applies to
     * @param limitMicros the limit in micro-units
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is negative or too large
     * @throws IllegalStateException if the scope already has a lifetime budget
     */
    public Builder budget(Scope scope, long limitMicros) {
      b.budget(scope, limitMicros);
      return this;
    }

    /**
     * Adds a budget over a period.
     *
     * @param scope what it applies to
     * @param period the period
     * @param limitMicros the limit in micro-units per period
     * @return this builder
     * @throws NullPointerException if scope or period is null
     * @throws IllegalArgumentException if the limit is negative or too large
     * @throws IllegalStateException if the scope already has a budget over that period
     */
    public Builder budget(Scope scope, Period period, long limitMicros) {
      b.budget(scope, period, limitMicros);
      return this;
    }

    /**
     * Adds a concurrency limit.
     *
     * @param scope what it applies to
     * @param maxInFlight the most calls in flight at once
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1
     * @throws IllegalStateException if the scope already has a concurrency limit
     */
    public Builder concurrency(Scope scope, int maxInFlight) {
      b.concurrency(scope, maxInFlight);
      return this;
    }

    /**
     * Adds a requests-per-minute limit.
     *
     * @param scope what it applies to
     * @param perMinute requests per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if the scope already has one
     */
    public Builder requestsPerMinute(Scope scope, long perMinute) {
      b.requestsPerMinute(scope, perMinute);
      return this;
    }

    /**
     * Adds a tokens-per-minute limit.
     *
     * @param scope what it applies to
     * @param perMinute tokens per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if the scope already has one
     */
    public Builder tokensPerMinute(Scope scope, long perMinute) {
      b.tokensPerMinute(scope, perMinute);
      return this;
    }

    /**
     * Sets the clock. Default: {@link Clock#system()}.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder clock(Clock value) {
      b.clock(value);
      return this;
    }

    /**
     * Builds the limiter.
     *
     * @return the limiter
     */
    public InMemoryLimiter build() {
      // A fresh store per build: two limiters from one builder share no counters.
      CounterLimiter.Builder fresh = CounterLimiter.builder(new InProcessCounterStore());
      b.rules.forEach(fresh::rule);
      if (b.clock != null) {
        fresh.clock(b.clock);
      }
      return new InMemoryLimiter(fresh.build());
    }
  }
}
