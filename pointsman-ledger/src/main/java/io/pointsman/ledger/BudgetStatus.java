package io.pointsman.ledger;

import io.pointsman.limits.BudgetState;
import io.pointsman.limits.Scope;
import java.time.Instant;
import java.util.Objects;

/**
 * A budget's spend in its current period, as rebuilt from the ledger. Immutable.
 *
 * @param scope the budget's scope
 * @param period the budget's period
 * @param limitMicros the limit per period
 * @param periodStart where the current period starts
 * @param periodEnd where it ends (exclusive), or {@code null} for {@link BudgetPeriod#TOTAL}
 * @param spentMicros charges in the scope during the period
 * @param heldMicros what unresolved holds of calls in the scope hold (whatever their period)
 */
public record BudgetStatus(
    Scope scope, BudgetPeriod period, long limitMicros, Instant periodStart, Instant periodEnd,
    long spentMicros, long heldMicros) {

  /**
   * Validates the fields.
   *
   * @param scope the budget's scope
   * @param period the budget's period
   * @param limitMicros the limit per period
   * @param periodStart where the current period starts
   * @param periodEnd where it ends (exclusive), or {@code null} for {@link BudgetPeriod#TOTAL}
   * @param spentMicros charges in the scope during the period
   * @param heldMicros what unresolved holds of calls in the scope hold (whatever their period)
   * @throws NullPointerException if a required field is null
   */
  public BudgetStatus {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(period, "period");
    Objects.requireNonNull(periodStart, "periodStart");
  }

  /**
   * Returns the counters in core's form, for seeding an in-process limiter at start.
   *
   * @return the state
   */
  public BudgetState state() {
    return new BudgetState(scope, limitMicros, spentMicros, heldMicros);
  }
}
