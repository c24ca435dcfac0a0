/**
 * PostgreSQL settlement: versioned schema, batched idempotent settlement of journaled usage,
 * UNKNOWN outcomes and their attestation, and PostgreSQL-backed key and budget stores.
 *
 * <p>Not yet implemented: this module is a compiling skeleton until the ledger work lands.
 */
package io.pointsman.ledger;
