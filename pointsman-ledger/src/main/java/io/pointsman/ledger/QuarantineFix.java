package io.pointsman.ledger;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.UsageRecord;

/**
 * Corrects quarantined items before {@link PostgresSettlement#redriveQuarantined(QuarantineFix)}
 * hands them to the ledger again. Each method receives the item decoded from its stored
 * payload and returns the item to write; the defaults return it unchanged (a re-drive after
 * the cause was fixed elsewhere, for example a conflicting reservation row removed). A fix
 * must keep the item's event id.
 *
 * <pre>{@code
 * ledger.redriveQuarantined(new QuarantineFix() {
 *   public UsageRecord record(UsageRecord r) {
 *     return withoutNegativeCachedTokens(r);
 *   }
 * });
 * }</pre>
 */
public interface QuarantineFix {
  /** Re-drives every item as it was stored. */
  QuarantineFix NONE = new QuarantineFix() {};

  /**
   * Corrects a quarantined settled record.
   *
   * @param record the record as stored
   * @return the record to settle, with the same event id
   */
  default UsageRecord record(UsageRecord record) {
    return record;
  }

  /**
   * Corrects a quarantined interrupted call.
   *
   * @param call the call as stored
   * @return the call to record, with the same event id
   */
  default InterruptedCall call(InterruptedCall call) {
    return call;
  }
}
