package io.pointsman.examples.server;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.LimitRule;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.util.List;

/**
 * The facade's limiter: its {@link CounterLimiter}, closed for calls under a budget until the
 * counters were confirmed against the ledger (rebuilt from PostgreSQL's spend and unresolved
 * holds, or the shared store's holds adopted). Before that a budgeted call is refused with 503
 * at {@code ratelimit.reserve}, rule {@value #RULE}: the counters do not know what was spent
 * yet, and admitting on them could overspend (fail closed). Calls no budget governs pass
 * through. Thread-safe.
 */
final class BudgetGate implements Limiter {
  /** The rule a refusal names. */
  static final String RULE = "budget.unconfirmed";

  private final CounterLimiter limiter;
  private final List<LimitRule> budgets;
  private volatile boolean confirmed;

  BudgetGate(CounterLimiter limiter) {
    this.limiter = limiter;
    this.budgets = limiter.rules().stream().filter(r -> r.kind() == LimitRule.Kind.BUDGET)
        .toList();
    // Without budgets there is nothing to confirm.
    this.confirmed = budgets.isEmpty();
  }

  @Override
  public Reservation reserve(Admission admission) {
    if (!confirmed) {
      for (LimitRule r : budgets) {
        if (r.scope().matches(admission)) {
          throw PointsmanException.denied(Status.UNAVAILABLE, Stages.RATELIMIT_RESERVE, RULE,
              "budget " + r.scope() + " is not confirmed against the ledger yet (PostgreSQL"
                  + " unreachable, or recovered records still settling): calls under a budget"
                  + " are refused until it is");
        }
      }
    }
    return limiter.reserve(admission);
  }

  /** Opens the gate: the counters now hold what the ledger says. */
  void confirm() {
    confirmed = true;
  }

  /**
   * Returns whether budgets admit calls.
   *
   * @return true once confirmed
   */
  boolean confirmed() {
    return confirmed;
  }
}
