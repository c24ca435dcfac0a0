package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Preparing the next segment (zero-fill, force, rename, directory sync) happens beside the
 * commit path: a caller's append never waits for it unless a segment fills before its successor
 * is ready.
 */
class SegmentPreparationTest {
  private static final Path DIR = CrashScenario.DIRECTORY;
  private static final int SEGMENT_BYTES = 64 << 10;

  private static boolean isPreparation(Path path) {
    return path.getFileName().toString().endsWith(".prep");
  }

  private static byte[] payload(int i) {
    return ("record-" + i + "-" + "y".repeat(100)).getBytes(StandardCharsets.UTF_8);
  }

  /** Holds every preparation force after the first (the one that creates the first segment). */
  private static final class HeldPreparation implements Runnable {
    final AtomicInteger forces = new AtomicInteger();
    final CountDownLatch stalled = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public void run() {
      if (forces.incrementAndGet() == 1) {
        return;
      }
      stalled.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  @Test
  void appendsCompleteWhileThePreparationOfTheNextSegmentIsStalled() throws Exception {
    HeldPreparation held = new HeldPreparation();
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO()
        .beforeForceOf(SegmentPreparationTest::isPreparation, held);
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(DIR).io(io)
        .segmentBytes(SEGMENT_BYTES).preallocationChunkBytes(512).build())) {
      try {
        assertThat(held.stalled.await(10, TimeUnit.SECONDS))
            .as("the successor's preparation reaches its force").isTrue();
        List<Long> acknowledged = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
          // 50 small records stay inside the first segment: none of them needs the successor.
          acknowledged.add(journal.append((byte) 1, payload(i)).get(10, TimeUnit.SECONDS));
        }
        assertThat(acknowledged).hasSize(50);
        assertThat(journal.metrics().segmentsCreated()).as("still only the first segment")
            .isEqualTo(1);
      } finally {
        held.release.countDown();
      }
    }
  }

  @Test
  void aSegmentThatFillsWaitsForItsStalledSuccessorAndLosesNothing() throws Exception {
    HeldPreparation held = new HeldPreparation();
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO()
        .beforeForceOf(SegmentPreparationTest::isPreparation, held);
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(DIR).io(io)
        .segmentBytes(SEGMENT_BYTES).preallocationChunkBytes(512).build())) {
      try {
        assertThat(held.stalled.await(10, TimeUnit.SECONDS)).isTrue();
        // More than a segment holds: the rotation must wait for the successor.
        for (int i = 0; i < 1_000; i++) {
          futures.add(journal.append((byte) 1, payload(i)));
        }
        CompletableFuture<Long> last = futures.get(futures.size() - 1);
        assertThat(last).as("the record past the full segment waits for its successor")
            .isNotDone();
      } finally {
        held.release.countDown();
      }
      for (CompletableFuture<Long> f : futures) {
        f.get(10, TimeUnit.SECONDS);
      }
      // The first segment and at least one successor (the next one is prepared lazily).
      assertThat(journal.metrics().segmentsCreated()).isGreaterThanOrEqualTo(2);
    }
    try (SegmentedJournal reopened = SegmentedJournal.open(JournalConfig.builder(DIR)
        .io(CrashSimulatingJournalIO.fromImage(io.durableImage()))
        .segmentBytes(SEGMENT_BYTES).preallocationChunkBytes(512).build())) {
      assertThat(reopened.recovered()).hasSize(futures.size());
    }
  }

  @Test
  void onTheIoThreadThePreparationKeepsItsFixedOrder() throws Exception {
    HeldPreparation held = new HeldPreparation();
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO()
        .beforeForceOf(SegmentPreparationTest::isPreparation, held);
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(DIR).io(io)
        .segmentBytes(SEGMENT_BYTES).preallocationChunkBytes(512).backgroundPreparation(false)
        .build())) {
      CompletableFuture<Long> append;
      try {
        assertThat(held.stalled.await(10, TimeUnit.SECONDS)).isTrue();
        append = journal.append((byte) 1, payload(0));
        assertThat(append).as("inline, an append waits behind the preparation step")
            .isNotDone();
      } finally {
        held.release.countDown();
      }
      assertThat(append.get(10, TimeUnit.SECONDS)).isNotNegative();
    }
  }
}
