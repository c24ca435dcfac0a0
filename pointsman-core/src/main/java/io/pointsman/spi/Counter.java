package io.pointsman.spi;

import java.util.Objects;

/**
 * One counter a {@link CounterStore} checks and takes for a reservation: a budget (held and
 * spent micro-units in one period), a concurrency limit (calls in flight) or a rate (a GCRA
 * over a window). Immutable.
 *
 * <p>{@code horizonMillis} depends on the type: for {@link Type#BUDGET} the epoch millisecond
 * at which the budget's period ends ({@code 0} when it never ends), which bounds how long a
 * store keeps the counter; for {@link Type#CONCURRENCY} the lease of a slot in milliseconds,
 * after which a store shared by several processes may reclaim a slot whose holder died; for
 * {@link Type#RATE} the window in milliseconds over which {@code limit} units are allowed.
 *
 * @param key the counter's key, unique per rule and period (the store adds its own prefix)
 * @param type what the counter counts
 * @param limit the limit: micro-units, calls in flight, or units per window
 * @param amount what this reservation takes: the hold in micro-units, {@code 1} call, or the
 *     units of the rate (requests or tokens)
 * @param horizonMillis see above
 */
public record Counter(String key, Type type, long limit, long amount, long horizonMillis) {
  /** The largest limit or amount a counter takes: every store can count it exactly. */
  public static final long MAX_VALUE = (1L << 53) - 1;

  /** What a counter counts. */
  public enum Type {
    /** Micro-units over a period: spent plus held plus the new hold must stay within limit. */
    BUDGET,
    /** Calls in flight: at most {@code limit} at once. */
    CONCURRENCY,
    /** Units per window, as a generic cell rate algorithm (smooth, with a burst of limit). */
    RATE
  }

  /**
   * Validates the fields.
   *
   * @param key the counter's key, unique per rule and period (the store adds its own prefix)
   * @param type what the counter counts
   * @param limit the limit: micro-units, calls in flight, or units per window
   * @param amount what this reservation takes: the hold in micro-units, {@code 1} call, or the
   *     units of the rate (requests or tokens)
   * @param horizonMillis see above
   * @throws NullPointerException if key or type is null
   * @throws IllegalArgumentException if a number is negative or above {@link #MAX_VALUE}, or
   *     a rate has no window
   */
  public Counter {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(type, "type");
    if (limit < 0 || amount < 0 || horizonMillis < 0) {
      throw new IllegalArgumentException("counter " + key + ": negative limit, amount or"
          + " horizon");
    }
    if (limit > MAX_VALUE || amount > MAX_VALUE) {
      throw new IllegalArgumentException("counter " + key + ": limit and amount must not exceed "
          + MAX_VALUE);
    }
    if (type == Type.RATE && horizonMillis == 0) {
      throw new IllegalArgumentException("rate counter " + key + " needs a window");
    }
  }

  /**
   * Returns a budget counter.
   *
   * @param key the key
   * @param limitMicros the budget
   * @param holdMicros what this reservation holds
   * @param periodEndMillis when the period ends (epoch milliseconds), or {@code 0} for never
   * @return the counter
   */
  public static Counter budget(String key, long limitMicros, long holdMicros,
      long periodEndMillis) {
    return new Counter(key, Type.BUDGET, limitMicros, holdMicros, periodEndMillis);
  }

  /**
   * Returns a concurrency counter that takes one slot.
   *
   * @param key the key
   * @param maxInFlight the most calls in flight
   * @param leaseMillis how long a slot may stay taken before a shared store reclaims it
   * @return the counter
   */
  public static Counter concurrency(String key, long maxInFlight, long leaseMillis) {
    return new Counter(key, Type.CONCURRENCY, maxInFlight, 1, leaseMillis);
  }

  /**
   * Returns a rate counter.
   *
   * @param key the key
   * @param limit the units allowed per window
   * @param units what this reservation takes
   * @param windowMillis the window
   * @return the counter
   */
  public static Counter rate(String key, long limit, long units, long windowMillis) {
    return new Counter(key, Type.RATE, limit, units, windowMillis);
  }
}
