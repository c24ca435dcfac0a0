package io.pointsman.ledger;

import java.time.Instant;

/**
 * Unresolved holds at one moment: interrupted calls neither attested nor expired. Immutable.
 *
 * @param unresolved how many holds are unresolved
 * @param heldMicros what they hold against budgets in total
 * @param worstCaseMicros what they would be charged if they all expired
 * @param oldestHeldSince when the oldest began, or {@code null} when none is unresolved
 * @param nextExpiry when the next one expires, or {@code null} when none is unresolved
 * @param expiredNow how many expired during the check that produced this summary
 */
public record HoldSummary(
    long unresolved, long heldMicros, long worstCaseMicros, Instant oldestHeldSince,
    Instant nextExpiry, long expiredNow) {

  /**
   * Returns whether any hold is unresolved.
   *
   * @return true if at least one is
   */
  public boolean any() {
    return unresolved > 0;
  }
}
