package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing in the accounting waits for a delivered mark's linger: the settlers commit batch after
 * batch while the marks of the earlier ones are still held, synchronous settlement returns once
 * the ledger committed, and opening returns while the marks recovery writes are held. The
 * linger is an hour, so a wait for it could only end by a test timeout.
 */
class AccountingMarkLingerTest {
  private static final Duration HOUR = Duration.ofHours(1);
  /** A guard against a hang, far above any run of these tests; nothing is timed by it. */
  private static final Duration HANG = Duration.ofSeconds(60);

  private static JournalConfig config(JournalIO io) {
    return JournalConfig.builder(CrashScenario.DIRECTORY).io(io).segmentBytes(256 << 10)
        .preallocationChunkBytes(64 << 10).markLinger(HOUR).build();
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

  /** Holds every commit until opened. */
  private static final class GatedSettlement implements Settlement {
    final RecordingSettlement inner = new RecordingSettlement();
    final CountDownLatch open = new CountDownLatch(1);

    @Override
    public void settle(List<UsageRecord> records) {
      await();
      inner.settle(records);
    }

    @Override
    public void interrupted(List<InterruptedCall> calls) {
      await();
      inner.interrupted(calls);
    }

    private void await() {
      try {
        open.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
  }

  @Test
  void settlersCommitEveryBatchWhileTheMarksOfEarlierBatchesAreStillHeld() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    GatedSettlement settlement = new GatedSettlement();
    int calls = 200;
    try (JournalAccounting accounting = JournalAccounting.builder(config(io), settlement)
        .maxBatch(10).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      for (int i = 0; i < calls; i++) {
        gateway.chat(JournalAccountingTest.request(i), CallOptions.of(JournalAccountingTest.KEY));
      }
      // From here on no append comes: every mark written now is held for the hour.
      settlement.open.countDown();
      awaitCondition("all " + calls + " records are settled",
          () -> accounting.settledCount() == calls);
      awaitCondition("the journal holds marks",
          () -> accounting.journalMetrics().heldMarks() > 0);
      JournalMetrics metrics = accounting.journalMetrics();
      assertThat(settlement.inner.batches.get()).as("twenty batches of ten")
          .isGreaterThanOrEqualTo(calls / 10);
      assertThat(metrics.markOnlyForces()).as("no mark was forced on its own").isZero();
      assertThat(metrics.undeliveredRecords())
          .as("the intents and records of all calls are still undelivered on disk")
          .isEqualTo(2L * calls);
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30)))
          .as("nothing waits for settlement").isTrue();
    }
    // close() forced the held marks: nothing is handed over again.
    RecordingSettlement after = new RecordingSettlement();
    try (JournalAccounting reopened = JournalAccounting.builder(
        JournalConfig.builder(CrashScenario.DIRECTORY)
            .io(CrashSimulatingJournalIO.fromImage(io.durableImage())).segmentBytes(256 << 10)
            .preallocationChunkBytes(64 << 10).build(), after).open()) {
      assertThat(reopened.recovery().resettled()).isEmpty();
      assertThat(reopened.recovery().interrupted()).isEmpty();
    }
    assertThat(settlement.inner.settled).hasSize(calls);
  }

  @Test
  void synchronousSettlementReturnsOnceCommittedWithoutWaitingForTheMarks() {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    RecordingSettlement ledger = new RecordingSettlement();
    try (JournalAccounting accounting = JournalAccounting.builder(config(io), ledger)
        .synchronousSettlement(true).open()) {
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      ChatResult result = assertTimeoutPreemptively(HANG, () -> gateway.chat(
          JournalAccountingTest.request(1), CallOptions.of(JournalAccountingTest.KEY)));
      assertThat(ledger.settled).containsKey(result.eventId());
      awaitCondition("the journal holds the marks",
          () -> accounting.journalMetrics().heldMarks() == 1);
      JournalMetrics metrics = accounting.journalMetrics();
      assertThat(metrics.undeliveredRecords())
          .as("the call returned while its intent's and record's marks are held").isEqualTo(2);
      assertThat(metrics.markOnlyForces()).isZero();
    }
    try (SegmentedJournal reopened = SegmentedJournal.open(JournalConfig.builder(
        CrashScenario.DIRECTORY).io(CrashSimulatingJournalIO.fromImage(io.durableImage()))
        .segmentBytes(256 << 10).preallocationChunkBytes(64 << 10).build())) {
      assertThat(reopened.recovered()).as("close forced the marks").hasSize(2)
          .allMatch(RecoveredRecord::delivered);
    }
  }

  @Test
  void marksASynchronousCallCannotEnqueueGoToTheSettlersAndTheCallStillSucceeds()
      throws Exception {
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
    JournalConfig config = JournalConfig.builder(CrashScenario.DIRECTORY).io(io)
        .segmentBytes(256 << 10).preallocationChunkBytes(64 << 10).queueCapacity(2)
        .enqueueTimeout(Duration.ofMillis(200)).build();
    RecordingSettlement ledger = new RecordingSettlement();
    AtomicReference<JournalAccounting> opened = new AtomicReference<>();
    List<Thread> fillers = new ArrayList<>();
    AtomicInteger commits = new AtomicInteger();
    Settlement stallingOnce = new Settlement() {
      @Override
      public void settle(List<UsageRecord> records) {
        ledger.settle(records);
        if (commits.incrementAndGet() == 1) {
          // Committed; now the disk stalls and the journal's queue fills, so the call's marks
          // are refused with back-pressure.
          stall.set(true);
          fillers.add(filler(opened.get(), "filler-1"));
          await(inForce);
          fillers.add(filler(opened.get(), "filler-2"));
          fillers.add(filler(opened.get(), "filler-3"));
          awaitCondition("the journal queue is full",
              () -> opened.get().journalMetrics().queueDepth() == 2);
        }
      }

      @Override
      public void interrupted(List<InterruptedCall> calls) {
        ledger.interrupted(calls);
      }
    };
    ChatResult result;
    try (JournalAccounting accounting = JournalAccounting.builder(config, stallingOnce)
        .synchronousSettlement(true).retryBackoff(Duration.ofMillis(1), Duration.ofMillis(20))
        .open()) {
      opened.set(accounting);
      Gateway gateway = JournalAccountingTest.gateway(accounting,
          FixtureProvider.builder().build());
      result = gateway.chat(JournalAccountingTest.request(1),
          CallOptions.of(JournalAccountingTest.KEY));
      assertThat(ledger.settled).as("committed before the call returned")
          .containsKey(result.eventId());
      stall.set(false);
      release.countDown();
      for (Thread filler : fillers) {
        filler.join();
      }
      awaitCondition("the settlers settled the record again",
          () -> commits.get() >= 2 && accounting.backlog() == 0);
    }
    assertThat(ledger.deliveries.get()).as("the call's commit, then the settlers'").isEqualTo(2);
    try (JournalAccounting reopened = JournalAccounting.builder(
        JournalConfig.builder(CrashScenario.DIRECTORY)
            .io(CrashSimulatingJournalIO.fromImage(io.durableImage())).segmentBytes(256 << 10)
            .preallocationChunkBytes(64 << 10).build(), new RecordingSettlement()).open()) {
      assertThat(reopened.recovery().resettled()).as("the settlers marked the record").isEmpty();
    }
  }

  private static Thread filler(JournalAccounting accounting, String eventId) {
    Thread t = new Thread(() -> accounting.dispatched(JournalAccountingTest.intent(eventId, 1)));
    t.start();
    return t;
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
  void openingDoesNotWaitForTheMarksOfIntentsWhoseRecordWasDelivered(@TempDir Path first)
      throws Exception {
    // A real usage record, to journal by hand.
    RecordingSettlement ledger = new RecordingSettlement();
    UsageRecord record;
    try (JournalAccounting accounting = JournalAccounting.builder(
        JournalAccountingTest.config(first), ledger).open()) {
      String eventId = JournalAccountingTest.gateway(accounting, FixtureProvider.builder().build())
          .chat(JournalAccountingTest.request(1), CallOptions.of(JournalAccountingTest.KEY))
          .eventId();
      assertThat(accounting.awaitDrained(Duration.ofSeconds(30))).isTrue();
      record = ledger.settled.get(eventId);
    }
    // A crash after settlement committed left the record's mark durable and not its intent's.
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(
        CrashScenario.DIRECTORY).io(io).segmentBytes(256 << 10).preallocationChunkBytes(64 << 10)
        .markLinger(Duration.ZERO).build())) {
      long intent = journal.append(UsageCodec.REQUEST_AND_DISPATCH, UsageCodec.encode(
          JournalAccountingTest.intent(record.eventId(), 1))).join();
      long settled = journal.append(UsageCodec.SETTLED,
          UsageCodec.encode(record, new long[] {intent})).join();
      journal.markDelivered(settled).join();
    }
    CrashSimulatingJournalIO restarted = CrashSimulatingJournalIO.fromImage(io.durableImage());
    RecordingSettlement after = new RecordingSettlement();
    JournalAccounting accounting = assertTimeoutPreemptively(HANG,
        () -> JournalAccounting.builder(config(restarted), after).open());
    try {
      assertThat(accounting.recovery().resettled()).isEmpty();
      assertThat(accounting.recovery().interrupted()).isEmpty();
      awaitCondition("the journal holds the intent's mark",
          () -> accounting.journalMetrics().heldMarks() == 1);
      assertThat(accounting.journalMetrics().undeliveredRecords())
          .as("the intent's mark is not durable").isEqualTo(1);
    } finally {
      accounting.close();
    }
    assertThat(after.deliveries.get()).isZero();
    try (SegmentedJournal reopened = SegmentedJournal.open(JournalConfig.builder(
        CrashScenario.DIRECTORY).io(CrashSimulatingJournalIO.fromImage(restarted.durableImage()))
        .segmentBytes(256 << 10).preallocationChunkBytes(64 << 10).build())) {
      assertThat(reopened.recovered()).as("close forced the intent's mark").hasSize(2)
          .allMatch(RecoveredRecord::delivered);
    }
  }
}
