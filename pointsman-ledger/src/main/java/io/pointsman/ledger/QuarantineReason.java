package io.pointsman.ledger;

/** Why the ledger refused an item and quarantined it ({@link QuarantinedItem#reasonKind()}). */
public enum QuarantineReason {
  /**
   * A value PostgreSQL cannot take (SQLSTATE class 22): a string with a NUL character, a time
   * outside the range of {@code timestamptz}, a number out of range.
   */
  INVALID_VALUE,
  /**
   * A check, not-null or foreign-key constraint of the schema (SQLSTATE class 23), for
   * example a negative token count or an HTTP status outside 100..599.
   */
  CONSTRAINT_VIOLATION,
  /**
   * The item's reservation id is already recorded for another event (a limiter that repeats
   * reservation ids): writing it would lose one of the two reservations.
   */
  DUPLICATE_RESERVATION_ID
}
