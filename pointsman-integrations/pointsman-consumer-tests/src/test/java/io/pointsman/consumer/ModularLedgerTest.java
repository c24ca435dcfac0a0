package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A modular application that settles into PostgreSQL: io.pointsman.ledger, a named module, reads
 * its migration scripts (resources of its own) on the module path, where a resource in a
 * package of a named module is hidden from other modules and from its class loader.
 */
class ModularLedgerTest {

  @Test
  void theLedgerMigratesAFreshDatabaseOnTheModulePath() throws Exception {
    ConsumerProject.Result result = ConsumerProject.named("modular-ledger")
        .modular()
        .dependsOn("pointsman-ledger")
        .dependsOn("pointsman-ledger-testing")
        .source("module-info.java", """
            module app {
              requires io.pointsman.ledger;
              requires io.pointsman.ledger.testing;
            }
            """)
        .source("app/Main.java", """
            package app;

            import io.pointsman.ledger.LedgerSchema;
            import io.pointsman.ledger.testing.TestDatabase;
            import io.pointsman.ledger.testing.TestDatabases;

            public final class Main {
              public static void main(String[] args) {
                try (TestDatabase db = TestDatabases.create()) {
                  int version = LedgerSchema.migrate(db.dataSource());
                  System.out.println("module " + LedgerSchema.class.getModule().getName()
                      + " migrated to version " + version + " of "
                      + LedgerSchema.currentVersion());
                }
                System.exit(0);
              }
            }
            """)
        .run();

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output()).containsPattern("module io.pointsman.ledger migrated to version "
        + "(\\d+) of \\1");
  }
}
