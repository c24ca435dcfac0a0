package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * Delivered marks alone wait for a caller append's force ({@link JournalConfig#markLinger()}):
 * they cost no force of their own while appends keep coming, are forced on their own when the
 * linger elapses or the journal closes, and reclaim a segment only after a force covered them.
 * A linger of an hour makes "held" deterministic: nothing but an append, the held limit or a
 * close ends it within a test.
 */
class MarkLingerTest {
  private static final Duration HOUR = Duration.ofHours(1);

  private static JournalConfig.Builder config(CrashSimulatingJournalIO io, Duration linger) {
    return JournalConfig.builder(CrashScenario.DIRECTORY).io(io).markLinger(linger);
  }

  private static byte[] payload(int i, int length) {
    byte[] payload = new byte[length];
    Arrays.fill(payload, (byte) i);
    return payload;
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

  @Test
  void marksBetweenSpacedAppendsCostNoForceOfTheirOwn() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    SegmentedJournal journal = SegmentedJournal.open(config(io, HOUR).segmentBytes(64 << 10)
        .build());
    journal.awaitQuiescent();
    int appends = 20;
    List<CompletableFuture<Void>> marks = new ArrayList<>();
    for (int i = 0; i < appends; i++) {
      long sequence = journal.append((byte) 1, payload(i, 100)).join();
      if (i > 0) {
        assertThat(marks.get(i - 1)).as("the mark of record %d rode on the next append's force",
            i - 1).isCompletedWithValue(null);
      }
      CompletableFuture<Void> mark = journal.markDelivered(sequence);
      marks.add(mark);
      // The I/O thread has taken the mark and holds it.
      journal.awaitQuiescent();
      assertThat(mark).as("a mark alone is held, not forced").isNotDone();
      assertThat(journal.metrics().heldMarks()).isEqualTo(1);
      Thread.sleep(5);
    }
    JournalMetrics metrics = journal.metrics();
    assertThat(metrics.appends()).isEqualTo(appends);
    assertThat(metrics.forces()).as("one force per append unit, none for the marks")
        .isEqualTo(appends);
    assertThat(metrics.markOnlyForces()).isZero();
    assertThat(metrics.recordForces()).isEqualTo(appends);
    assertThat(metrics.units()).as("the appends and every mark but the last, durable")
        .isEqualTo(2L * appends - 1);
    assertThat(metrics.undeliveredRecords()).isEqualTo(1);

    journal.close();
    assertThat(marks.get(appends - 1)).as("close forces the held mark")
        .isCompletedWithValue(null);
    JournalMetrics closed = journal.metrics();
    assertThat(closed.forces()).isEqualTo(appends + 1L);
    assertThat(closed.markOnlyForces()).isEqualTo(1);
    assertThat(closed.heldMarks()).isZero();
    try (SegmentedJournal reopened = SegmentedJournal.open(config(
        CrashSimulatingJournalIO.fromImage(io.durableImage()), HOUR).segmentBytes(64 << 10)
        .build())) {
      assertThat(reopened.recovered()).hasSize(appends).allMatch(RecoveredRecord::delivered);
    }
  }

