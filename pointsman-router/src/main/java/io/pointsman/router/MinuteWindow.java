package io.pointsman.router;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A per-minute counter packed in one {@code long}: the low 24 bits of the minute above a 40-bit
 * count. Reading, capping, adding and rolling over to a new minute all work on the one word, so
 * they are atomic together: a caller whose minute is older than the word's counts into the
 * word's (newer) minute instead of resetting it, and no increment made in a minute is lost when
 * the next minute begins.
 */
final class MinuteWindow {
  private static final int COUNT_BITS = 40;
  private static final long COUNT_MASK = (1L << COUNT_BITS) - 1;
  private static final int TAG_BITS = Long.SIZE - COUNT_BITS;
  private static final long TAG_MASK = (1L << TAG_BITS) - 1;
  /** How many minutes behind a caller may be and still count as the same window's reader. */
  private static final long STALE_READER_MINUTES = 2;
  /** A word no minute has written: the count of every minute is zero. */
  static final long EMPTY = -1L;

  private MinuteWindow() {}

  /**
   * Returns the count stored in a word, whatever its minute.
   *
   * @param word the packed word
   * @return the count, zero for {@link #EMPTY}
   */
  static long count(long word) {
    return word == EMPTY ? 0 : word & COUNT_MASK;
  }

  /**
   * Whether {@code amount} more fits under {@code cap} in the caller's minute, without taking
   * it.
   */
  static boolean fits(AtomicLong window, long minute, long amount, long cap) {
    long base = countFor(window.get(), minute);
    return amount <= cap && base <= cap - amount;
  }

  /**
   * Adds {@code amount} (which may be negative, to give back what this minute took) in the
   * caller's minute. With a positive cap the addition is refused, changing nothing, when it
   * would go over the cap; without a cap ({@code cap <= 0}) the count saturates.
   *
   * @return false when the cap refused it
   */
  static boolean add(AtomicLong window, long minute, long amount, long cap) {
    long tag = minute & TAG_MASK;
    while (true) {
      long word = window.get();
      long base;
      long useTag;
      if (word != EMPTY && isCurrentOrNewer(word >>> COUNT_BITS, tag)) {
        base = word & COUNT_MASK;
        useTag = word >>> COUNT_BITS;
      } else {
        if (amount < 0) {
          return true; // the minute that took it is over: nothing to give back
        }
        base = 0;
        useTag = tag;
      }
      long next;
      if (amount < 0) {
        next = Math.max(0, base + amount);
      } else if (cap > 0) {
        if (amount > cap || base > cap - amount) {
          return false;
        }
        next = base + amount;
      } else {
        next = amount >= COUNT_MASK - base ? COUNT_MASK : base + amount;
      }
      if (window.compareAndSet(word, (useTag << COUNT_BITS) | next)) {
        return true;
      }
    }
  }

  private static long countFor(long word, long minute) {
    if (word == EMPTY) {
      return 0;
    }
    return isCurrentOrNewer(word >>> COUNT_BITS, minute & TAG_MASK) ? word & COUNT_MASK : 0;
  }

  /**
   * Whether the word's minute tag is the caller's minute, or a minute at most
   * {@link #STALE_READER_MINUTES} ahead of it (the caller read the clock just before a roll).
   */
  private static boolean isCurrentOrNewer(long wordTag, long callerTag) {
    long ahead = (wordTag - callerTag) & TAG_MASK;
    return ahead <= STALE_READER_MINUTES;
  }
}
