package io.pointsman.spi;

/**
 * A durable usage journal, opened by the gateway builder over the ledger it settles into
 * ({@code Gateway.builder().journal(journal).ledger(ledger)}). Opening recovers: what the
 * journal held when the last process stopped is handed to the settlement again, and every call
 * dispatched and never settled is reported as interrupted. The journal and the ledger never
 * know each other's classes; they meet through this interface, {@link Settlement} and
 * {@link Ledger}. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Journal {
  /**
   * Opens the journal, recovers it, and starts handing durable records to the settlement.
   * Opening must not wait for the settlement: a host starts while its database is down.
   *
   * @param settlement where durable records are settled after acknowledgement
   * @return the open accounting with what recovery found
   * @throws RuntimeException if the journal cannot be opened (locked, corrupt, unwritable)
   */
  RecoveringAccounting open(Settlement settlement);
}
