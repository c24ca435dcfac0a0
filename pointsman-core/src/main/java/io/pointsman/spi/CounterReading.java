package io.pointsman.spi;

/**
 * One counter's state as a {@link CounterStore} holds it. Immutable.
 *
 * @param spentMicros settled charges (budgets; else 0)
 * @param heldMicros holds not yet settled or released (budgets; else 0)
 * @param inFlight slots taken (concurrency; else 0)
 */
public record CounterReading(long spentMicros, long heldMicros, long inFlight) {
  /** A counter that does not exist. */
  public static final CounterReading EMPTY = new CounterReading(0, 0, 0);
}
