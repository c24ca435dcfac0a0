package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Proves a machine without a PostgreSQL server can run the ledger on the embedded default. */
class EmbeddedPostgresTest {

  @Test
  void embeddedServerRunsTheMigrationsAndSettles() throws Exception {
    TestDatabases.Server server = TestDatabases.embedded();
    assertThat(server.source()).isEqualTo(TestDatabases.Source.EMBEDDED);

    try (TestDatabase db = server.createDatabase()) {
      assertThat(LedgerSchema.migrate(db.dataSource())).isEqualTo(LedgerSchema.currentVersion());
      PostgresSettlement ledger = PostgresSettlement.create(db.dataSource());
      ledger.settle(List.of(Fixtures.record("embedded-1", 1_234)));
      ledger.settle(List.of(Fixtures.record("embedded-1", 1_234)));

      assertThat(Fixtures.count(db.dataSource(), "SELECT count(*) FROM pointsman.ledger_entries"))
          .isEqualTo(1);
      assertThat(Fixtures.string(db.dataSource(), "SHOW server_version")).startsWith("14.");
    }
  }
}
