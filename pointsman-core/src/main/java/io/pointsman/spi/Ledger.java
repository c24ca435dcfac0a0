package io.pointsman.spi;

import io.pointsman.limits.SpendSource;
import java.util.Collection;
import java.util.OptionalLong;

/**
 * The system of record for spend, as the restart protocol needs it: a {@link Settlement} that
 * can also be read back (settled spend, the holds of interrupted calls it still has open) and
 * that resolves those holds (attestation, expiry). The gateway builder takes one with
 * {@code ledger(...)}; at start the gateway rebuilds or adopts budget counters from it, and
 * every minute it expires the holds whose window ended and settles the recovered reservations
 * the ledger resolved.
 *
 * <p>A ledger may be unreachable at start: {@link #reachable()} then answers false, the
 * settlement methods throw (the journal keeps the records and retries), and the gateway keeps
 * calls under a budget refused with 503 until it answers. Implementations must be thread-safe.
 */
public interface Ledger extends Settlement, SpendSource {
  /**
   * Tries to reach the ledger (building and migrating it on first success) and says whether it
   * answers. Never throws.
   *
   * @return true when the ledger can be read and written
   */
  boolean reachable();

  /**
   * {@inheritDoc}
   *
   * <p>A ledger must name every hold it still has open: the gateway rebuilds budget counters
   * with them.
   */
  @Override
  Collection<DispatchIntent> unresolvedHolds();

  /**
   * Charges the worst case of every hold whose window ended, on the ledger's clock.
   *
   * @return how many holds expired
   * @throws RuntimeException if the ledger cannot be reached
   */
  int expireHolds();

  /**
   * Returns what the ledger charged an interrupted call once its hold was resolved (attested or
   * expired), or empty while it is unresolved or unknown to the ledger.
   *
   * @param eventId the call's event id
   * @return the charge in micro-units, or empty
   * @throws RuntimeException if the ledger cannot be reached
   */
  OptionalLong resolvedCharge(String eventId);
}
