package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.count;
import static io.pointsman.ledger.Fixtures.execute;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LedgerSchemaTest {
  private TestDatabase db;
  private DataSource ds;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void migratesAnEmptyDatabaseAndRecordsEachMigrationWithItsChecksum() throws Exception {
    assertThat(LedgerSchema.migrate(ds)).isEqualTo(LedgerSchema.currentVersion());

    assertThat(count(ds, "SELECT count(*) FROM information_schema.tables"
        + " WHERE table_schema = 'pointsman' AND table_name IN ('ledger_entries', 'charges',"
        + " 'reservations', 'budgets', 'budget_periods', 'virtual_keys', 'orgs', 'teams',"
        + " 'users', 'schema_history')")).isEqualTo(10);
    assertThat(Fixtures.string(ds, "SELECT checksum FROM pointsman.schema_history"
        + " WHERE version = 1"))
        .isEqualTo(LedgerSchema.checksum(LedgerSchema.script("V1__ledger.sql")));
  }

  @Test
  void migratingACurrentSchemaChangesNothing() throws Exception {
    LedgerSchema.migrate(ds);
    String history = Fixtures.string(ds,
        "SELECT string_agg(version || checksum || applied_at, ',') FROM pointsman.schema_history");

    assertThat(LedgerSchema.migrate(ds)).isEqualTo(LedgerSchema.currentVersion());
    PostgresSettlement.create(ds);

    assertThat(Fixtures.string(ds,
        "SELECT string_agg(version || checksum || applied_at, ',') FROM pointsman.schema_history"))
        .isEqualTo(history);
  }

  @Test
  void concurrentStartsApplyEachMigrationOnce() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      Callable<Integer> migrate = () -> LedgerSchema.migrate(ds);
      List<Future<Integer>> results = pool.invokeAll(List.of(migrate, migrate, migrate, migrate));
      for (Future<Integer> f : results) {
        assertThat(f.get()).isEqualTo(LedgerSchema.currentVersion());
      }
    } finally {
      pool.shutdown();
    }
    assertThat(count(ds, "SELECT count(*) FROM pointsman.schema_history"))
        .isEqualTo(LedgerSchema.currentVersion());
  }

  @Test
  void refusesADatabaseWhoseSchemaIsNewerThanTheCode() throws Exception {
    LedgerSchema.migrate(ds);
    execute(ds, "INSERT INTO pointsman.schema_history (version, description, checksum)"
        + " VALUES (99, 'V99__future.sql', 'abc')");

    assertThatThrownBy(() -> LedgerSchema.migrate(ds))
        .isInstanceOfSatisfying(LedgerSchemaException.class, e -> {
          assertThat(e.reason()).isEqualTo(LedgerSchemaException.Reason.NEWER_SCHEMA);
          assertThat(e.version()).isEqualTo(99);
        });
    assertThatThrownBy(() -> PostgresSettlement.create(ds))
        .isInstanceOf(LedgerSchemaException.class);
  }

  @Test
  void refusesAnAppliedMigrationWhoseChecksumChanged() throws Exception {
    LedgerSchema.migrate(ds);
    execute(ds, "UPDATE pointsman.schema_history SET checksum = 'deadbeef' WHERE version = 1");

    assertThatThrownBy(() -> LedgerSchema.migrate(ds))
        .isInstanceOfSatisfying(LedgerSchemaException.class, e -> {
          assertThat(e.reason()).isEqualTo(LedgerSchemaException.Reason.CHECKSUM_MISMATCH);
          assertThat(e.version()).isEqualTo(1);
        });
  }

  @Test
  void refusalWritesNothingToAnUnmigratedLedger() throws Exception {
    // A newer schema recorded by a newer release, before this code ever ran on the database.
    execute(ds, "CREATE SCHEMA pointsman");
    execute(ds, "CREATE TABLE pointsman.schema_history (version integer PRIMARY KEY,"
        + " description text NOT NULL, checksum text NOT NULL,"
        + " applied_at timestamptz NOT NULL DEFAULT now())");
    execute(ds, "INSERT INTO pointsman.schema_history VALUES (2, 'V2__next.sql', 'x', now())");

    assertThatThrownBy(() -> LedgerSchema.migrate(ds))
        .isInstanceOf(LedgerSchemaException.class);
    assertThat(count(ds, "SELECT count(*) FROM information_schema.tables"
        + " WHERE table_schema = 'pointsman'")).isEqualTo(1);
  }

  @Test
  void everyShippedMigrationFileIsListedInOrder() throws IOException {
    Path dir = Path.of("src/main/resources/db/migration");
    List<String> files;
    try (Stream<Path> s = Files.list(dir)) {
      files = s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
    }
    assertThat(LedgerSchema.MIGRATIONS).containsExactlyElementsOf(files);
    for (int i = 0; i < files.size(); i++) {
      assertThat(files.get(i)).startsWith("V" + (i + 1) + "__");
    }
  }
}
