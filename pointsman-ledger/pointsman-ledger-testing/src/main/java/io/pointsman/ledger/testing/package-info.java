/**
 * Test support for hosts and modules that test against the ledger: a fresh PostgreSQL database
 * per test, found in the order of the project's test infrastructure (an explicit URL, a local
 * server, embedded PostgreSQL).
 */
package io.pointsman.ledger.testing;
