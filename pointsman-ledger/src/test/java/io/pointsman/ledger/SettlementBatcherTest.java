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
import java.util.concurrent.TimeUnit;
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
}
