package io.pointsman.spi;

import java.util.Objects;

/**
 * What {@link CounterStore#acquire} decided for a list of counters: every counter taken, or
 * none and the first counter that refused. Immutable (the arrays are owned by the grant and
 * never exposed).
 */
public final class CounterGrant {
  private final int denied;
  private final long[] remaining;
  private final long[] resetsAtMillis;

  private CounterGrant(int denied, long[] remaining, long[] resetsAtMillis) {
    this.denied = denied;
    this.remaining = remaining;
    this.resetsAtMillis = resetsAtMillis;
  }

  /**
   * Returns a grant. The store hands over the arrays and must not touch them afterwards.
   *
   * @param denied the index of the first counter that refused, or {@code -1} when every counter
   *     was taken
   * @param remaining per counter, what remains after this reservation (when granted) or what
   *     was available (when refused)
   * @param resetsAtMillis per counter, when it next resets or fully replenishes (epoch
   *     milliseconds), {@code 0} when it does not
   * @return the grant
   * @throws NullPointerException if an array is null
   * @throws IllegalArgumentException if the arrays differ in length or denied is out of range
   */
  public static CounterGrant of(int denied, long[] remaining, long[] resetsAtMillis) {
    Objects.requireNonNull(remaining, "remaining");
    Objects.requireNonNull(resetsAtMillis, "resetsAtMillis");
    if (remaining.length != resetsAtMillis.length || denied < -1 || denied >= remaining.length) {
      throw new IllegalArgumentException("inconsistent grant");
    }
    return new CounterGrant(denied, remaining, resetsAtMillis);
  }

  /**
   * Returns whether every counter was taken.
   *
   * @return true if granted
   */
  public boolean granted() {
    return denied < 0;
  }

  /**
   * Returns the index of the first counter that refused.
   *
   * @return the index, or {@code -1} when granted
   */
  public int denied() {
    return denied;
  }

  /**
   * Returns how many counters the grant describes.
   *
   * @return the count
   */
  public int size() {
    return remaining.length;
  }

  /**
   * Returns what remains of one counter (granted) or what was available (refused).
   *
   * @param index the counter's index in the request
   * @return the amount, never negative
   */
  public long remaining(int index) {
    return Math.max(0, remaining[index]);
  }

  /**
   * Returns when one counter next resets or fully replenishes.
   *
   * @param index the counter's index in the request
   * @return epoch milliseconds, or {@code 0} when it does not reset
   */
  public long resetsAtMillis(int index) {
    return resetsAtMillis[index];
  }
}
