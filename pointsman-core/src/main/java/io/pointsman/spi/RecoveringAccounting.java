package io.pointsman.spi;

import java.time.Duration;
import java.util.List;

/**
 * An {@link Accounting} that was recovered when it opened: the journal's side of the restart
 * protocol. The gateway reads what recovery found and waits until settlement took it before it
 * confirms budgets against the ledger. Implementations must be thread-safe.
 */
public interface RecoveringAccounting extends Accounting {
  /**
   * Returns the settled records recovery found not yet confirmed by settlement and handed to
   * it again.
   *
   * @return the records, immutable
   */
  List<UsageRecord> replayed();

  /**
   * Returns the calls recovery found dispatched and never settled: {@code UNKNOWN} outcomes
   * whose reservations stay held until attested or expired.
   *
   * @return the calls, immutable
   */
  List<InterruptedCall> interrupted();

  /**
   * Returns whether anything recovery handed to settlement is still waiting to commit.
   *
   * @return true while recovery's records are not all in the ledger
   */
  boolean recoveryPending();

  /**
   * Waits until nothing waits for settlement.
   *
   * @param timeout how long to wait at most
   * @return true if the backlog drained in time
   */
  boolean awaitDrained(Duration timeout);
}
