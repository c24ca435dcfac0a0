package io.pointsman.ledger;

import java.util.List;

/**
 * What {@link PostgresSettlement#redriveQuarantined} did. Immutable.
 *
 * @param redriven event ids the ledger accepted this time (now settled or recorded as
 *     interrupted; their quarantine rows are marked re-driven)
 * @param stillQuarantined event ids the ledger refused again (their reason and tries are
 *     updated)
 */
public record RedriveReport(List<String> redriven, List<String> stillQuarantined) {
  /**
   * Copies the lists.
   *
   * @param redriven event ids the ledger accepted this time (now settled or recorded as
   *     interrupted; their quarantine rows are marked re-driven)
   * @param stillQuarantined event ids the ledger refused again (their reason and tries are
   *     updated)
   */
  public RedriveReport {
    redriven = List.copyOf(redriven);
    stillQuarantined = List.copyOf(stillQuarantined);
  }
}
