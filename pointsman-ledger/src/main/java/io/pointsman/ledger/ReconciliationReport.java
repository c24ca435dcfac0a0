package io.pointsman.ledger;

/**
 * The ledger checked against itself and against figures only the host knows. Produced by
 * {@link PostgresSettlement#reconcile}. Immutable.
 *
 * @param acknowledgedResponses responses the host acknowledged (supplied by the caller)
 * @param journalBacklog settled records durable in the journal and not yet handed to
 *     settlement (supplied by the caller)
 * @param settledRows ledger rows written from settled records
 * @param unknownRows interrupted calls still unresolved
 * @param attestedRows interrupted calls resolved by attestation
 * @param expiredRows interrupted calls whose hold expired and were charged their worst case
 * @param missingRows {@code acknowledgedResponses - settledRows - quarantinedRecords -
 *     journalBacklog}: positive when acknowledged usage is in neither the ledger, the
 *     quarantine nor the journal, negative when the ledger has more settled rows than the host
 *     acknowledged
 * @param costMicros total cost of resolved rows (settled, attested, expired)
 * @param chargedMicros total charged to key scopes; every charged call charges its key once
 * @param chargeMismatches resolved rows with a cost whose charges do not match it in every
 *     scope the row belongs to (a missing scope or a different amount)
 * @param reservationChargedMicros total charged by resolved reservations
 * @param reservationMismatches resolved reservations whose charge differs from their row's
 *     cost
 * @param heldCount unresolved holds
 * @param heldMicros what unresolved holds hold against budgets
 * @param quarantinedRecords settled records the ledger refused, kept in the quarantine and
 *     not yet re-driven (their spend is in no budget yet)
 * @param quarantinedCalls interrupted calls the ledger refused, kept in the quarantine and
 *     not yet re-driven
 * @param conflicts open replay conflicts: replayed records that disagree with the stored row
 *     of their event ({@link PostgresSettlement#conflicts()})
 */
public record ReconciliationReport(
    long acknowledgedResponses, long journalBacklog, long settledRows, long unknownRows,
    long attestedRows, long expiredRows, long missingRows, long costMicros, long chargedMicros,
    long chargeMismatches, long reservationChargedMicros, long reservationMismatches,
    long heldCount, long heldMicros, long quarantinedRecords, long quarantinedCalls,
    long conflicts) {

  /**
   * Returns whether every figure agrees: no missing rows, charges equal costs in every scope,
   * resolved reservations equal their rows, nothing waits in the quarantine and no replay
   * conflict is open. Unresolved holds do not unbalance the ledger; they are reported in
   * {@link #heldCount()}.
   *
   * @return true when balanced
   */
  public boolean balanced() {
    return missingRows == 0 && chargeMismatches == 0 && reservationMismatches == 0
        && costMicros == chargedMicros && quarantinedRecords == 0 && quarantinedCalls == 0
        && conflicts == 0;
  }
}
