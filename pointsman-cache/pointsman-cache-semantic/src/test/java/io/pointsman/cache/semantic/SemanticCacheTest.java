package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheControl;
import io.pointsman.CacheOutcome;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.testing.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class SemanticCacheTest {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));

  private static CacheQuery conversation(String... turns) {
    ChatRequest.Builder b = ChatRequest.builder().model("gpt-4o-mini").temperature(0.0);
    for (int i = 0; i < turns.length; i++) {
      b.addMessage(i % 2 == 0 ? Message.user(turns[i]) : Message.assistant(turns[i]));
    }
    return new CacheQuery(Queries.identity("acme", "t1"), new ResolvedModel(
        ModelSpec.builder("gpt-4o-mini").build(), 10, false, 10), b.build(),
        CacheControl.DEFAULT);
  }

  @Test
  void storesRunOffTheCallersThread() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    ThreadPoolExecutor blocked = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(1));
    blocked.execute(() -> {
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT)
        .storeExecutor(blocked).build()) {
      CacheQuery q = Queries.query("acme", "t1", "How do I reverse a list in Python?");
      cache.store(q, ANSWER); // returns although the executor is busy
      assertThat(cache.size()).isZero();
      cache.store(Queries.query("acme", "t1", "queue is full now"), ANSWER);
      assertThat(cache.counters().get(Counter.STORES_DROPPED)).isEqualTo(1);
      release.countDown();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isEqualTo(1);
      assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.HIT);
    } finally {
      blocked.shutdownNow();
    }
  }

  @Test
  void theEarlierConversationIsPartOfTheScope() throws Exception {
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).build()) {
      cache.store(conversation("I use Python.", "Noted.", "How do I reverse a list?"), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.lookup(conversation("I use Python.", "Noted.",
          "How can I reverse a list?")).status().outcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(cache.lookup(conversation("I use Ruby.", "Noted.",
          "How can I reverse a list?")).status().reason()).isEqualTo("empty scope");
    }
  }

  @Test
  void onlyALastUserTurnIsLookedUp() {
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).build()) {
      SemanticLookup found = cache.search(conversation("Hello", "Hi there"));
      assertThat(found.lookup().status().outcome()).isEqualTo(CacheOutcome.SKIPPED);
      assertThat(found.lookup().status().reason()).isEqualTo("last message is not a user text");
      assertThat(Double.isNaN(found.similarity())).isTrue();
    }
  }

  @Test
  void entriesExpireAndTheBoundHolds() throws Exception {
    FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).clock(clock)
        .ttl(Duration.ofMinutes(1)).maxEntries(2).build()) {
      CacheQuery q = Queries.query("acme", "t1", "What is the capital of France?");
      cache.store(q, ANSWER);
      cache.store(Queries.query("acme", "t2", "second"), ANSWER);
      cache.store(Queries.query("acme", "t3", "third, over the bound"), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isEqualTo(2);
      assertThat(cache.counters().get(Counter.STORES_DROPPED)).isEqualTo(1);
      assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.HIT);
      clock.advance(Duration.ofMinutes(2));
      assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.MISS);
    }
  }

  @Test
  void aHitReportsItsSimilarity() throws Exception {
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).flatIndex().build()) {
      cache.store(Queries.query("acme", "t1", "What is the capital of France?"), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      SemanticLookup found = cache.search(Queries.query("acme", "t1",
          "What's the capital of France?"));
      assertThat(found.lookup().status().outcome()).isEqualTo(CacheOutcome.HIT);
      assertThat(found.similarity()).isBetween(0.9, 1.0);
      assertThat(found.lookup().status().reason())
          .isEqualTo(String.format(java.util.Locale.ROOT, "similarity=%.4f", found.similarity()));
      assertThat(found.matchedText()).isEqualTo("What is the capital of France?");
      assertThat(found.verdict().agrees()).isTrue();
    }
  }
}
