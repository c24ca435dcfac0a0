package io.pointsman.spi;

import io.pointsman.PointsmanException;

/**
 * Stage 3, {@code ratelimit.reserve}: matches the rules that apply to a call (per key, team,
 * org, tag, model) and reserves all of them at once, or none. Implementations must be
 * thread-safe and must not hold a global lock.
 */
@FunctionalInterface
public interface Limiter {
  /**
   * Reserves capacity for a call in every matching scope, atomically.
   *
   * @param admission the call, sized at its worst case
   * @return the reservation, which the gateway settles or releases exactly once
   * @throws PointsmanException 402 when a budget would be exceeded, 429 when a rate or
   *     concurrency limit would be; nothing is held when it throws
   */
  Reservation reserve(Admission admission);

  /**
   * Returns a limiter with no rules: every call is admitted and nothing is held.
   *
   * @return the limiter
   */
  static Limiter none() {
    return admission -> Reservation.none(admission.eventId());
  }
}
