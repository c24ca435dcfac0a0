package io.pointsman.spi;

import java.util.List;
import java.util.Objects;

/**
 * A hold a shared {@link CounterStore} keeps for a reservation that has not ended, as listed
 * by {@link CounterStore#holdsOlderThan} for the orphan sweep. Immutable.
 *
 * @param reservationId the reservation's id
 * @param owner the store instance that took it (see the store's owner setting), or
 *     {@code "rebuild"} for a hold recreated from the ledger
 * @param createdAtMillis when it was taken, by the store's own clock (Redis {@code TIME}),
 *     epoch milliseconds
 * @param counters the counters it holds, with the amounts held (extensions included)
 */
public record CounterHold(String reservationId, String owner, long createdAtMillis,
    List<Counter> counters) {
  /**
   * Validates and copies.
   *
   * @param reservationId the reservation's id
   * @param owner the store instance that took it (see the store's owner setting), or     {@code
   *     "rebuild"} for a hold recreated from the ledger
   * @param createdAtMillis when it was taken, by the store's own clock (Redis {@code TIME}),
   *     epoch milliseconds
   * @param counters the counters it holds, with the amounts held (extensions included)
   * @throws NullPointerException if a field is null
   */
  public CounterHold {
    Objects.requireNonNull(reservationId, "reservationId");
    Objects.requireNonNull(owner, "owner");
    counters = List.copyOf(counters);
  }
}
