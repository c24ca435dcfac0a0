package io.pointsman.ledger;

/**
 * Told, by {@link PostgresSettlement#checkHolds()}, that unresolved holds exist: interrupted
 * calls that still hold budget and wait for an attestation or their hold window's end. Called
 * synchronously on the thread that checks; must be fast and must not throw (an exception
 * propagates to the caller of {@code checkHolds}, after the expiry it performed committed).
 */
@FunctionalInterface
public interface HoldAlert {
  /** An alert that does nothing. */
  HoldAlert NONE = summary -> { };

  /**
   * Reports the unresolved holds.
   *
   * @param summary what is unresolved; {@link HoldSummary#any()} is true
   */
  void unresolved(HoldSummary summary);
}
