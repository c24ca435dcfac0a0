package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.CallOptions;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.testing.FixtureProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The journal is the buffer while settlement is down: only a bounded queue is kept in memory,
 * the rest is read back from the journal, and at the journal's size limit new calls are refused
 * with a 503 before any provider is called.
 */
class SettlementOverflowTest {
  private static final int QUEUE = 50;

  private static JournalConfig config(Path dir) {
    return JournalConfig.builder(dir).segmentBytes(64 * 1024).preallocationChunkBytes(16 * 1024)
        .build();
  }

  private static long segmentFiles(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log")).count();
    }
  }

  @Test
  void overflowIsReadBackFromTheJournalAndSettledOnceThenSegmentsAreReclaimed(
      @TempDir Path dir) throws Exception {
    RecordingSettlement ledger = new RecordingSettlement();
    ledger.failWith.set(new IllegalStateException("database down"));
    Set<String> acknowledged = new HashSet<>();
    int calls = 1_500;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .queueCapacity(QUEUE).maxBatch(40).maxJournalBytes(0)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      for (int i = 0; i < calls; i++) {
        acknowledged.add(gateway.chat(JournalAccountingTest.request(i),
            CallOptions.of(JournalAccountingTest.KEY)).eventId());
        assertThat(accounting.queuedInMemory()).as("records held in memory")
            .isLessThanOrEqualTo(QUEUE);
      }
      SettlerState down = accounting.settlerState();
      assertThat(down.overflowing()).isTrue();
      assertThat(down.stalled()).isTrue();
      assertThat(down.condition()).isEqualTo(SettlerState.Condition.DEGRADED);
      assertThat(accounting.overflowedRecords()).isGreaterThanOrEqualTo(calls - QUEUE - 40);
      assertThat(segmentFiles(dir)).as("the backlog is on disk").isGreaterThan(5);

      ledger.failWith.set(null);
      assertThat(accounting.awaitDrained(Duration.ofSeconds(60))).isTrue();
      assertThat(accounting.settlerState().overflowing()).isFalse();
      assertThat(ledger.settled.keySet()).containsExactlyInAnyOrderElementsOf(acknowledged);

      // Calls after the catch-up go through the queue again.
      for (int i = 0; i < 10; i++) {
        acknowledged.add(gateway.chat(JournalAccountingTest.request(calls + i),
            CallOptions.of(JournalAccountingTest.KEY)).eventId());
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      assertThat(ledger.settled.keySet()).containsExactlyInAnyOrderElementsOf(acknowledged);
      // Records read back carry their intents' sequence numbers: those are marked too, so the
      // segments go.
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (segmentFiles(dir) > 2 && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      assertThat(segmentFiles(dir)).isLessThanOrEqualTo(2);
    }
    RecordingSettlement afterRestart = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), afterRestart)
        .open()) {
      assertThat(reopened.recovery().resettled()).isEmpty();
      assertThat(reopened.recovery().interrupted()).isEmpty();
    }
  }

  @Test
  void aLargeBacklogRecoversAndServesWhileSettlementIsDownThenCatchesUp(@TempDir Path dir) {
    RecordingSettlement down = new RecordingSettlement();
    down.failWith.set(new IllegalStateException("database down"));
    Set<String> acknowledged = new HashSet<>();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), down)
        .queueCapacity(QUEUE).maxJournalBytes(0).drainTimeout(Duration.ZERO).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      for (int i = 0; i < 600; i++) {
        acknowledged.add(gateway.chat(JournalAccountingTest.request(i),
            CallOptions.of(JournalAccountingTest.KEY)).eventId());
      }
    }
    RecordingSettlement ledger = new RecordingSettlement();
    ledger.failWith.set(new IllegalStateException("database still down"));
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), ledger)
        .queueCapacity(QUEUE).maxJournalBytes(0)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).open()) {
      assertThat(reopened.recovery().resettled()).hasSize(600);
      assertThat(reopened.queuedInMemory()).isLessThanOrEqualTo(QUEUE);
      assertThat(reopened.settlerState().overflowing()).isTrue();
      Gateway gateway = JournalAccountingTest.gateway(reopened,
          FixtureProvider.builder().build());
      for (int i = 0; i < 20; i++) {
        acknowledged.add(gateway.chat(JournalAccountingTest.request(1_000 + i),
            CallOptions.of(JournalAccountingTest.KEY)).eventId());
      }
      ledger.failWith.set(null);
      assertThat(reopened.awaitDrained(Duration.ofSeconds(60))).isTrue();
    }
    assertThat(ledger.settled.keySet()).containsExactlyInAnyOrderElementsOf(acknowledged);
  }

  @Test
  void atTheSizeLimitNewCallsAreRefusedBeforeAnyProviderIsCalled(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    ledger.failWith.set(new IllegalStateException("database down"));
    long limit = 4 * 64 * 1024;
    FixtureProvider fixture = FixtureProvider.builder().build();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .queueCapacity(QUEUE).maxJournalBytes(limit)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting, fixture);
      int accepted = 0;
      PointsmanException refused = null;
      for (int i = 0; i < 10_000 && refused == null; i++) {
        try {
          gateway.chat(JournalAccountingTest.request(i), CallOptions.of(JournalAccountingTest.KEY));
          accepted++;
        } catch (PointsmanException e) {
          refused = e;
        }
      }
      assertThat(refused).as("the journal filled up").isNotNull();
      assertThat(refused.status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(refused).hasRootCauseInstanceOf(JournalFullException.class)
          .hasMessageContaining("journal is full");
      // The dispatch intent is refused first (no provider call); the call's usage record, of
      // a call that reached no provider, is refused with it.
      PointsmanException intent = catchThrowableOfType(PointsmanException.class,
          () -> accounting.dispatched(JournalAccountingTest.intent("refused", 1)));
      assertThat(intent.status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(intent.stage()).isEqualTo(Stages.PROVIDER_ATTEMPT);
      assertThat(intent).hasMessageContaining("provider was not called")
          .hasRootCauseInstanceOf(JournalFullException.class);
      assertThat(fixture.sends()).as("no provider call for the refused call")
          .isEqualTo(accepted);
      long sends = fixture.sends();
      for (int i = 0; i < 50; i++) {
        int n = i;
        catchThrowableOfType(PointsmanException.class, () -> gateway.chat(
            JournalAccountingTest.request(20_000 + n), CallOptions.of(JournalAccountingTest.KEY)));
      }
      assertThat(fixture.sends()).isEqualTo(sends);
      assertThat(accounting.journalMetrics().retainedBytes()).as("refused calls add nothing")
          .isLessThanOrEqualTo(limit + 64 * 1024);
      assertThat(accounting.refusedCalls()).isGreaterThanOrEqualTo(52);
      SettlerState full = accounting.settlerState();
      assertThat(full.refusingCalls()).isTrue();
      assertThat(full.condition()).isEqualTo(SettlerState.Condition.FAILING);

      ledger.failWith.set(null);
      assertThat(accounting.awaitDrained(Duration.ofSeconds(60))).isTrue();
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (accounting.settlerState().refusingCalls() && System.nanoTime() < deadline) {
        Thread.onSpinWait();
      }
      gateway.chat(JournalAccountingTest.request(30_000), CallOptions.of(JournalAccountingTest.KEY));
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      assertThat(ledger.settled).hasSize(accepted + 1);
    }
  }
}
