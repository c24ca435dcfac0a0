package io.pointsman.spi;

import java.util.List;

/**
 * A rebuild of a {@link CounterStore}'s budget counters from the system of record, under the
 * store's rebuild lock (one rebuild at a time across every instance sharing the store). While
 * it is open the store refuses admissions (they would count against half-written counters);
 * {@link #commit()} makes the rebuilt counters current under a new generation. Not
 * thread-safe: one thread drives a rebuild.
 *
 * <pre>{@code
 * try (CounterRebuild rebuild = store.beginRebuild(60_000, false)) {
 *   rebuild.restore(counter, spent, held, now);
 *   rebuild.hold(reservationId, counters, now);
 *   rebuild.commit();
 * }
 * }</pre>
 */
public interface CounterRebuild extends AutoCloseable {
  /**
   * Overwrites a budget counter's spent and held amounts.
   *
   * @param counter the budget counter (key, limit, period end)
   * @param spentMicros the spent amount
   * @param heldMicros the held amount (the sum of the holds recorded with {@link #hold})
   * @param nowMillis the current time, epoch milliseconds
   * @throws IllegalArgumentException if the counter is not a budget or an amount is negative
   * @throws IllegalStateException if the rebuild lock was lost or the rebuild has ended
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis);

  /**
   * Records a hold the system of record still has open (an interrupted call not yet resolved),
   * without changing any counter ({@link #restore} counted it), so that its later end releases
   * it exactly once.
   *
   * @param reservationId the reservation's id
   * @param counters its budget counters with the amount held
   * @param nowMillis the current time, epoch milliseconds
   * @throws IllegalStateException if the rebuild lock was lost or the rebuild has ended
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void hold(String reservationId, List<Counter> counters, long nowMillis);

  /**
   * Returns the live holds every instance registered with the store reported for this rebuild
   * ({@link CounterStore#heartbeat}), once each has reported or its registration expired and
   * at least {@code heartbeatTtlMillis} passed since the rebuild began (so every instance
   * alive had a chance to register again on a server that lost its data); null while the
   * rebuild must still wait. Reports arriving after a non-null answer are not taken. A store
   * in the process has no other instances and returns an empty list.
   *
   * @param heartbeatTtlMillis how long an instance's registration lasts
   * @return the reported holds, or null to wait and ask again
   * @throws IllegalStateException if the rebuild lock was lost or the rebuild has ended
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default List<CounterHold> liveHolds(long heartbeatTtlMillis) {
    return List.of();
  }

  /**
   * Makes the rebuilt counters current and releases the lock.
   *
   * @throws IllegalStateException if the rebuild lock was lost or the rebuild has ended
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void commit();

  /** Releases the lock if the rebuild was not committed; the store stays stale. */
  @Override
  void close();
}
