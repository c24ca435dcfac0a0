package io.pointsman.ledger;

/**
 * The state a reservation is recorded in. A running call's reservation is {@link #HELD} in the
 * journal and the in-process limiter; the ledger records how it ended. Transitions:
 * {@code HELD → SETTLED | RELEASED} for a call whose settled record arrived, and
 * {@code UNKNOWN → ATTESTED | EXPIRED} for a call interrupted by a crash.
 */
public enum ReservationState {
  /** Reserved while the call runs; not written by this ledger, which records end states. */
  HELD,
  /** The call settled and was charged its actual cost. */
  SETTLED,
  /** The call ended before any provider was dispatched and cost nothing: nothing charged. */
  RELEASED,
  /** The call was interrupted; its reservation stays held against its budgets. */
  UNKNOWN,
  /** An accepted attestation resolved the interrupted call and charged the attested cost. */
  ATTESTED,
  /** The hold window ended unresolved: charged the call's worst case, flagged. */
  EXPIRED;

  /**
   * Returns whether the reservation still holds budget.
   *
   * @return true for {@link #HELD} and {@link #UNKNOWN}
   */
  public boolean holding() {
    return this == HELD || this == UNKNOWN;
  }
}
