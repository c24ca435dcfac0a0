package io.pointsman.examples.outage;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.Gateway;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The process restarts while PostgreSQL is down: opening the journal recovers the unsettled
 * records without waiting for the database, the gateway serves, and everything settles once
 * the database returns.
 */
class RecoveryDuringOutageTest {
  @TempDir Path dir;

  @Test
  void opensRecoversAndServesWhileTheDatabaseIsDownThenCatchesUp() throws Exception {
    try (OutageRig rig = new OutageRig(dir.resolve("pg"))) {
      rig.stopDatabase();
      JournalConfig config = JournalConfig.builder(dir.resolve("journal"))
          .segmentBytes(256 << 10).build();
      FixtureProvider fixture = FixtureProvider.builder().build();
      try (JournalAccounting first = JournalAccounting.builder(config, rig.settlement)
          .queueCapacity(100).retryBackoff(Duration.ofMillis(10), Duration.ofMillis(200))
          .drainTimeout(Duration.ZERO).open()) {
        Gateway gateway = OutageRig.gateway(first, fixture);
        for (int i = 0; i < 300; i++) {
          gateway.chat(OutageRig.request(i), CallOptions.of(OutageRig.KEY));
        }
        assertThat(first.settlerState().stalled()).isTrue();
      }
      // Restarted with the database still down.
      try (JournalAccounting second = JournalAccounting.builder(config, rig.settlement)
          .queueCapacity(100).retryBackoff(Duration.ofMillis(10), Duration.ofMillis(200))
          .open()) {
        assertThat(second.recovery().resettled()).hasSize(300);
        Gateway gateway = OutageRig.gateway(second, fixture);
        for (int i = 0; i < 50; i++) {
          gateway.chat(OutageRig.request(1_000 + i), CallOptions.of(OutageRig.KEY));
        }
        assertThat(second.settlerState().stalled()).as("the database is still down").isTrue();
        assertThat(second.settledCount()).isZero();

        rig.startDatabase();
        assertThat(second.awaitDrained(Duration.ofMinutes(5))).isTrue();
        long[] rows = rig.ledgerRows();
        assertThat(rows[0]).isEqualTo(350);
        assertThat(rows[1]).isEqualTo(350);
        assertThat(rows[2]).isEqualTo(350);
        assertThat(fixture.sends()).isEqualTo(350);
      }
    }
  }
}
