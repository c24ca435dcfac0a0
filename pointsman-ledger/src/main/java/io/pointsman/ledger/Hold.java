package io.pointsman.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * A reservation as the ledger records it; for an interrupted call, what an attester needs to
 * know (its {@link #epoch()} and {@link #floorMicros()}). Immutable.
 *
 * @param eventId the call's event id
 * @param reservationId the reservation's id
 * @param state the reservation's state
 * @param heldMicros the amount held against budgets
 * @param worstCaseMicros the call's worst case, charged if the hold expires
 * @param floorMicros the least an attestation may claim the call cost
 * @param chargedMicros the amount charged; zero while the reservation still holds
 * @param epoch the number of changes of this reservation, from 1; an attestation must name it
 * @param heldSince when the hold began (for an interrupted call, when the ledger recorded it,
 *     on the database's clock)
 * @param holdUntil when an unresolved hold expires, or {@code null} once resolved settled
 */
public record Hold(
    String eventId, String reservationId, ReservationState state, long heldMicros,
    long worstCaseMicros, long floorMicros, long chargedMicros, long epoch, Instant heldSince,
    Instant holdUntil) {

  /**
   * Validates the fields.
   *
   * @param eventId the call's event id
   * @param reservationId the reservation's id
   * @param state the reservation's state
   * @param heldMicros the amount held against budgets
   * @param worstCaseMicros the call's worst case, charged if the hold expires
   * @param floorMicros the least an attestation may claim the call cost
   * @param chargedMicros the amount charged; zero while the reservation still holds
   * @param epoch the number of changes of this reservation, from 1; an attestation must name it
   * @param heldSince when the hold began (for an interrupted call, when the ledger recorded it,
   *     on the database's clock)
   * @param holdUntil when an unresolved hold expires, or {@code null} once resolved settled
   * @throws NullPointerException if a required field is null
   */
  public Hold {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(reservationId, "reservationId");
    Objects.requireNonNull(state, "state");
    Objects.requireNonNull(heldSince, "heldSince");
  }
}
