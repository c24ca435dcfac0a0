/**
 * PostgreSQL settlement: versioned schema ({@link io.pointsman.ledger.LedgerSchema}), batched
 * idempotent settlement of journaled usage and UNKNOWN outcomes with their attestation
 * ({@link io.pointsman.ledger.PostgresSettlement}), a batcher for hosts that push records one
 * by one, and PostgreSQL-backed key and budget stores. See {@code docs/settlement.md}.
 */
package io.pointsman.ledger;
