package io.pointsman.ledger;

/**
 * What a corrected price would have charged the ledger rows that were charged at one price
 * version. Produced by {@link PostgresSettlement#rerate}. Changes nothing: a correction is the
 * host's decision (a credit, an invoice line), made from these figures. Immutable.
 *
 * @param model the model re-rated
 * @param priceVersion the version the rows were charged at
 * @param correctedVersion the version of the corrected price
 * @param reratedRows settled rows priced from provider usage, re-rated exactly
 * @param chargedMicros what those rows were charged
 * @param correctedMicros what the corrected price charges them, each row rounded up to the
 *     next micro-unit as the gateway rounds
 * @param estimatedRows rows of that version whose cost was an estimate (a worst case, missing
 *     usage, a cancelled stream): not re-rated, since their token counts do not determine
 *     their charge
 * @param estimatedMicros what those rows were charged
 */
public record RerateReport(
    String model, String priceVersion, String correctedVersion, long reratedRows,
    long chargedMicros, long correctedMicros, long estimatedRows, long estimatedMicros) {

  /**
   * Returns the corrected charge minus the charge of the re-rated rows: positive when the
   * corrected price is dearer (an amount under-charged), negative when it is cheaper.
   *
   * @return micro-units
   */
  public long differenceMicros() {
    return Math.subtractExact(correctedMicros, chargedMicros);
  }
}
