package io.pointsman.journal;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.UsageRecord;
import java.util.List;

/**
 * What {@link JournalAccounting} found in the journal when it opened. Immutable.
 *
 * @param resettled settled records not yet confirmed by settlement, handed to it again
 * @param interrupted calls with a dispatch intent and no settled record: {@code UNKNOWN}
 *     outcomes whose reservations stay held until attested or expired
 * @param unknownSends how many of {@code interrupted} had a dispatch intent without its request
 *     intent
 * @param recordsScanned valid records the journal recovered, delivered or not
 */
public record RecoveryReport(
    List<UsageRecord> resettled, List<InterruptedCall> interrupted, int unknownSends,
    int recordsScanned) {

  /**
   * Copies the lists.
   *
   * @param resettled settled records not yet confirmed by settlement, handed to it again
   * @param interrupted calls with a dispatch intent and no settled record: {@code UNKNOWN}
   *     outcomes whose reservations stay held until attested or expired
   * @param unknownSends how many of {@code interrupted} had a dispatch intent without its request
   *     intent
   * @param recordsScanned valid records the journal recovered, delivered or not
   */
  public RecoveryReport {
    resettled = List.copyOf(resettled);
    interrupted = List.copyOf(interrupted);
  }

  /**
   * Returns the total held by interrupted calls, for rebuilding budget counters at start.
   *
   * @return micro-units held
   */
  public long heldMicros() {
    long held = 0;
    for (InterruptedCall c : interrupted) {
      held = Math.addExact(held, c.lastIntent().heldMicros());
    }
    return held;
  }
}