  @Test
  void aHeldMarkWithNoLaterAppendIsForcedOnItsOwnWhenTheLingerElapses() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    try (SegmentedJournal journal = SegmentedJournal.open(config(io, Duration.ofMillis(20))
        .segmentBytes(64 << 10).build())) {
      long sequence = journal.append((byte) 1, payload(1, 100)).join();
      journal.markDelivered(sequence).get(30, TimeUnit.SECONDS);
      JournalMetrics metrics = journal.metrics();
      assertThat(metrics.forces()).isEqualTo(2);
      assertThat(metrics.markOnlyForces()).as("the mark's own force is counted apart")
          .isEqualTo(1);
      assertThat(metrics.recordForces()).isEqualTo(1);
      assertThat(metrics.heldMarks()).isZero();
      // Applied after the force, once the future completed.
      awaitCondition("the mark is applied", () -> journal.undeliveredRecords() == 0);
    }
  }

  @Test
  void heldMarksOverTheHeldLimitAreForcedWithoutWaitingForTheLinger() {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    try (SegmentedJournal journal = SegmentedJournal.open(config(io, HOUR)
        .segmentBytes(8 << 20).build())) {
      long sequence = journal.append((byte) 1, payload(1, 100)).join();
      // Unknown sequence numbers are ignored; 300 units of 512 make more than 1 MiB of marks.
      long[] many = new long[300 * 512];
      for (int i = 0; i < many.length; i++) {
        many[i] = sequence + 1 + i;
      }
      journal.markDelivered(many);
      awaitCondition("the held marks were forced",
          () -> journal.metrics().markOnlyForces() >= 1);
      assertThat(journal.metrics().heldMarks()).as("what is left held is under 1 MiB")
          .isLessThan(256);
    }
  }

  // ---- reclamation waits for the marks' force, through a power loss ----

  private static final int SEGMENT = 1024;

  /** Fills the first segment and starts the second; returns the first segment's sequences. */
  private static long[] fillFirstSegment(SegmentedJournal journal, List<Long> acknowledged)
      throws Exception {
    for (int i = 0; i < 7; i++) {
      acknowledged.add(journal.append((byte) 1, payload(i, 150)).join());
    }
    journal.awaitQuiescent();
    Map.Entry<Long, SegmentState> second = journal.readableSegments().higherEntry(1L);
    assertThat(second).as("the appends reached a second segment").isNotNull();
    return acknowledged.stream().mapToLong(Long::longValue)
        .filter(s -> s < second.getKey()).toArray();
  }

  private static SegmentedJournal open(CrashSimulatingJournalIO io, Duration linger,
      SegmentedJournal.Defect defect) {
    return SegmentedJournal.open(config(io, linger).segmentBytes(SEGMENT)
        .preallocationChunkBytes(512).backgroundPreparation(false).build(), defect);
  }

  /**
   * Marks every record of the first segment, then loses power after the next write (which
   * carries the marks) and before its force; with {@code callerWrite} the write is a caller
   * append's that the held marks ride on, else the marks' own after the linger. Checks every
   * crash image: the first segment survives with all its records, and where no unsynced write
   * survived they come back undelivered (to be delivered again).
   *
   * @return null if the guarantee held, else what broke
   */
  private static String crashBeforeTheMarksForce(boolean callerWrite,
      SegmentedJournal.Defect defect) throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().tracing();
    SegmentedJournal journal = open(io, callerWrite ? HOUR : Duration.ofMillis(20), defect);
    journal.awaitQuiescent();
    List<Long> acknowledged = new ArrayList<>();
    long[] first = fillFirstSegment(journal, acknowledged);
    if (callerWrite) {
      CompletableFuture<Void> marks = journal.markDelivered(first);
      journal.awaitQuiescent();
      assertThat(marks).as("the marks are held").isNotDone();
      // The next step (the append's write, carrying the marks) happens; its force does not.
      io.crashAfter(io.operations() + 1);
      CompletableFuture<Long> append = journal.append((byte) 1, payload(9, 10));
      assertThatThrownBy(() -> append.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(JournalPoisonedException.class);
      assertThatThrownBy(() -> marks.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(JournalPoisonedException.class);
    } else {
      io.crashAfter(io.operations() + 1);
      CompletableFuture<Void> marks = journal.markDelivered(first);
      assertThatThrownBy(() -> marks.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(JournalPoisonedException.class);
    }
    journal.close();
    List<String> trace = io.trace();
    String last = trace.get(trace.size() - 1);
    if (!last.contains("write segment-")) {
      return "the last step before the power loss was not the marks' write: " + last;
    }
    String firstSegment = RecordFormat.segmentFileName(1);
    for (int variant = 0; variant < 4; variant++) {
      CrashSimulatingJournalIO.Image image = io.crashImage(new Random(variant), variant);
      if (!image.names(CrashScenario.DIRECTORY).contains(firstSegment)) {
        return "crash image " + variant + " lost " + firstSegment + " before its marks were"
            + " durable";
      }
      List<RecoveredRecord> records;
      try (SegmentedJournal recovered = open(CrashSimulatingJournalIO.fromImage(image), HOUR,
          SegmentedJournal.Defect.NONE)) {
        records = recovered.recovered();
      }
      List<Long> sequences = records.stream().map(RecoveredRecord::sequence).toList();
      if (!sequences.containsAll(acknowledged)) {
        return "crash image " + variant + " recovered " + sequences + ", not every acknowledged"
            + " record " + acknowledged;
      }
      if (variant == 0) {
        for (RecoveredRecord record : records) {
          if (record.delivered()) {
            return "with no unsynced write surviving, " + record + " came back delivered";
          }
        }
      }
    }
    return null;
  }

  @Test
  void aPowerLossBetweenTheWriteAndTheForceOfHeldMarksDeletesNoSegment() throws Exception {
    assertThat(crashBeforeTheMarksForce(true, SegmentedJournal.Defect.NONE))
        .as("marks riding on a caller's write").isNull();
    assertThat(crashBeforeTheMarksForce(false, SegmentedJournal.Defect.NONE))
        .as("marks written on their own after the linger").isNull();
  }

  @Test
  void theSameCheckCatchesAJournalThatReclaimsBeforeTheMarksAreForced() throws Exception {
    assertThat(crashBeforeTheMarksForce(true, SegmentedJournal.Defect.RECLAIM_BEFORE_MARK_FORCE))
        .contains("lost " + RecordFormat.segmentFileName(1));
  }
}
