package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CacheOutcome;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheLookup;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The semantic layer gives up instead of queueing behind the embedder. */
class SemanticSheddingTest {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));
  private static final Duration SHORT = Duration.ofMillis(50);

  /** Records every run; while held, a run waits for {@link #release()}. */
  static final class HeldEmbedder implements Embedder {
    final List<List<String>> runs = Collections.synchronizedList(new ArrayList<>());
    volatile CountDownLatch gate = new CountDownLatch(0);
    volatile CountDownLatch entered = new CountDownLatch(1);

    void hold() {
      gate = new CountDownLatch(1);
      entered = new CountDownLatch(1);
    }

    void release() {
      gate.countDown();
    }

    void awaitRunning() throws InterruptedException {
      assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
    }

    long timesEmbedded(String text) {
      synchronized (runs) {
        return runs.stream().flatMap(List::stream).filter(text::equals).count();
      }
    }

    @Override
    public int dimensions() {
      return MiniLmEmbedder.DIMENSIONS;
    }

    @Override
    public float[] embed(String text) {
      return embedBatch(List.of(text)).get(0);
    }

    @Override
    public List<float[]> embedBatch(List<String> texts) {
      runs.add(List.copyOf(texts));
      entered.countDown();
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      List<float[]> out = new ArrayList<>();
      for (String t : texts) {
        float[] v = new float[MiniLmEmbedder.DIMENSIONS];
        v[Math.floorMod(t.hashCode(), v.length)] = 1f; // the same text, the same unit vector
        out.add(v);
      }
      return out;
    }
  }

  private static SemanticCache seeded(HeldEmbedder embedder, SemanticCache.Builder builder)
      throws InterruptedException {
    SemanticCache cache = builder.build();
    cache.store(Queries.query("acme", "t1", "seed question"), ANSWER);
    assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
    assertThat(cache.size()).isEqualTo(1);
    return cache;
  }

  private static CacheLookup lookup(SemanticCache cache, String text) {
    return cache.lookup(Queries.query("acme", "t1", text));
  }

  @Test
  void aFullQueueAnswersOverloadAtOnceAndCountsIt() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = seeded(embedder, SemanticCache.builder(embedder)
        .lookupDeadline(SHORT).embeddingQueueCapacity(1).maxBatch(1))) {
      embedder.hold();
      assertThat(lookup(cache, "first").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.awaitRunning(); // "first" is in the embedder, the queue is empty
      assertThat(lookup(cache, "second").status().label()).isEqualTo("SKIPPED(deadline)");
      // "second" waits in the queue of one: the next lookup is refused without waiting.
      CacheLookup third = lookup(cache, "third");
      assertThat(third.status().outcome()).isEqualTo(CacheOutcome.SKIPPED);
      assertThat(third.status().layer()).isEqualTo(SemanticCache.LAYER);
      assertThat(third.status().label()).isEqualTo("SKIPPED(overload)");
      assertThat(cache.skippedForOverload()).isEqualTo(1);
      assertThat(cache.skippedForDeadline()).isEqualTo(2);
      assertThat(cache.counters().get(Counter.SEMANTIC_SKIPPED_OVERLOAD)).isEqualTo(1);
      assertThat(cache.lookups()).isEqualTo(3);
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      // The refused lookup never reached the embedder.
      assertThat(embedder.timesEmbedded("third")).isZero();
    }
  }

  @Test
  void theStoreOfALookupRefusedForOverloadIsDroppedNotEmbedded() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = seeded(embedder, SemanticCache.builder(embedder)
        .lookupDeadline(SHORT).embeddingQueueCapacity(1).maxBatch(1))) {
      long dropped = cache.counters().get(Counter.STORES_DROPPED);
      embedder.hold();
      assertThat(lookup(cache, "first").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.awaitRunning();
      assertThat(lookup(cache, "second").status().label()).isEqualTo("SKIPPED(deadline)");
      assertThat(lookup(cache, "third").status().label()).isEqualTo("SKIPPED(overload)");
      // The provider answered "third": its store must not queue an embedding of its own.
      cache.store(Queries.query("acme", "t1", "third"), ANSWER);
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(embedder.timesEmbedded("third")).isZero();
      assertThat(cache.counters().get(Counter.STORES_DROPPED)).isEqualTo(dropped + 1);
      assertThat(cache.size()).isEqualTo(1);
      // The refusal is not remembered against later lookups of the same text: once the
      // embedder is idle again (it may still be finishing "second"), "third" is embedded.
      CacheLookup again = lookup(cache, "third");
      long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (again.status().outcome() == CacheOutcome.SKIPPED && System.nanoTime() < until) {
        Thread.sleep(10);
        again = lookup(cache, "third");
      }
      assertThat(again.status().outcome()).isEqualTo(CacheOutcome.MISS);
      assertThat(embedder.timesEmbedded("third")).isEqualTo(1);
      cache.store(Queries.query("acme", "t1", "third"), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isEqualTo(2);
      assertThat(embedder.timesEmbedded("third")).isEqualTo(1);
    }
  }

  @Test
  void aLookupPastTheDeadlineSkipsAndItsStoreReusesTheEmbedding() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = seeded(embedder, SemanticCache.builder(embedder)
        .lookupDeadline(SHORT))) {
      embedder.hold();
      String text = "a long question the embedder is slow on ".repeat(200); // 8 KB
      assertThat(lookup(cache, text).status().label()).isEqualTo("SKIPPED(deadline)");
      cache.store(Queries.query("acme", "t1", text), ANSWER);
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isEqualTo(2);
      assertThat(embedder.timesEmbedded(text)).isEqualTo(1);
      CacheLookup again = lookup(cache, text);
      assertThat(again.status().outcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(embedder.timesEmbedded(text)).isEqualTo(1);
      assertThat(cache.hits()).isEqualTo(1);
    }
  }

  @Test
  void lookupsWaitingTogetherAreEmbeddedInOneRun() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = seeded(embedder, SemanticCache.builder(embedder)
        .lookupDeadline(SHORT).maxBatch(8))) {
      long runsBefore = embedder.runs.size();
      embedder.hold();
      assertThat(lookup(cache, "q0").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.awaitRunning();
      List<String> waiting = List.of("q1", "q2", "q3", "q4", "q5");
      for (String q : waiting) {
        assertThat(lookup(cache, q).status().label()).isEqualTo("SKIPPED(deadline)");
      }
      embedder.release();
      for (String q : waiting) {
        cache.store(Queries.query("acme", "t1", q), ANSWER);
      }
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      List<List<String>> runs = embedder.runs.subList((int) runsBefore, embedder.runs.size());
      assertThat(runs).containsExactly(List.of("q0"), waiting);
      assertThat(cache.embedderRuns()).isLessThan(cache.textsEmbedded());
      assertThat(cache.size()).isEqualTo(6);
    }
  }

  @Test
  void storesNeverTakeALookupsPlaceInTheQueue() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = seeded(embedder, SemanticCache.builder(embedder)
        .lookupDeadline(SHORT).embeddingQueueCapacity(1).maxBatch(1))) {
      embedder.hold();
      assertThat(lookup(cache, "first").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.awaitRunning();
      cache.store(Queries.query("acme", "t1", "stored while busy"), ANSWER);
      cache.store(Queries.query("acme", "t1", "stored while busy, too"), ANSWER);
      assertThat(lookup(cache, "second").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.skippedForOverload()).isZero();
      assertThat(cache.size()).isEqualTo(3);
    }
  }

  @Test
  void aLookupThatCouldNotBeEmbeddedInTimeIsRefusedAtOnce() throws Exception {
    HeldEmbedder embedder = new HeldEmbedder();
    try (SemanticCache cache = SemanticCache.builder(embedder).lookupDeadline(SHORT).build()) {
      embedder.hold();
      cache.store(Queries.query("acme", "t1", "seed question"), ANSWER);
      embedder.awaitRunning();
      Thread.sleep(2 * SHORT.toMillis()); // the run takes longer than a lookup may wait
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      embedder.hold();
      // An idle embedder takes the lookup, whatever the runs took so far.
      assertThat(lookup(cache, "first").status().label()).isEqualTo("SKIPPED(deadline)");
      embedder.awaitRunning();
      // The queue has room, but the run ahead would outlast the deadline.
      assertThat(lookup(cache, "second").status().label()).isEqualTo("SKIPPED(overload)");
      embedder.release();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(embedder.timesEmbedded("second")).isZero();
      assertThat(cache.skippedForOverload()).isEqualTo(1);
    }
  }

  @Test
  void theBuilderRefusesNonsense() {
    HeldEmbedder embedder = new HeldEmbedder();
    assertThatThrownBy(() -> SemanticCache.builder(embedder).lookupDeadline(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SemanticCache.builder(embedder).embeddingQueueCapacity(0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> SemanticCache.builder(embedder).maxBatch(0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
