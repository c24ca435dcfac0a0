package io.pointsman.spi;

import java.util.List;

/**
 * Where a limiter keeps its counters: in the process ({@code InProcessCounterStore}) or shared
 * by several gateway instances ({@code RedisCounterStore}). The limiter matches rules and sizes
 * the call; the store checks and takes every counter of one reservation atomically, or none.
 *
 * <p>Implementations must be thread-safe, must not serialise unrelated counters behind one
 * lock, and must keep these invariants for every budget counter: {@code held} is the sum of
 * the holds of reservations acquired and not yet ended; a reservation is granted only if
 * {@code spent + held + amount <= limit} for every budget counter in it; {@code settle} moves a
 * hold to {@code spent} at the charged amount; {@code release} drops it. The same reservation
 * id is ended at most once by the limiter.
 *
 * <p>Times are passed in by the caller (from its injected clock), so a store never reads a
 * clock of its own and tests stay deterministic.
 */
public interface CounterStore {
  /**
   * Checks every counter and takes all of them, or none.
   *
   * @param reservationId the reservation's id (identifies concurrency slots)
   * @param counters the counters, at most one per key
   * @param nowMillis the current time, epoch milliseconds
   * @return the grant: taken, or refused with the first counter that refused
   * @throws CounterStoreUnavailableException if the store cannot be reached; nothing is taken
   */
  CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis);

  /**
   * Ends a granted reservation with a charge: every budget counter moves its hold to spent at
   * {@code chargeMicros}, every concurrency slot is freed; rates are not refunded.
   *
   * @param reservationId the reservation's id
   * @param counters the counters exactly as acquired
   * @param chargeMicros the actual cost, which may exceed the hold
   * @param nowMillis the current time, epoch milliseconds
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void settle(String reservationId, List<Counter> counters, long chargeMicros, long nowMillis);

  /**
   * Ends a granted reservation without a charge: holds are dropped and concurrency slots freed.
   * Rates are not refunded: they count attempts at their bound.
   *
   * @param reservationId the reservation's id
   * @param counters the counters exactly as acquired
   * @param nowMillis the current time, epoch milliseconds
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void release(String reservationId, List<Counter> counters, long nowMillis);

  /**
   * Ends a reservation that several processes may hold a handle to (a crashed instance's hold,
   * adopted by every instance that started since): settles it at {@code chargeMicros}, or
   * releases it when {@code chargeMicros} is negative, unless it was already ended this way;
   * then it does nothing. A store shared by several instances must make this atomic; the
   * default, for a store of one process whose limiter already ends each id once, just ends it.
   *
   * @param reservationId the reservation's id
   * @param counters the counters exactly as acquired
   * @param chargeMicros the charge, or a negative number to release
   * @param nowMillis the current time, epoch milliseconds
   * @return true when this call ended it, false when it had been ended before
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default boolean endOnce(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    if (chargeMicros < 0) {
      release(reservationId, counters, nowMillis);
    } else {
      settle(reservationId, counters, chargeMicros, nowMillis);
    }
    return true;
  }

  /**
   * Reads one counter.
   *
   * @param counter the counter (its key and type are used)
   * @return its state, {@link CounterReading#EMPTY} when it does not exist
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  CounterReading read(Counter counter);

  /**
   * Overwrites a budget counter's spent and held amounts: used at start-up to rebuild counters
   * from the system of record.
   *
   * @param counter the budget counter (key, limit, period end)
   * @param spentMicros the spent amount
   * @param heldMicros the held amount
   * @param nowMillis the current time, epoch milliseconds
   * @throws IllegalArgumentException if the counter is not a budget or an amount is negative
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis);
}
