package io.pointsman.spi;

/**
 * Capacity held by {@link Limiter#reserve} in every matching scope for one call. The gateway
 * ends every reservation exactly once, by {@link #settle} or by {@link #release}; it never
 * calls either twice. Implementations must be thread-safe (the end may run on another thread
 * than the reserve).
 */
public interface Reservation {
  /**
   * Returns the reservation's id, journaled with the dispatch intent.
   *
   * @return a stable id
   */
  String id();

  /**
   * Returns the amount held against budgets, in micro-units.
   *
   * @return the held amount (the admission's worst case when budgets matched, else zero)
   */
  long heldMicros();

  /**
   * Charges the actual cost in every scope held and frees the rest of the hold and any
   * concurrency slot. Called at most once, and never together with {@link #release}.
   *
   * @param actualMicros the actual cost, which may exceed the hold
   */
  void settle(long actualMicros);

  /**
   * Settles with the call's token usage as well, for limiters that count tokens and refund
   * what the reservation over-held. The gateway calls this form; the default ignores the usage
   * and calls {@link #settle(long)}. Called at most once, never with {@link #release}.
   *
   * @param actualMicros the actual cost
   * @param usage the usage charged, or {@code null} when no provider work was done
   */
  default void settle(long actualMicros, io.pointsman.model.Usage usage) {
    settle(actualMicros);
  }

  /**
   * Frees the hold and any concurrency slot without charging. Called when the call ended before
   * any provider was dispatched. Called at most once, never together with {@link #settle}.
   */
  void release();

  /**
   * Holds {@code additionalMicros} more under this reservation, atomically in every scope it
   * holds, before the gateway retries after an attempt whose outcome is unknown (that attempt
   * may have been billed, so the retry needs a worst case of its own). On success
   * {@link #heldMicros()} includes the extension and the one later {@link #settle} or
   * {@link #release} ends the whole amount. When a limit cannot cover it nothing changes and
   * the gateway does not retry. The default refuses, so a limiter that cannot extend never lets
   * a retry run unheld.
   *
   * @param additionalMicros the extra amount to hold, at least zero
   * @return true when the extra amount is held
   * @throws IllegalArgumentException if additionalMicros is negative
   */
  default boolean extend(long additionalMicros) {
    if (additionalMicros < 0) {
      throw new IllegalArgumentException("additionalMicros must be >= 0");
    }
    return additionalMicros == 0;
  }

  /**
   * Returns what each matched limit has left after this reservation was taken. The default
   * reports nothing.
   *
   * @return one entry per matched limit, possibly empty
   */
  default java.util.List<LimitRemaining> remaining() {
    return java.util.List.of();
  }

  /**
   * Returns a reservation that holds nothing.
   *
   * @param id the id
   * @return the reservation
   */
  static Reservation none(String id) {
    return new Reservation() {
      @Override
      public String id() {
        return id;
      }

      @Override
      public long heldMicros() {
        return 0;
      }

      @Override
      public void settle(long actualMicros) {}

      @Override
      public void release() {}

      @Override
      public boolean extend(long additionalMicros) {
        if (additionalMicros < 0) {
          throw new IllegalArgumentException("additionalMicros must be >= 0");
        }
        return true;
      }
    };
  }
}
