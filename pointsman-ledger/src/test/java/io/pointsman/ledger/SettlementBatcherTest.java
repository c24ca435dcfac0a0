package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SettlementBatcherTest {
  /** A settlement that records the batches it was handed, failing when told to. */
  private static final class RecordingSettlement implements Settlement {
    final List<List<String>> batches = new CopyOnWriteArrayList<>();
    volatile boolean fail;

    @Override
    public void settle(List<UsageRecord> records) {
      if (fail) {
        throw new IllegalStateException("database unavailable");
      }
      List<String> ids = new ArrayList<>();
      records.forEach(r -> ids.add(r.eventId()));
      batches.add(ids);
    }

    @Override
    public void interrupted(List<InterruptedCall> calls) {
      throw new UnsupportedOperationException();
    }
  }

  @Test
  void handsOverAFullBatchWithoutWaitingForTheLag() throws Exception {
    RecordingSettlement target = new RecordingSettlement();
    try (SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(3).maxLag(Duration.ofHours(1)).build()) {
      List<CompletableFuture<Void>> done = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        done.add(batcher.submit(Fixtures.record("b" + i, 10)));
      }
      CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
    }
    assertThat(target.batches).containsExactly(List.of("b0", "b1", "b2"));
  }

  @Test
  void handsOverAPartialBatchOnceItsOldestRecordWaitedTheLag() throws Exception {
    RecordingSettlement target = new RecordingSettlement();
    try (SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(100).maxLag(Duration.ofMillis(20)).build()) {
      batcher.submit(Fixtures.record("lonely", 10)).get(30, TimeUnit.SECONDS);
      assertThat(batcher.waiting()).isZero();
    }
    assertThat(target.batches).containsExactly(List.of("lonely"));
  }

  @Test
  void failedBatchFailsEveryFutureOfIt() {
    RecordingSettlement target = new RecordingSettlement();
    target.fail = true;
    try (SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(2).maxLag(Duration.ofHours(1)).build()) {
      CompletableFuture<Void> a = batcher.submit(Fixtures.record("a", 1));
      CompletableFuture<Void> b = batcher.submit(Fixtures.record("b", 1));
      for (CompletableFuture<Void> f : List.of(a, b)) {
        assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS))
            .isInstanceOf(ExecutionException.class)
            .hasRootCauseMessage("database unavailable");
      }
    }
  }

  @Test
  void closeSettlesWhatIsQueuedAndRefusesMore() throws Exception {
    RecordingSettlement target = new RecordingSettlement();
    SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(10).maxLag(Duration.ofHours(1)).build();
    CompletableFuture<Void> queued = batcher.submit(Fixtures.record("q", 1));

    batcher.close();

    assertThat(queued).isCompleted();
    queued.get();
    assertThat(target.batches).containsExactly(List.of("q"));
    assertThatThrownBy(() -> batcher.submit(Fixtures.record("late", 1)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void batchesNeverExceedTheMaximumUnderManyProducers() throws Exception {
    RecordingSettlement target = new RecordingSettlement();
    List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();
    try (SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(7).maxLag(Duration.ofMillis(5)).capacity(20).build()) {
      List<Thread> producers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        Thread p = new Thread(() -> {
          for (int i = 0; i < 100; i++) {
            done.add(batcher.submit(Fixtures.record("p" + id + "-" + i, 1)));
          }
        });
        producers.add(p);
        p.start();
      }
      for (Thread p : producers) {
        p.join();
      }
      CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    }
    assertThat(target.batches).allSatisfy(b -> assertThat(b).hasSizeBetween(1, 7));
    assertThat(target.batches.stream().mapToInt(List::size).sum()).isEqualTo(400);
  }

  @Test
  void drainerSurvivesAnErrorAndKeepsSettling() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    Settlement target = new Settlement() {
      @Override
      public void settle(List<UsageRecord> records) {
        if (calls.getAndIncrement() == 0) {
          throw new StackOverflowError("injected");
        }
      }

      @Override
      public void interrupted(List<InterruptedCall> c) {
        throw new UnsupportedOperationException();
      }
    };
    try (SettlementBatcher batcher = SettlementBatcher.builder(target)
        .maxBatch(1).maxLag(Duration.ofMillis(1)).capacity(1).build()) {
      CompletableFuture<Void> first = batcher.submit(Fixtures.record("e1", 1));
      assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(StackOverflowError.class);
      // The drainer is still there: later records settle, and submitters never block on a
      // dead drainer.
      List<CompletableFuture<Void>> later = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        later.add(batcher.submit(Fixtures.record("later" + i, 1)));
      }
      CompletableFuture.allOf(later.toArray(new CompletableFuture<?>[0]))
          .get(30, TimeUnit.SECONDS);
    }
    assertThat(calls.get()).isEqualTo(6);
  }

  @Test
  void aQueueThatStaysFullFailsTheSubmitterVisiblyAndDropsNothing() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    List<String> settled = new CopyOnWriteArrayList<>();
    Settlement stuck = new Settlement() {
      @Override
      public void settle(List<UsageRecord> records) {
        entered.countDown();
        try {
          release.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        records.forEach(r -> settled.add(r.eventId()));
      }

      @Override
      public void interrupted(List<InterruptedCall> c) {
        throw new UnsupportedOperationException();
      }
    };
    try (SettlementBatcher batcher = SettlementBatcher.builder(stuck)
        .maxBatch(2).maxLag(Duration.ofMillis(1)).capacity(2)
        .submitTimeout(Duration.ofMillis(50)).build()) {
      List<CompletableFuture<Void>> accepted = new ArrayList<>();
      accepted.add(batcher.submit(Fixtures.record("s0", 1)));
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
      // The drainer is stuck in settle: two records fill the queue, the third cannot wait.
      accepted.add(batcher.submit(Fixtures.record("s1", 1)));
      accepted.add(batcher.submit(Fixtures.record("s2", 1)));
      assertThatThrownBy(() -> batcher.submit(Fixtures.record("s3", 1)))
          .isInstanceOf(SettlementBackPressureException.class)
          .hasMessageContaining("not queued");
      assertThat(batcher.waiting()).isEqualTo(2);

      Thread.currentThread().interrupt();
      assertThatThrownBy(() -> batcher.submit(Fixtures.record("s4", 1)))
          .isInstanceOf(SettlementBackPressureException.class);
      assertThat(Thread.interrupted()).isTrue();

      release.countDown();
      CompletableFuture.allOf(accepted.toArray(new CompletableFuture<?>[0]))
          .get(30, TimeUnit.SECONDS);
    }
    assertThat(settled).containsExactlyInAnyOrder("s0", "s1", "s2");
  }
}
