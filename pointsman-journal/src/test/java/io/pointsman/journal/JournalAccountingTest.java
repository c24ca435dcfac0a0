package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JournalAccountingTest {
  static final String KEY = "pm-journal-test-key";

  static Gateway gateway(JournalAccounting accounting, FixtureProvider fixture) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t").org("o").build());
    return Gateway.builder()
        .authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m")
            .price(Price.of(1_000_000, 2_000_000)).build()).build())
        .accounting(accounting)
        .provider("fixture", fixture)
        .deployment(Deployment.of("d", "fixture", "m"))
        .build();
  }

  static ChatRequest request(int i) {
    return ChatRequest.builder().model("m").addMessage(Message.user("question " + i))
        .temperature(0.0).build();
  }

  static JournalConfig config(Path dir) {
    return JournalConfig.builder(dir).segmentBytes(64 * 1024).preallocationChunkBytes(16 * 1024)
        .build();
  }

  static DispatchIntent intent(String eventId, int attempt) {
    return new DispatchIntent(eventId, "req-" + eventId, attempt, "k1", null, "t", "o",
        Set.of("x"), "m", "d", "fixture", eventId, 500, 700, Instant.parse("2026-01-01T00:00:00Z"));
  }

  @Test
  void everyCallIsSettledOnceAndNothingIsReplayedAfterACleanRestart(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    int calls = 300;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      for (int i = 0; i < calls; i++) {
        // Every third question repeats: an exact hit, recorded like any call.
        gateway.chat(request(i % 3 == 2 ? i - 1 : i), CallOptions.of(KEY));
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      assertThat(accounting.settledCount()).isEqualTo(calls);
    }
    assertThat(ledger.settled).hasSize(calls);
    assertThat(ledger.settled.values()).filteredOn(r -> r.outcome() == UsageOutcome.CACHE_HIT)
        .hasSize(calls / 3);
    assertThat(ledger.deliveries.get()).isEqualTo(calls);

    RecordingSettlement afterRestart = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), afterRestart)
        .open()) {
      assertThat(reopened.recovery().resettled()).isEmpty();
      assertThat(reopened.recovery().interrupted()).isEmpty();
    }
    assertThat(afterRestart.deliveries.get()).isZero();
  }

  @Test
  void severalSettlersSettleEveryCallExactlyOnce(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    int calls = 400;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .settlerThreads(3).maxBatch(7).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      java.util.List<Thread> callers = new java.util.ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int offset = t * calls;
        Thread caller = new Thread(() -> {
          for (int i = 0; i < calls / 4; i++) {
            gateway.chat(request(offset + i), CallOptions.of(KEY));
          }
        });
        callers.add(caller);
        caller.start();
      }
      for (Thread caller : callers) {
        try {
          caller.join();
        } catch (InterruptedException e) {
          throw new AssertionError(e);
        }
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
    }
    assertThat(ledger.settled).hasSize(calls);
    assertThat(ledger.deliveries.get()).as("each record handed over once").isEqualTo(calls);
    assertThat(ledger.batches.get()).isGreaterThan(calls / 7 - 1);
  }

  @Test
  void settledSegmentsAreReclaimed(@TempDir Path dir) throws Exception {
    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      for (int i = 0; i < 2_000; i++) {
        gateway.chat(request(i), CallOptions.of(KEY));
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      // Reclamation follows the delivered marks; give the I/O thread a moment to act on them.
      long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
      while (segmentFiles(dir) > 2 && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      assertThat(segmentFiles(dir)).as("2,000 calls fill many 64 KiB segments; settled ones go")
          .isLessThanOrEqualTo(2);
    }
  }

  private static long segmentFiles(Path dir) throws java.io.IOException {
    try (var files = java.nio.file.Files.list(dir)) {
      // The lock file stays; count segment files only.
      return files.filter(f -> f.getFileName().toString().startsWith("segment-")).count();
    }
  }

  @Test
  void unsettledRecordsAndInterruptedCallsAreHandedToSettlementAtRestart(@TempDir Path dir) {
    RecordingSettlement down = new RecordingSettlement();
    down.failWith.set(new IllegalStateException("database down"));
    ChatResult acknowledged;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), down)
        .drainTimeout(Duration.ZERO).open()) {
      acknowledged = gateway(accounting, FixtureProvider.builder().build())
          .chat(request(1), CallOptions.of(KEY));
      // Two calls the process "died" in: one after its first send, one whose request intent
      // is missing (only a later attempt's intent survived).
      accounting.dispatched(intent("interrupted-1", 1));
      accounting.dispatched(intent("orphan-send", 2));
    }
    assertThat(down.settled).isEmpty();

    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), ledger).open()) {
      RecoveryReport report = reopened.recovery();
      assertThat(report.resettled()).singleElement()
          .satisfies(r -> assertThat(r.eventId()).isEqualTo(acknowledged.eventId()));
      assertThat(report.interrupted()).extracting(c -> c.eventId())
          .containsExactlyInAnyOrder("interrupted-1", "orphan-send");
      assertThat(report.unknownSends()).isEqualTo(1);
      assertThat(report.heldMicros()).isEqualTo(1_000);
      assertThat(reopened.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(ledger.settled).containsOnlyKeys(acknowledged.eventId());
    assertThat(ledger.interrupted.get("interrupted-1").requestIntentFound()).isTrue();
    assertThat(ledger.interrupted.get("orphan-send").requestIntentFound()).isFalse();

    RecordingSettlement third = new RecordingSettlement();
    try (JournalAccounting again = JournalAccounting.builder(config(dir), third).open()) {
      assertThat(again.recovery().resettled()).isEmpty();
      assertThat(again.recovery().interrupted()).isEmpty();
    }
  }

  @Test
  void aPoisonedJournalStopsEveryDispatchAndSaysToRestart(@TempDir Path unused) {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    JournalConfig config = JournalConfig.builder(CrashScenario.DIRECTORY).io(io)
        .segmentBytes(64 * 1024).preallocationChunkBytes(16 * 1024).build();
    RecordingSettlement ledger = new RecordingSettlement();
    FixtureProvider fixture = FixtureProvider.builder().build();
    try (JournalAccounting accounting = JournalAccounting.builder(config, ledger).open()) {
      Gateway gateway = gateway(accounting, fixture);
      io.ioErrorOnForce(path -> true);
      for (int i = 0; i < 3; i++) {
        int n = i;
        PointsmanException e = catchThrowableOfType(PointsmanException.class,
            () -> gateway.chat(request(n), CallOptions.of(KEY)));
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(e.getMessage()).contains("restart");
      }
    }
    assertThat(fixture.sends()).as("no provider call without a durable intent").isZero();
    assertThat(ledger.settled).isEmpty();
  }

  @Test
  void synchronousSettlementCommitsBeforeTheCallReturnsAndFailsTheCallWhenItCannot(
      @TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger)
        .synchronousSettlement(true).drainTimeout(Duration.ZERO).open()) {
      Gateway gateway = gateway(accounting, FixtureProvider.builder().build());
      ChatResult ok = gateway.chat(request(1), CallOptions.of(KEY));
      assertThat(ledger.settled).containsKey(ok.eventId());

      ledger.failWith.set(new IllegalStateException("database down"));
      PointsmanException e = catchThrowableOfType(PointsmanException.class,
          () -> gateway.chat(request(2), CallOptions.of(KEY)));
      assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(e.getMessage()).contains("durable in the journal");
      // Typed, so the gateway ends the call's hold: the record is durable.
      assertThat(e).isInstanceOf(io.pointsman.spi.RecordDurableException.class);
    }
    RecordingSettlement later = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(config(dir), later).open()) {
      assertThat(reopened.recovery().resettled()).hasSize(1);
      assertThat(reopened.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }
    assertThat(later.settled).hasSize(1);
  }

  @Test
  void usageRecordsSurviveTheCodecExactly(@TempDir Path dir) {
    RecordingSettlement ledger = new RecordingSettlement();
    ChatResult result;
    try (JournalAccounting accounting = JournalAccounting.builder(config(dir), ledger).open()) {
      result = gateway(accounting, FixtureProvider.builder().build()).chat(request(7),
          CallOptions.builder(KEY).tag("checkout").build());
      assertThat(accounting.awaitDrained(Duration.ofSeconds(10))).isTrue();
    }
    var live = ledger.settled.get(result.eventId());
    assertThat(UsageCodec.decodeRecord(UsageCodec.encode(live))).isEqualTo(live);
    DispatchIntent i = intent("e", 3);
    assertThat(UsageCodec.decodeIntent(UsageCodec.encode(i))).isEqualTo(i);
    DispatchIntent later = new DispatchIntent("e2", "r", 2, "k1", null, null, null, Set.of(),
        "m", "d", "fixture", "e2", 1, 2, Instant.parse("2026-01-01T00:00:01Z"),
        Instant.parse("2025-12-31T23:59:59Z"));
    assertThat(UsageCodec.decodeIntent(UsageCodec.encode(later)).callStartedAt())
        .isEqualTo(later.callStartedAt());
    // An intent written before the call's start was recorded (12 bytes shorter) still reads.
    byte[] full = UsageCodec.encode(later);
    byte[] older = java.util.Arrays.copyOf(full, full.length - 12);
    assertThat(UsageCodec.decodeIntent(older).callStartedAt()).isEqualTo(later.at());
    assertThat(List.copyOf(live.tags())).contains("checkout");
  }
}
