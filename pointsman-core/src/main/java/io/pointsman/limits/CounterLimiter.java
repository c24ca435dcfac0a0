package io.pointsman.limits;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreUnavailableException;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link Limiter} over a {@link CounterStore}: it matches a call's rules (budgets over
 * periods, concurrency, requests and tokens per minute, per key, team, org, tag, model or
 * globally), sizes the counters and has the store take all of them at once, or none. With an
 * {@link InProcessCounterStore} the counters live in this process; with a shared store (Redis)
 * several gateway instances enforce one set of limits.
 *
 * <p>A budget holds the call's worst case in the period that contains the call's start;
 * settlement charges the actual cost to that period and frees the rest. Requests per minute
 * count each admitted call; tokens per minute count its input bound plus output cap.
 *
 * <p>When the store cannot be reached the limiter fails closed by default (a
 * {@link LimitsUnavailableException}, 503); with {@link Builder#failOpen(boolean)} it admits
 * the call without limits. Both are counted ({@link #storeUnavailable()},
 * {@link #failedOpen()}).
 *
 * <p>Thread-safe; holds no lock of its own.
 *
 * <pre>{@code
 * CounterLimiter limiter = CounterLimiter.builder(new InProcessCounterStore())
 *     .budget(Scope.team("t1"), Period.monthly(ZoneId.of("Europe/Berlin")), 50_000_000)
 *     .requestsPerMinute(Scope.key("key-1"), 600)
 *     .concurrency(Scope.org("acme"), 32)
 *     .clock(clock)
 *     .build();
 * }</pre>
 */
public final class CounterLimiter implements Limiter {
  private static final class Window {
    final long startMillis;
    final long endMillis;
    final String key;

    Window(long startMillis, long endMillis, String key) {
      this.startMillis = startMillis;
      this.endMillis = endMillis;
      this.key = key;
    }
  }

  private static final class Rule {
    final LimitRule rule;
    final String name;
    final String denial;
    volatile Window window;

    Rule(LimitRule rule) {
      this.rule = rule;
      this.name = rule.name();
      this.denial = rule.scope().toString();
    }

    Window window(Instant at) {
      long t = at.toEpochMilli();
      Window w = window;
      if (w != null && t >= w.startMillis && (w.endMillis == 0 || t < w.endMillis)) {
        return w;
      }
      Period p = rule.period();
      Instant start = p.start(at);
      Instant end = p.end(at);
      w = new Window(start.toEpochMilli(), end == null ? 0 : end.toEpochMilli(),
          end == null ? name : name + ":" + start.getEpochSecond());
      window = w;
      return w;
    }

    Counter counter(Instant at, long amount, long leaseMillis) {
      return switch (rule.kind()) {
        case BUDGET -> {
          Window w = window(at);
          yield Counter.budget(w.key, rule.limit(), amount, w.endMillis);
        }
        case CONCURRENCY -> Counter.concurrency(name, rule.limit(), leaseMillis);
        case REQUESTS_PER_MINUTE, TOKENS_PER_MINUTE -> Counter.rate(name, rule.limit(), amount,
            60_000L);
      };
    }
  }

  private final List<Rule> rules;
  private final CounterStore store;
  private final Clock clock;
  private final boolean failOpen;
  private final long leaseMillis;
  private final LongAdder unavailable = new LongAdder();
  private final LongAdder failedOpen = new LongAdder();

  private CounterLimiter(Builder b) {
    List<Rule> list = new ArrayList<>(b.rules.size());
    for (LimitRule r : b.rules) {
      list.add(new Rule(r));
    }
    this.rules = List.copyOf(list);
    this.store = b.store;
    this.clock = b.clock;
    this.failOpen = b.failOpen;
    this.leaseMillis = b.lease.toMillis();
  }

  /**
   * Returns a builder over a store.
   *
   * @param store where the counters live
   * @return an empty builder
   * @throws NullPointerException if store is null
   */
  public static Builder builder(CounterStore store) {
    return new Builder(Objects.requireNonNull(store, "store"));
  }

  @Override
  public Reservation reserve(Admission admission) {
    List<Rule> matched = null;
    List<Counter> counters = null;
    long hold = admission.worstCaseMicros();
    boolean anyBudget = false;
    for (Rule rule : rules) {
      if (!rule.rule.scope().matches(admission)) {
        continue;
      }
      if (matched == null) {
        matched = new ArrayList<>(4);
        counters = new ArrayList<>(4);
      }
      long amount;
      switch (rule.rule.kind()) {
        case BUDGET -> {
          amount = hold;
          anyBudget = true;
        }
        case TOKENS_PER_MINUTE -> amount = tokens(admission);
        default -> amount = 1;
      }
      if (amount > Counter.MAX_VALUE) {
        throw PointsmanException.badRequest(Stages.RATELIMIT_RESERVE, "the call's "
            + rule.rule.kind().unit() + " (" + amount + ") exceed what a limit can count");
      }
      matched.add(rule);
      counters.add(rule.counter(admission.at(), amount, leaseMillis));
    }
    if (matched == null) {
      return Reservation.none(admission.eventId());
    }
    CounterGrant grant;
    try {
      grant = store.acquire(admission.eventId(), counters, clock.now().toEpochMilli());
    } catch (CounterStoreUnavailableException e) {
      unavailable.increment();
      if (failOpen) {
        failedOpen.increment();
        return Reservation.none(admission.eventId());
      }
      throw new LimitsUnavailableException("limit counters are unavailable, the call is refused"
          + " (fail closed): " + e.getMessage(), e);
    }
    if (!grant.granted()) {
      throw denial(matched.get(grant.denied()), grant.remaining(grant.denied()), counters.get(
          grant.denied()).amount());
    }
    return new Held(this, admission.eventId(), matched, counters, grant, anyBudget ? hold : 0,
        false);
  }

  private static long tokens(Admission a) {
    try {
      return Math.addExact(a.inputTokens(), a.maxOutputTokens());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static PointsmanException denial(Rule rule, long available, long amount) {
    LimitRule r = rule.rule;
    return switch (r.kind()) {
      case BUDGET -> PointsmanException.denied(Status.PAYMENT_REQUIRED, Stages.RATELIMIT_RESERVE,
          rule.name, "budget " + rule.denial + " (" + r.period().label() + ") exhausted: "
              + available + " of " + r.limit() + " micro-units available, this call may cost"
              + " up to " + amount);
      case CONCURRENCY -> PointsmanException.denied(Status.TOO_MANY_REQUESTS,
          Stages.RATELIMIT_RESERVE, rule.name, "concurrency limit " + rule.denial
              + " reached: " + r.limit() + " calls in flight");
      case REQUESTS_PER_MINUTE, TOKENS_PER_MINUTE -> PointsmanException.denied(
          Status.TOO_MANY_REQUESTS, Stages.RATELIMIT_RESERVE, rule.name, "rate limit "
              + rule.name + " reached: " + available + " of " + r.limit() + " "
              + r.kind().unit() + " per minute available, this call needs " + amount);
    };
  }

  /**
   * Returns the rules, in registration order.
   *
   * @return the rules
   */
  public List<LimitRule> rules() {
    List<LimitRule> out = new ArrayList<>(rules.size());
    for (Rule r : rules) {
      out.add(r.rule);
    }
    return out;
  }

  /**
   * Returns the store.
   *
   * @return the counter store
   */
  public CounterStore store() {
    return store;
  }

  /**
   * Returns the counters of the first budget on a scope (in registration order), in the period
   * that contains the clock's now.
   *
   * @param scope the budget's scope
   * @return the state, or {@code null} when no budget has that scope
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public BudgetState budget(Scope scope) {
    Instant now = clock.now();
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.BUDGET && r.rule.scope().equals(scope)) {
        return state(r, now);
      }
    }
    return null;
  }

  /**
   * Returns every budget's counters in the period that contains the clock's now, by rule name.
   *
   * @return the states, in registration order
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public Map<String, BudgetState> budgets() {
    Instant now = clock.now();
    Map<String, BudgetState> out = new LinkedHashMap<>();
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.BUDGET) {
        out.put(r.name, state(r, now));
      }
    }
    return out;
  }

  private BudgetState state(Rule r, Instant now) {
    CounterReading c = store.read(r.counter(now, 0, leaseMillis));
    return new BudgetState(r.rule.scope(), r.rule.limit(), c.spentMicros(), c.heldMicros());
  }

  /**
   * Returns the calls in flight under the first concurrency limit on a scope.
   *
   * @param scope the limit's scope
   * @return the count, or -1 when no concurrency limit has that scope
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public long inflight(Scope scope) {
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.CONCURRENCY && r.rule.scope().equals(scope)) {
        return store.read(r.counter(Instant.EPOCH, 1, leaseMillis)).inFlight();
      }
    }
    return -1;
  }

  /**
   * Returns how often the store could not be reached (by reserve, settle or release).
   *
   * @return the count
   */
  public long storeUnavailable() {
    return unavailable.sum();
  }

  /**
   * Returns how many calls were admitted without limits because the store could not be
   * reached and the limiter fails open.
   *
   * @return the count
   */
  public long failedOpen() {
    return failedOpen.sum();
  }

  /**
   * Rebuilds every budget's counters for the current period from the system of record: spent
   * is what {@code spend} reports for the period, held is the sum of the holds of calls that
   * were dispatched and never settled (the journal's interrupted calls) whose dispatch falls in
   * the period. The counters are overwritten; call this at start, before any reservation, on
   * a store that lost its counters (always for the in-process store; for a shared store only
   * when it was emptied).
   *
   * <p>Each recovered hold comes back as a {@link Reservation}: settle it with the charge the
   * ledger finally assigns (attested or expired) or release it, exactly once.
   *
   * @param spend where settled spend is read
   * @param held the dispatch intents of calls that never settled
   * @return one reservation per recovered hold that matched a budget in its current period
   * @throws NullPointerException if an argument is null
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public List<Reservation> rebuild(SpendSource spend, Collection<DispatchIntent> held) {
    Objects.requireNonNull(spend, "spend");
    return holds(spend, held);
  }

  /**
   * Returns a handle to each hold that a shared store still keeps for calls interrupted in
   * another process (or an earlier run of this one), without changing any counter: the shared
   * counters kept the holds when that process died. Ending such a handle goes through
   * {@link CounterStore#endOnce}, so when several instances adopt the same hold and all try to
   * resolve it, exactly one settle or release applies. Only holds that match a budget in its
   * current period come back.
   *
   * @param held the dispatch intents of calls that never settled (the ledger's unresolved
   *     holds)
   * @return one reservation per adopted hold
   * @throws NullPointerException if held is null
   */
  public List<Reservation> adopt(Collection<DispatchIntent> held) {
    return holds(null, held);
  }

  /** Rebuilds (spend given: counters overwritten) or adopts (spend null: counters kept). */
  private List<Reservation> holds(SpendSource spend, Collection<DispatchIntent> held) {
    Objects.requireNonNull(held, "held");
    Instant now = clock.now();
    Map<DispatchIntent, List<Counter>> holds = new LinkedHashMap<>();
    Map<DispatchIntent, List<Rule>> holdRules = new LinkedHashMap<>();
    for (Rule r : rules) {
      if (r.rule.kind() != LimitRule.Kind.BUDGET) {
        continue;
      }
      Period p = r.rule.period();
      Instant from = p.start(now);
      Instant to = p.end(now);
      Window w = r.window(now);
      long heldSum = 0;
      for (DispatchIntent i : held) {
        if (i.heldMicros() > 0 && r.rule.scope().matches(i.keyId(), i.teamId(), i.orgId(),
            i.tags(), i.model()) && !i.callStartedAt().isBefore(from)
            && (to == null || i.callStartedAt().isBefore(to))) {
          heldSum = Math.addExact(heldSum, i.heldMicros());
          holds.computeIfAbsent(i, k -> new ArrayList<>())
              .add(Counter.budget(w.key, r.rule.limit(), i.heldMicros(), w.endMillis));
          holdRules.computeIfAbsent(i, k -> new ArrayList<>()).add(r);
        }
      }
      if (spend != null) {
        store.restore(Counter.budget(w.key, r.rule.limit(), 0, w.endMillis),
            spend.spent(r.rule.scope(), from, to), heldSum, now.toEpochMilli());
      }
    }
    List<Reservation> out = new ArrayList<>(holds.size());
    for (Map.Entry<DispatchIntent, List<Counter>> e : holds.entrySet()) {
      List<Counter> cs = e.getValue();
      long[] zeros = new long[cs.size()];
      out.add(new Held(this, e.getKey().reservationId(), holdRules.get(e.getKey()), cs,
          CounterGrant.of(-1, zeros, zeros.clone()), e.getKey().heldMicros(), spend == null));
    }
    return out;
  }

  private static final class Held implements Reservation {
    private final CounterLimiter limiter;
    private final String id;
    private final List<Rule> rules;
    private final List<Counter> counters;
    private final CounterGrant grant;
    private final long hold;
    private final AtomicBoolean ended = new AtomicBoolean();
    /** Adopted from a shared store: ended through {@link CounterStore#endOnce}. */
    private final boolean adopted;

    Held(CounterLimiter limiter, String id, List<Rule> rules, List<Counter> counters,
        CounterGrant grant, long hold, boolean adopted) {
      this.adopted = adopted;
      this.limiter = limiter;
      this.id = id;
      this.rules = rules;
      this.counters = counters;
      this.grant = grant;
      this.hold = hold;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public long heldMicros() {
      return hold;
    }

    @Override
    public void settle(long actualMicros) {
      if (actualMicros < 0) {
        throw new IllegalArgumentException("actual cost must not be negative: " + actualMicros);
      }
      end();
      try {
        long now = limiter.clock.now().toEpochMilli();
        if (adopted) {
          limiter.store.endOnce(id, counters, actualMicros, now);
        } else {
          limiter.store.settle(id, counters, actualMicros, now);
        }
      } catch (CounterStoreUnavailableException e) {
        limiter.unavailable.increment();
        throw new LimitsUnavailableException("reservation " + id + " could not be settled: "
            + e.getMessage(), e);
      }
    }

    @Override
    public void release() {
      end();
      try {
        long now = limiter.clock.now().toEpochMilli();
        if (adopted) {
          limiter.store.endOnce(id, counters, -1, now);
        } else {
          limiter.store.release(id, counters, now);
        }
      } catch (CounterStoreUnavailableException e) {
        limiter.unavailable.increment();
        throw new LimitsUnavailableException("reservation " + id + " could not be released: "
            + e.getMessage(), e);
      }
    }

    private void end() {
      if (!ended.compareAndSet(false, true)) {
        throw new IllegalStateException("reservation " + id + " was already settled or released");
      }
    }

    @Override
    public List<LimitRemaining> remaining() {
      List<LimitRemaining> out = new ArrayList<>(rules.size());
      for (int i = 0; i < rules.size(); i++) {
        LimitRule r = rules.get(i).rule;
        long reset = grant.resetsAtMillis(i);
        out.add(new LimitRemaining(rules.get(i).name, r.kind().unit(), r.limit(),
            grant.remaining(i), reset == 0 ? null : Instant.ofEpochMilli(reset)));
      }
      return out;
    }
  }

  /**
   * A builder of {@link CounterLimiter}. Setters fail fast; not thread-safe.
   */
  public static final class Builder {
    private final CounterStore store;
    final List<LimitRule> rules = new ArrayList<>();
    Clock clock;
    private boolean failOpen;
    private boolean failOpenSet;
    private Duration lease;

    private Builder(CounterStore store) {
      this.store = store;
    }

    /**
     * Adds a rule.
     *
     * @param rule the rule
     * @return this builder
     * @throws NullPointerException if rule is null
     * @throws IllegalStateException if a rule with the same name was already added
     */
    public Builder rule(LimitRule rule) {
      Objects.requireNonNull(rule, "rule");
      for (LimitRule r : rules) {
        if (r.name().equals(rule.name())) {
          throw new IllegalStateException(r.name() + " was already set to " + r.limit());
        }
      }
      rules.add(rule);
      return this;
    }

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
      return budget(scope, Period.total(), limitMicros);
    }

    /**
     * Adds a budget over a period.
     *
     * @param scope what it applies to
     * @param period the period, aligned to its zone's calendar
     * @param limitMicros the limit in micro-units per period
     * @return this builder
     * @throws NullPointerException if scope or period is null
     * @throws IllegalArgumentException if the limit is negative or too large
     * @throws IllegalStateException if the scope already has a budget over that period
     */
    public Builder budget(Scope scope, Period period, long limitMicros) {
      return rule(new LimitRule(LimitRule.Kind.BUDGET, scope, limitMicros, period));
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
      return rule(new LimitRule(LimitRule.Kind.CONCURRENCY, scope, maxInFlight, Period.total()));
    }

    /**
     * Adds a requests-per-minute limit (GCRA: smooth, with a burst of the limit).
     *
     * @param scope what it applies to
     * @param perMinute requests per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1 or above 60,000,000
     * @throws IllegalStateException if the scope already has one
     */
    public Builder requestsPerMinute(Scope scope, long perMinute) {
      return rule(new LimitRule(LimitRule.Kind.REQUESTS_PER_MINUTE, scope, perMinute,
          Period.total()));
    }

    /**
     * Adds a tokens-per-minute limit, counting each call's input bound plus output cap.
     *
     * @param scope what it applies to
     * @param perMinute tokens per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1 or above 60,000,000
     * @throws IllegalStateException if the scope already has one
     */
    public Builder tokensPerMinute(Scope scope, long perMinute) {
      return rule(new LimitRule(LimitRule.Kind.TOKENS_PER_MINUTE, scope, perMinute,
          Period.total()));
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
      Objects.requireNonNull(value, "clock");
      if (clock != null) {
        throw new IllegalStateException("clock was already set to " + clock);
      }
      clock = value;
      return this;
    }

    /**
     * Sets whether calls are admitted without limits when the store cannot be reached.
     * Default: false (refused with 503).
     *
     * @param value true to fail open
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder failOpen(boolean value) {
      if (failOpenSet) {
        throw new IllegalStateException("failOpen was already set to " + failOpen);
      }
      failOpenSet = true;
      failOpen = value;
      return this;
    }

    /**
     * Sets how long a concurrency slot may stay taken before a shared store reclaims it (its
     * holder presumably died). Default: 10 minutes; set it above the longest call.
     *
     * @param value the lease
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder concurrencyLease(Duration value) {
      Objects.requireNonNull(value, "concurrencyLease");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("concurrencyLease must be positive: " + value);
      }
      if (lease != null) {
        throw new IllegalStateException("concurrencyLease was already set to " + lease);
      }
      lease = value;
      return this;
    }

    /**
     * Builds the limiter.
     *
     * @return the limiter
     */
    public CounterLimiter build() {
      if (clock == null) {
        clock = Clock.system();
      }
      if (lease == null) {
        lease = Duration.ofMinutes(10);
      }
      return new CounterLimiter(this);
    }
  }
}
