package io.pointsman.journal;

import static io.pointsman.journal.JournalAccountingTest.KEY;
import static io.pointsman.journal.JournalAccountingTest.config;
import static io.pointsman.journal.JournalAccountingTest.gateway;
import static io.pointsman.journal.JournalAccountingTest.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CallOptions;
import io.pointsman.Gateway;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The settlement linger: durable records wait for others so that one batch covers many. */
class SettleLingerTest {

  @Test
  void recordsArrivingWithinTheLingerShareOneSettlementBatch(@TempDir Path dir)
      throws Exception {
    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .settleLinger(Duration.ofSeconds(3)).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      gateway.chat(request(0), CallOptions.of(KEY));
      // Without a linger the settler takes the first record at once, alone.
      Thread.sleep(200);
      assertThat(ledger.batches.get()).isZero();
      for (int i = 1; i < 10; i++) {
        gateway.chat(request(i), CallOptions.of(KEY));
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(ledger.settled).hasSize(10);
    assertThat(ledger.batches.get()).isEqualTo(1);
  }

  @Test
  void aFullBatchGoesWithoutWaitingForTheLinger(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .maxBatch(5).settleLinger(Duration.ofSeconds(10)).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      for (int i = 0; i < 10; i++) {
        gateway.chat(request(i), CallOptions.of(KEY));
      }
      // Two full batches: neither waits the 10 s linger.
      assertThat(accounting.awaitDrained(Duration.ofSeconds(5))).isTrue();
      assertThat(ledger.settled).hasSize(10);
      assertThat(ledger.batches.get()).isEqualTo(2);
    }
  }

  @Test
  void closeSettlesLingeringRecordsAtOnce(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    long started;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .settleLinger(Duration.ofSeconds(10)).drainTimeout(Duration.ofSeconds(30)).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      for (int i = 0; i < 3; i++) {
        gateway.chat(request(i), CallOptions.of(KEY));
      }
      started = System.nanoTime();
    }
    // Close did not wait out the linger, and nothing was left for the next start.
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(9));
    assertThat(ledger.settled).hasSize(3);
    RecordingSettlement afterRestart = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), afterRestart)
        .open()) {
      assertThat(reopened.recovery().resettled()).isEmpty();
    }
  }

  @Test
  void theLingerIsBounded(@TempDir Path dir) {
    JournalAccounting.Builder builder = JournalAccounting.builder(config(dir),
        new RecordingSettlement());
    assertThatThrownBy(() -> builder.settleLinger(Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> builder.settleLinger(Duration.ofSeconds(11)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
