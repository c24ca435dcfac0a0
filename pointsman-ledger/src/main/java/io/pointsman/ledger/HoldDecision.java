package io.pointsman.ledger;

import java.util.Objects;

/**
 * The answer to a request to change an unresolved hold ({@link PostgresSettlement#attest} or
 * {@link PostgresSettlement#extendHold}). Anything but {@link Verdict#ACCEPTED} wrote nothing.
 * Immutable.
 *
 * @param verdict what was decided
 * @param eventId the call's event id
 * @param epoch the hold's epoch after the decision (unchanged when refused; zero when no hold
 *     exists)
 * @param message why, for an operator's log
 */
public record HoldDecision(Verdict verdict, String eventId, long epoch, String message) {

  /** What was decided. */
  public enum Verdict {
    /** Applied: the hold changed and its epoch moved on. */
    ACCEPTED,
    /** Refused: the attested cost is below the call's floor. */
    UNDER_FLOOR,
    /** Refused: the epoch named is not the hold's current epoch. */
    STALE_EPOCH,
    /** Refused: the hold is already resolved (attested, expired or settled). */
    ALREADY_RESOLVED,
    /** Refused: no hold is recorded for the event id. */
    NOT_FOUND
  }

  /**
   * Validates the fields.
   *
   * @param verdict what was decided
   * @param eventId the call's event id
   * @param epoch the hold's epoch after the decision (unchanged when refused; zero when no hold
   *     exists)
   * @param message why, for an operator's log
   * @throws NullPointerException if a field is null
   */
  public HoldDecision {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(message, "message");
  }

  /**
   * Returns whether the change was applied.
   *
   * @return true when {@link Verdict#ACCEPTED}
   */
  public boolean accepted() {
    return verdict == Verdict.ACCEPTED;
  }
}
