package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * The settlers never stop: a delivered mark refused by back-pressure during a disk stall, then
 * an {@link Error} from the settlement, and settlement still catches up; a poisoned journal is
 * never forced again while the settler stays up and says so.
 */
class SettlerSupervisionTest {

  /** An error (not an exception) thrown by the settlement. */
  static final class SettlementError extends Error {
    private static final long serialVersionUID = 1L;

    SettlementError() {
      super("simulated error inside the settlement");
    }
  }

  /** A settlement that runs a hook before its n-th settle call commits. */
  static final class ScriptedSettlement implements Settlement {
    final RecordingSettlement inner = new RecordingSettlement();
    final AtomicInteger settleCalls = new AtomicInteger();
    volatile Runnable beforeFirst = () -> { };
    volatile boolean errorOnSecond;

    @Override
    public void settle(List<UsageRecord> records) {
      int n = settleCalls.incrementAndGet();
      if (n == 1) {
        beforeFirst.run();
      }
      if (n == 2 && errorOnSecond) {
        throw new SettlementError();
      }
      inner.settle(records);
    }

    @Override
    public void interrupted(List<InterruptedCall> calls) {
      inner.interrupted(calls);
    }
  }

  private static JournalConfig config(CrashSimulatingJournalIO io) {
    return JournalConfig.builder(CrashScenario.DIRECTORY).io(io).segmentBytes(64 * 1024)
        .preallocationChunkBytes(16 * 1024).queueCapacity(2)
        .enqueueTimeout(Duration.ofMillis(200)).build();
  }

  private static void awaitCondition(String what, BooleanSupplier condition) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting until " + what);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      if (!latch.await(30, TimeUnit.SECONDS)) {
        throw new AssertionError("latch timed out");
      }
    } catch (InterruptedException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void aFailedMarkThenAnErrorFromTheSettlementAndSettlementStillCatchesUp() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    AtomicBoolean stall = new AtomicBoolean();
    CountDownLatch inForce = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    io.beforeForce(() -> {
      if (stall.get()) {
        inForce.countDown();
        await(release);
      }
    });
    ScriptedSettlement settlement = new ScriptedSettlement();
    settlement.errorOnSecond = true;
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    List<Thread> fillers = new ArrayList<>();
    try (JournalAccounting accounting = JournalAccounting.builder(config(io), settlement)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      // The first batch commits, then the disk stalls and the journal's queue fills, so its
      // delivered marks are refused with back-pressure.
      settlement.beforeFirst = () -> {
        stall.set(true);
        fillers.add(caller(gateway, 100, acknowledged));
        await(inForce);
        fillers.add(caller(gateway, 101, acknowledged));
        fillers.add(caller(gateway, 102, acknowledged));
        awaitCondition("the journal queue is full",
            () -> accounting.journalMetrics().queueDepth() == 2);
      };
      acknowledged.add(gateway.chat(JournalAccountingTest.request(1),
          CallOptions.of(JournalAccountingTest.KEY)).eventId());
      awaitCondition("the marks were refused", () -> {
        String error = accounting.settlerState().lastError();
        return error != null && error.contains("JournalBackPressureException");
      });
      SettlerState stalled = accounting.settlerState();
      assertThat(stalled.running()).isTrue();
      assertThat(stalled.stalledSince()).isNotNull();
      assertThat(stalled.condition()).isEqualTo(SettlerState.Condition.DEGRADED);

      stall.set(false);
      release.countDown();
      for (Thread filler : fillers) {
        filler.join();
      }
      for (int i = 0; i < 5; i++) {
        acknowledged.add(gateway.chat(JournalAccountingTest.request(10 + i),
            CallOptions.of(JournalAccountingTest.KEY)).eventId());
      }
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30)))
          .as("settlement caught up after the failed mark and the error").isTrue();
      assertThat(acknowledged).hasSize(9);
      assertThat(settlement.inner.settled.keySet()).containsExactlyInAnyOrderElementsOf(
          acknowledged);
      assertThat(settlement.settleCalls.get()).as("the batch that met the error was retried")
          .isGreaterThanOrEqualTo(3);
      SettlerState after = accounting.settlerState();
      assertThat(after.running()).isTrue();
      assertThat(after.stalledSince()).isNull();
      assertThat(after.consecutiveFailures()).isZero();
      assertThat(after.lastSuccessAt()).isNotNull();
      assertThat(after.lastError()).contains("SettlementError");
      assertThat(after.condition()).isEqualTo(SettlerState.Condition.OK);
      assertThat(accounting.settlementFailures()).isGreaterThanOrEqualTo(2);
    }
    // Every mark, the refused one included, was written in the end: nothing is handed over
    // again.
    try (JournalAccounting reopened = JournalAccounting.builder(
        JournalConfig.builder(CrashScenario.DIRECTORY).io(
            CrashSimulatingJournalIO.fromImage(io.durableImage())).segmentBytes(64 * 1024)
            .preallocationChunkBytes(16 * 1024).build(), new RecordingSettlement()).open()) {
      assertThat(reopened.recovery().resettled()).isEmpty();
      assertThat(reopened.recovery().interrupted()).isEmpty();
    }
  }

  private static Thread caller(Gateway gateway, int i, Set<String> acknowledged) {
    Thread t = new Thread(() -> {
      ChatResult result = gateway.chat(JournalAccountingTest.request(i),
          CallOptions.of(JournalAccountingTest.KEY));
      acknowledged.add(result.eventId());
    });
    t.start();
    return t;
  }

  @Test
  void aPoisonedJournalIsNeverForcedAgainAndTheSettlerStaysUp() {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    ScriptedSettlement settlement = new ScriptedSettlement();
    // The batch commits, then the force of its delivered marks fails: the journal is poisoned.
    settlement.beforeFirst = () -> io.ioErrorOnForce(path -> true);
    try (JournalAccounting accounting = JournalAccounting.builder(config(io), settlement)
        .retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20)).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      ChatResult first = gateway.chat(JournalAccountingTest.request(1),
          CallOptions.of(JournalAccountingTest.KEY));
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      awaitCondition("the journal is poisoned", () -> accounting.settlerState().journalPoisoned());
      int forces = io.forceCalls();
      PointsmanException refused = catchThrowableOfType(PointsmanException.class,
          () -> gateway.chat(JournalAccountingTest.request(2),
              CallOptions.of(JournalAccountingTest.KEY)));
      assertThat(refused.status()).isEqualTo(Status.UNAVAILABLE);
      assertThat(refused.getMessage()).contains("restart");
      assertThat(io.forceCalls()).as("no force after the failed one").isEqualTo(forces);
      assertThat(settlement.inner.settled).containsOnlyKeys(first.eventId());
      assertThat(settlement.settleCalls.get()).as("the committed batch is not settled again")
          .isEqualTo(1);
      SettlerState state = accounting.settlerState();
      assertThat(state.running()).isTrue();
      assertThat(state.condition()).isEqualTo(SettlerState.Condition.FAILING);
    }
  }
}
