package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Device errors, slow disks and interrupted callers. */
class JournalFaultTest {
  private static final Path DIR = CrashScenario.DIRECTORY;

  private static JournalConfig.Builder config(JournalIO io) {
    return JournalConfig.builder(DIR).io(io).segmentBytes(1024).preallocationChunkBytes(512);
  }

  private static byte[] payload(int i) {
    return ("record-" + i + "-" + "x".repeat(i % 50)).getBytes(StandardCharsets.UTF_8);
  }

  private static List<RecoveredRecord> recoverDurable(CrashSimulatingJournalIO io) {
    try (SegmentedJournal journal = SegmentedJournal.open(config(
        CrashSimulatingJournalIO.fromImage(io.durableImage())).build())) {
      return journal.recovered();
    }
  }

  @Test
  void noSpaceWhilePreallocatingTheFirstSegmentFailsOpen() {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO()
        .noSpaceOnWrite(path -> path.getFileName().toString().endsWith(".prep"));
    assertThatThrownBy(() -> SegmentedJournal.open(config(io).build()))
        .isInstanceOf(UncheckedIOException.class)
        .hasRootCauseMessage("No space left on device");
  }

  @Test
  void noSpaceWhilePreallocatingPoisonsTheJournalAndKeepsAcknowledgedRecords() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().noSpaceOnWrite(
        path -> path.getFileName().toString().equals("segment-0000000000000003.prep"));
    SegmentedJournal journal = SegmentedJournal.open(config(io).build());
    List<Long> acknowledged = new ArrayList<>();
    Throwable failure = null;
    for (int i = 0; i < 100 && failure == null; i++) {
      try {
        acknowledged.add(journal.append((byte) 1, payload(i)).get());
      } catch (ExecutionException e) {
        failure = e.getCause();
      } catch (JournalPoisonedException e) {
        failure = e;
      }
    }
    journal.close();
    assertThat(failure).isInstanceOf(JournalPoisonedException.class)
        .hasMessageContaining("restart")
        .hasRootCauseMessage("No space left on device");
    assertThat(journal.isPoisoned()).isTrue();
    assertThat(acknowledged).isNotEmpty();
    assertThat(recoverDurable(io)).extracting(RecoveredRecord::sequence)
        .containsAll(acknowledged);
  }

  @Test
  void noSpaceWhileAppendingFailsTheBatchAndRefusesLaterAppends() throws Exception {
    AtomicBoolean full = new AtomicBoolean();
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO()
        .noSpaceOnWrite(path -> full.get() && path.getFileName().toString().endsWith(".log"));
    SegmentedJournal journal = SegmentedJournal.open(config(io).build());
    List<Long> acknowledged = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      acknowledged.add(journal.append((byte) 1, payload(i)).get());
    }
    full.set(true);
    CompletableFuture<Long> failed = journal.append((byte) 1, payload(5));
    assertThatThrownBy(failed::get).hasCauseInstanceOf(JournalPoisonedException.class)
        .hasRootCauseMessage("No space left on device");
    assertThatThrownBy(() -> journal.append((byte) 1, payload(6)))
        .isInstanceOf(JournalPoisonedException.class)
        .hasMessageContaining("restart the process");
    assertThatThrownBy(() -> journal.markDelivered(acknowledged.get(0)))
        .isInstanceOf(JournalPoisonedException.class);
    journal.close();
    assertThat(recoverDurable(io)).extracting(RecoveredRecord::sequence)
        .containsExactlyElementsOf(acknowledged);
  }

  @Test
  void ioErrorOnForceFailsEveryWaiterOfTheBatchAndTheForceIsNeverRetried() throws Exception {
    CountDownLatch firstForceEntered = new CountDownLatch(1);
    CountDownLatch releaseFirstForce = new CountDownLatch(1);
    AtomicInteger forces = new AtomicInteger();
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    SegmentedJournal journal = SegmentedJournal.open(config(io).build());
    journal.awaitQuiescent();
    io.beforeForce(() -> {
      if (forces.incrementAndGet() == 1) {
        firstForceEntered.countDown();
        await(releaseFirstForce);
      }
    });
    io.ioErrorOnForce(path -> forces.get() >= 2);
    CompletableFuture<Long> first = journal.append((byte) 1, payload(0));
    firstForceEntered.await();
    List<CompletableFuture<Long>> batch = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      batch.add(journal.append((byte) 1, payload(i)));
    }
    releaseFirstForce.countDown();

    assertThat(first.get()).isEqualTo(1L);
    for (CompletableFuture<Long> waiter : batch) {
      assertThatThrownBy(waiter::get).hasCauseInstanceOf(JournalPoisonedException.class)
          .hasRootCauseMessage("Input/output error");
    }
    journal.awaitQuiescent();
    int forceCallsAfterFailure = io.forceCalls();
    assertThatThrownBy(() -> journal.append((byte) 1, payload(9)))
        .isInstanceOf(JournalPoisonedException.class)
        .hasMessageContaining("restart");
    journal.close();
    assertThat(io.forceCalls()).as("no force after the failed one").isEqualTo(forceCallsAfterFailure);
    assertThat(journal.metrics().batchRecords().getMaxValue()).isEqualTo(1);
    assertThat(recoverDurable(io)).extracting(RecoveredRecord::sequence).containsExactly(1L);
  }

  @Test
  void slowForceQueuesAppendsAndAFullQueueAppliesBackPressure() throws Exception {
    CountDownLatch forceEntered = new CountDownLatch(1);
    CountDownLatch diskCatchesUp = new CountDownLatch(1);
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    SegmentedJournal journal = SegmentedJournal.open(config(io).queueCapacity(4).build());
    journal.awaitQuiescent();
    io.beforeForce(() -> {
      forceEntered.countDown();
      await(diskCatchesUp);
    });
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    futures.add(journal.append((byte) 1, payload(0)));
    forceEntered.await();
    for (int i = 1; i <= 4; i++) {
      futures.add(journal.append((byte) 1, payload(i)));
    }
    assertThat(journal.metrics().queueDepth()).isEqualTo(4);

    AtomicReference<CompletableFuture<Long>> blockedResult = new AtomicReference<>();
    Thread blocked = new Thread(() -> blockedResult.set(journal.append((byte) 1, payload(5))));
    blocked.start();
    awaitState(blocked, Thread.State.TIMED_WAITING);
    assertThat(blockedResult.get()).as("the appender waits while the queue is full").isNull();
    assertThat(futures).noneMatch(CompletableFuture::isDone);

    diskCatchesUp.countDown();
    blocked.join();
    futures.add(blockedResult.get());
    for (int i = 0; i < futures.size(); i++) {
      assertThat(futures.get(i).get()).isEqualTo(i + 1L);
    }
    assertThat(journal.isPoisoned()).isFalse();
    journal.close();
  }

  @Test
  void fullQueueFailsWithBackPressureExceptionAfterTheEnqueueTimeout() throws Exception {
    CountDownLatch forceEntered = new CountDownLatch(1);
    CountDownLatch diskCatchesUp = new CountDownLatch(1);
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    SegmentedJournal journal = SegmentedJournal.open(
        config(io).queueCapacity(2).enqueueTimeout(Duration.ZERO).build());
    journal.awaitQuiescent();
    io.beforeForce(() -> {
      forceEntered.countDown();
      await(diskCatchesUp);
    });
    CompletableFuture<Long> first = journal.append((byte) 1, payload(0));
    forceEntered.await();
    CompletableFuture<Long> second = journal.append((byte) 1, payload(1));
    CompletableFuture<Long> third = journal.append((byte) 1, payload(2));
    assertThatThrownBy(() -> journal.append((byte) 1, payload(3)))
        .isInstanceOf(JournalBackPressureException.class)
        .hasMessageContaining("queue stayed full");
    diskCatchesUp.countDown();
    assertThat(List.of(first.get(), second.get(), third.get())).containsExactly(1L, 2L, 3L);
    assertThat(journal.append((byte) 1, payload(4)).get()).isEqualTo(4L);
    journal.close();
    assertThat(recoverDurable(io)).hasSize(4);
  }

  @Test
  void interruptingAnAppenderBlockedOnAFullQueueLeavesTheJournalWorking() throws Exception {
    CountDownLatch forceEntered = new CountDownLatch(1);
    CountDownLatch diskCatchesUp = new CountDownLatch(1);
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    SegmentedJournal journal = SegmentedJournal.open(config(io).queueCapacity(1).build());
    journal.awaitQuiescent();
    io.beforeForce(() -> {
      forceEntered.countDown();
      await(diskCatchesUp);
    });
    CompletableFuture<Long> first = journal.append((byte) 1, payload(0));
    forceEntered.await();
    CompletableFuture<Long> second = journal.append((byte) 1, payload(1));
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean interruptKept = new AtomicBoolean();
    Thread appender = new Thread(() -> {
      try {
        journal.append((byte) 1, payload(2));
      } catch (Throwable e) {
        thrown.set(e);
        interruptKept.set(Thread.currentThread().isInterrupted());
      }
    });
    appender.start();
    awaitState(appender, Thread.State.TIMED_WAITING);
    appender.interrupt();
    appender.join();
    assertThat(thrown.get()).isInstanceOf(JournalInterruptedException.class);
    assertThat(interruptKept).isTrue();
    diskCatchesUp.countDown();
    assertThat(first.get()).isEqualTo(1L);
    assertThat(second.get()).isEqualTo(2L);
    assertThat(journal.append((byte) 1, payload(3)).get()).isEqualTo(3L);
    journal.close();
    assertThat(recoverDurable(io)).extracting(r -> new String(r.payload(), StandardCharsets.UTF_8))
        .doesNotContain(new String(payload(2), StandardCharsets.UTF_8))
        .hasSize(3);
  }

  @Test
  void interruptedAppendersDoNotCloseTheFileForOthers(@TempDir Path directory) throws Exception {
    JournalConfig config = JournalConfig.builder(directory).segmentBytes(64 << 10).build();
    List<CompletableFuture<Long>> futures = java.util.Collections.synchronizedList(new ArrayList<>());
    AtomicInteger interruptsSeen = new AtomicInteger();
    try (SegmentedJournal journal = SegmentedJournal.open(config)) {
      List<Thread> threads = new ArrayList<>();
      for (int t = 0; t < 8; t++) {
        int thread = t;
        threads.add(new Thread(() -> {
          for (int i = 0; i < 100; i++) {
            if (i % 7 == thread % 7) {
              // An interrupt pending while appending must not reach the file channel.
              Thread.currentThread().interrupt();
            }
            CompletableFuture<Long> future = journal.append((byte) 2, payload(thread * 1000 + i));
            futures.add(future);
            try {
              future.get();
            } catch (InterruptedException e) {
              interruptsSeen.incrementAndGet();
            } catch (ExecutionException e) {
              throw new AssertionError(e);
            }
          }
        }));
      }
      threads.forEach(Thread::start);
      for (Thread thread : threads) {
        thread.join();
      }
      for (CompletableFuture<Long> future : futures) {
        future.get(30, TimeUnit.SECONDS);
      }
      assertThat(journal.isPoisoned()).isFalse();
      assertThat(journal.append((byte) 2, payload(99_999)).get()).isPositive();
    }
    assertThat(interruptsSeen.get()).as("callers saw their own interrupts").isPositive();
    try (SegmentedJournal reopened = SegmentedJournal.open(config)) {
      assertThat(reopened.recovered()).hasSize(801);
    }
  }

  @Test
  void appendsAfterCloseAreRefused() {
    SegmentedJournal journal = SegmentedJournal.open(config(new CrashSimulatingJournalIO()).build());
    journal.close();
    assertThatThrownBy(() -> journal.append((byte) 1, payload(1)))
        .isInstanceOf(JournalClosedException.class);
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  private static void awaitState(Thread thread, Thread.State state) throws InterruptedException {
    while (thread.getState() != state) {
      if (!thread.isAlive()) {
        throw new AssertionError("thread ended before reaching " + state);
      }
      Thread.sleep(1);
    }
  }
}
