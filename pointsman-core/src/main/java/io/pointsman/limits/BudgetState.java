package io.pointsman.limits;

/**
 * A budget's counters at one moment. Immutable.
 *
 * @param scope the budget's scope
 * @param limitMicros the limit
 * @param spentMicros settled charges
 * @param heldMicros reservations not yet settled or released
 */
public record BudgetState(Scope scope, long limitMicros, long spentMicros, long heldMicros) {
  /**
   * Returns what is still available.
   *
   * @return limit minus spent minus held (negative when overspent by settled actuals)
   */
  public long availableMicros() {
    return limitMicros - spentMicros - heldMicros;
  }
}
