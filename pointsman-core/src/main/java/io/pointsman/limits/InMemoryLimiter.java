package io.pointsman.limits;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The default {@link Limiter}: budgets (in micro-units, over the limiter's lifetime) and
 * concurrency limits per scope, held in memory. A call is reserved in every matching rule or
 * in none: the matching rules are locked in one global order (registration order), checked,
 * and updated together, so there is no global lock and no deadlock. A reservation holds the
 * call's worst case; settlement charges the actual cost and frees the rest.
 *
 * <p>Thread-safe. Periods, rate limits and shared Redis counters belong to the limits module.
 *
 * <pre>{@code
 * InMemoryLimiter limiter = InMemoryLimiter.builder()
 *     .budget(Scope.team("t1"), 5_000_000)   // 5 currency units
 *     .concurrency(Scope.key("key-1"), 8)
 *     .build();
 * }</pre>
 */
public final class InMemoryLimiter implements Limiter {

  private static final class Rule {
    final int order;
    final Scope scope;
    final boolean budget;
    final long limit;
    final ReentrantLock lock = new ReentrantLock();
    long spent;
    long held;
    long inflight;

    Rule(int order, Scope scope, boolean budget, long limit) {
      this.order = order;
      this.scope = scope;
      this.budget = budget;
      this.limit = limit;
    }

    String name() {
      return (budget ? "budget:" : "concurrency:") + scope;
    }
  }

  private final List<Rule> rules;

  private InMemoryLimiter(List<Rule> rules) {
    this.rules = List.copyOf(rules);
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
    List<Rule> matched = new ArrayList<>(4);
    for (Rule rule : rules) {
      if (rule.scope.matches(admission)) {
        matched.add(rule);
      }
    }
    if (matched.isEmpty()) {
      return Reservation.none(admission.eventId());
    }
    long hold = admission.worstCaseMicros();
    boolean anyBudget = false;
    // Rules are already in global order; locking in that order cannot deadlock.
    int locked = 0;
    try {
      for (Rule rule : matched) {
        rule.lock.lock();
        locked++;
      }
      for (Rule rule : matched) {
        if (rule.budget) {
          anyBudget = true;
          long available = rule.limit - rule.spent - rule.held;
          if (hold > available) {
            throw PointsmanException.denied(Status.PAYMENT_REQUIRED, Stages.RATELIMIT_RESERVE,
                rule.name(), "budget " + rule.scope + " exhausted: " + Math.max(available, 0)
                    + " of " + rule.limit + " micro-units available, this call may cost up to "
                    + hold);
          }
        } else if (rule.inflight >= rule.limit) {
          throw PointsmanException.denied(Status.TOO_MANY_REQUESTS, Stages.RATELIMIT_RESERVE,
              rule.name(), "concurrency limit " + rule.scope + " reached: " + rule.limit
                  + " calls in flight");
        }
      }
      for (Rule rule : matched) {
        if (rule.budget) {
          rule.held += hold;
        } else {
          rule.inflight++;
        }
      }
    } finally {
      for (int i = locked - 1; i >= 0; i--) {
        matched.get(i).lock.unlock();
      }
    }
    return new Held(admission.eventId(), matched, anyBudget ? hold : 0);
  }

  /**
   * Returns a budget's counters.
   *
   * @param scope the budget's scope
   * @return the state, or {@code null} when no budget has that scope
   */
  public BudgetState budget(Scope scope) {
    for (Rule rule : rules) {
      if (rule.budget && rule.scope.equals(scope)) {
        rule.lock.lock();
        try {
          return new BudgetState(scope, rule.limit, rule.spent, rule.held);
        } finally {
          rule.lock.unlock();
        }
      }
    }
    return null;
  }

  /**
   * Returns the calls in flight under a concurrency limit.
   *
   * @param scope the limit's scope
   * @return the count, or -1 when no concurrency limit has that scope
   */
  public long inflight(Scope scope) {
    for (Rule rule : rules) {
      if (!rule.budget && rule.scope.equals(scope)) {
        rule.lock.lock();
        try {
          return rule.inflight;
        } finally {
          rule.lock.unlock();
        }
      }
    }
    return -1;
  }

  private static final class Held implements Reservation {
    private final String id;
    private final List<Rule> rules;
    private final long hold;
    private final AtomicBoolean ended = new AtomicBoolean();

    Held(String id, List<Rule> rules, long hold) {
      this.id = id;
      this.rules = rules;
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
      end(actualMicros);
    }

    @Override
    public void release() {
      end(0);
    }

    private void end(long charge) {
      if (!ended.compareAndSet(false, true)) {
        throw new IllegalStateException("reservation " + id + " was already settled or released");
      }
      for (Rule rule : rules) {
        rule.lock.lock();
        try {
          if (rule.budget) {
            rule.held -= hold;
            rule.spent = Math.addExact(rule.spent, charge);
          } else {
            rule.inflight--;
          }
        } finally {
          rule.lock.unlock();
        }
      }
    }
  }

  /** A builder of {@link InMemoryLimiter}; not thread-safe. */
  public static final class Builder {
    private final List<Rule> rules = new ArrayList<>();

    private Builder() {}

    /**
     * Adds a budget.
     *
     * @param scope what it applies to
     * @param limitMicros the limit in micro-units
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is negative
     * @throws IllegalStateException if the scope already has a budget
     */
    public Builder budget(Scope scope, long limitMicros) {
      return add(scope, true, limitMicros);
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
      if (maxInFlight < 1) {
        throw new IllegalArgumentException("maxInFlight must be at least 1: " + maxInFlight);
      }
      return add(scope, false, maxInFlight);
    }

    private Builder add(Scope scope, boolean budget, long limit) {
      Objects.requireNonNull(scope, "scope");
      if (limit < 0) {
        throw new IllegalArgumentException("limit must not be negative: " + limit);
      }
      for (Rule r : rules) {
        if (r.budget == budget && r.scope.equals(scope)) {
          throw new IllegalStateException(r.name() + " was already set to " + r.limit);
        }
      }
      rules.add(new Rule(rules.size(), scope, budget, limit));
      return this;
    }

    /**
     * Builds the limiter.
     *
     * @return the limiter
     */
    public InMemoryLimiter build() {
      List<Rule> fresh = new ArrayList<>(rules.size());
      for (Rule r : rules) {
        fresh.add(new Rule(r.order, r.scope, r.budget, r.limit));
      }
      return new InMemoryLimiter(fresh);
    }
  }
}
