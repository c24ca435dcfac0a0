package io.pointsman.spi;

import java.util.List;

/**
 * Where a limiter keeps its counters: in the process ({@code InProcessCounterStore}) or shared
 * by several gateway instances ({@code RedisCounterStore}). The limiter matches rules and sizes
 * the call; the store checks and takes every counter of one reservation atomically, or none.
 *
 * <p>Implementations must be thread-safe, must not serialise unrelated counters behind one
 * lock, and must keep these invariants for every budget counter: {@code held} is the sum of
 * the holds (extensions included) of reservations acquired and not yet ended; a reservation or
 * an extension is granted only if {@code spent + held + amount <= limit} for every budget
 * counter in it; a settle moves a hold to {@code spent} at the charged amount; a release drops
 * it.
 *
 * <p><b>Operation ids.</b> Every operation is identified: an acquire by its reservation id, an
 * extension by its operation id, an end (settle or release) by its reservation id (a
 * reservation ends once). A store that can lose a reply after applying an operation (any
 * remote store) must record the id atomically with the change, so that a retry with the same
 * id returns the first result and changes nothing; the limiter retries with the same id
 * whenever an outcome is unknown. A store in the process never loses a reply and may rely on
 * the limiter ending each reservation once.
 *
 * <p><b>Generations.</b> A shared store marks its counters with a generation. When the marker
 * is missing (the server lost its data) every operation throws
 * {@link CounterStoreStaleException} and changes nothing until a {@link #beginRebuild rebuild}
 * from the system of record commits a new generation. An end of a hold taken under an earlier
 * generation charges its amount to {@code spent} without releasing a hold (the rebuilt counters
 * never contained it).
 *
 * <p>Wall times are passed in by the caller (from its injected clock); durations of rates are
 * measured on the caller's monotonic clock. A shared store measures its leases (concurrency
 * slots, hold age) on its own server clock, the one clock every instance sees.
 */
public interface CounterStore {
  /**
   * Checks every counter and takes all of them, or none. Rates measure their window on
   * {@code nowMillis}.
   *
   * @param reservationId the reservation's id, also the operation's id
   * @param counters the counters, at most one per key
   * @param nowMillis the current time, epoch milliseconds
   * @return the grant: taken, or refused with the first counter that refused
   * @throws CounterStoreUnavailableException if the store cannot be reached; see
   *     {@link CounterStoreUnavailableException#outcomeUnknown()}
   */
  default CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis) {
    return acquire(reservationId, counters, nowMillis, Math.multiplyExact(nowMillis, 1000L));
  }

  /**
   * Checks every counter and takes all of them, or none; a repeat with the same reservation id
   * returns the first grant and takes nothing more.
   *
   * @param reservationId the reservation's id, also the operation's id
   * @param counters the counters, at most one per key
   * @param nowMillis the current time, epoch milliseconds (periods, expiry, reported resets)
   * @param monotonicMicros a monotonic reading in microseconds, only meaningful as a
   *     difference, on which a store in the process measures rate windows (a step of the wall
   *     clock must neither reset nor stretch a window); a shared store may ignore it
   * @return the grant
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis,
      long monotonicMicros);

  /**
   * Holds {@code additionalMicros} more in every budget counter of a granted reservation, all
   * or none; a repeat with the same operation id returns the first result.
   *
   * @param reservationId the reservation's id
   * @param operationId the extension's id, unique within the reservation
   * @param counters the reservation's counters (only budgets are extended)
   * @param additionalMicros the extra amount, at least zero and at most {@link Counter#MAX_VALUE}
   * @param nowMillis the current time, epoch milliseconds
   * @return true when every budget now holds the extra amount, false when one could not (or the
   *     reservation is no longer held); nothing changed then
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  boolean extend(String reservationId, String operationId, List<Counter> counters,
      long additionalMicros, long nowMillis);

  /**
   * Ends a reservation, exactly once: with a charge every budget counter moves its hold to
   * spent at {@code chargeMicros}; with a negative charge (a release) holds are dropped;
   * either way concurrency slots are freed, and rates are not refunded. A store that records
   * holds ends the amounts it recorded (extensions included); one that does not ends the
   * amounts of {@code counters}, which the limiter passes with every confirmed extension added.
   * An end of a reservation the store never held (its acquire's outcome was unknown, or it was
   * admitted without limits) or held under an earlier generation charges without releasing.
   *
   * @param reservationId the reservation's id, also the end's operation id
   * @param counters the counters as acquired
   * @param chargeMicros the actual cost, which may exceed the hold, or a negative number to
   *     release
   * @param nowMillis the current time, epoch milliseconds
   * @return true when this call ended it, false when it had been ended before (nothing changed)
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  boolean end(String reservationId, List<Counter> counters, long chargeMicros, long nowMillis);

  /**
   * Settles a reservation: {@link #end} with a charge.
   *
   * @param reservationId the reservation's id
   * @param counters the counters as acquired
   * @param chargeMicros the actual cost, at least zero
   * @param nowMillis the current time, epoch milliseconds
   * @throws IllegalArgumentException if the charge is negative
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default void settle(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    if (chargeMicros < 0) {
      throw new IllegalArgumentException("charge must not be negative: " + chargeMicros);
    }
    end(reservationId, counters, chargeMicros, nowMillis);
  }

  /**
   * Releases a reservation: {@link #end} without a charge.
   *
   * @param reservationId the reservation's id
   * @param counters the counters as acquired
   * @param nowMillis the current time, epoch milliseconds
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default void release(String reservationId, List<Counter> counters, long nowMillis) {
    end(reservationId, counters, -1, nowMillis);
  }

  /**
   * Reads one counter.
   *
   * @param counter the counter (its key and type are used)
   * @return its state, {@link CounterReading#EMPTY} when it does not exist
   * @throws CounterStoreUnavailableException if the store cannot be reached or is stale
   */
  CounterReading read(Counter counter);

  /**
   * Starts a rebuild of the budget counters from the system of record under the store's
   * rebuild lock; see {@link CounterRebuild}. Admissions are refused until it commits.
   *
   * @param lockMillis how long the lock lasts if this process dies while rebuilding
   * @param onlyIfStale true to start only when the counters are stale (a limiter repairing a
   *     store that lost its data: a second instance that saw the same loss finds it rebuilt),
   *     false to rebuild regardless (at start-up, or an operator's rebuild)
   * @return the rebuild, or {@code null} when another rebuild holds the lock or, with
   *     {@code onlyIfStale}, the counters are not stale
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  CounterRebuild beginRebuild(long lockMillis, boolean onlyIfStale);

  /**
   * Returns whether the store is shared by several processes (and so can hold holds no live
   * call of this process explains, which the orphan sweep ends).
   *
   * @return true for a shared store; the default is false
   */
  default boolean shared() {
    return false;
  }

  /**
   * Lists holds not yet ended that were taken more than {@code ageMillis} ago by the store's
   * clock, oldest first. A store in the process has none to list.
   *
   * @param ageMillis the minimum age
   * @param max the most to return
   * @return the holds, possibly empty
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default List<CounterHold> holdsOlderThan(long ageMillis, int max) {
    return List.of();
  }

  /**
   * Ends a listed hold without a charge if it is still open and still older than
   * {@code ageMillis}; a later end by its owner then only charges.
   *
   * @param hold the hold, as listed
   * @param ageMillis the minimum age
   * @return true when this call released it
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default boolean sweep(CounterHold hold, long ageMillis) {
    return false;
  }

  /**
   * Returns the generation this store last saw in a reply, a cheap local read. A limiter that
   * sees it change (another instance rebuilt the counters) counts its live holds again with
   * {@link #reassert}. A store that never loses its data returns a constant.
   *
   * @return the generation, or {@code null} before the first reply
   */
  default String observedGeneration() {
    return "";
  }

  /**
   * Counts a live reservation's holds again after a rebuild that could not see them (it was
   * taken under an earlier generation, or its record was lost): adds its budget amounts to
   * {@code held} without a limit check (it was admitted already) and records it under the
   * current generation. Does nothing when the store already counts it under the current
   * generation, or when it ended.
   *
   * @param reservationId the reservation's id
   * @param counters its counters, with the amounts held (confirmed extensions included)
   * @param nowMillis the current time, epoch milliseconds
   * @return true when it was counted again by this call
   * @throws CounterStoreUnavailableException if the store cannot be reached or is stale
   */
  default boolean reassert(String reservationId, List<Counter> counters, long nowMillis) {
    return false;
  }

  /**
   * Registers this instance as alive for {@code ttlMillis} (a shared store keeps one entry per
   * instance, by its owner name, measured on the server's clock) and, with
   * {@code acknowledged} naming the rebuild in progress, reports the holds of this instance's
   * live calls to it, so that the rebuild counts them before it commits. A rebuild commits
   * only once every registered instance has reported or its registration expired. A store in
   * the process has nothing to register and returns null.
   *
   * @param ttlMillis how long the registration lasts without another heartbeat
   * @param acknowledged the rebuild this report answers, or null to only register
   * @param liveHolds the live holds (id and budget counters with their amounts) reported
   *     with {@code acknowledged}
   * @return the rebuild waiting for this instance's report, or null when none waits
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  default String heartbeat(long ttlMillis, String acknowledged, List<CounterHold> liveHolds) {
    return null;
  }
}
