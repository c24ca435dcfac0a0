package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheControl;
import io.pointsman.CacheOutcome;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** What the semantic layer scopes by and compares, and how its stores are awaited. */
class SemanticScopeTest {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));

  private static Identity lone(String key) {
    return new Identity(key, null, null, null, Set.of(), Grant.all(), Grant.all(), Grant.all());
  }

  private static CacheQuery query(Identity id, String model, Message last) {
    ChatRequest request = ChatRequest.builder().model(model).temperature(0.0)
        .addMessage(Message.system("Be brief.")).addMessage(last).build();
    return new CacheQuery(id, new ResolvedModel(ModelSpec.builder(model).build(), 10, false, 10),
        request, CacheControl.DEFAULT);
  }

  private static SemanticCache cache() {
    return SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).build();
  }

  @Test
  void keysWithoutTeamOrOrgHaveScopesOfTheirOwn() throws Exception {
    try (SemanticCache cache = cache()) {
      cache.store(query(lone("k-a"), "gpt-4o-mini", Message.user("What is a monad?")), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      SemanticLookup other = cache.search(query(lone("k-b"), "gpt-4o-mini",
          Message.user("What is a monad?")));
      assertThat(other.lookup().status().outcome()).isEqualTo(CacheOutcome.MISS);
      assertThat(other.lookup().status().reason()).isEqualTo("empty scope");
      assertThat(cache.search(query(lone("k-a"), "gpt-4o-mini",
          Message.user("what's a monad"))).lookup().status().outcome())
          .isEqualTo(CacheOutcome.HIT);
    }
  }

  @Test
  void aLastTurnWithAnImageIsNotCompared() throws Exception {
    Message withImage = new Message(io.pointsman.model.Role.USER, new Content.Parts(List.of(
        ContentPart.text("What is in this picture?"), new ContentPart("image_url", null,
            Json.mapper().createObjectNode().put("url", "https://example.com/cat.png"),
            null))), null, null, null, null);
    try (SemanticCache cache = cache()) {
      cache.store(query(Queries.identity("acme", "t1"), "gpt-4o-mini", withImage), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isZero();
      SemanticLookup found = cache.search(query(Queries.identity("acme", "t1"), "gpt-4o-mini",
          withImage));
      assertThat(found.lookup().status().outcome()).isEqualTo(CacheOutcome.SKIPPED);
      assertThat(found.lookup().status().reason()).isEqualTo("last message is not a user text");
    }
  }

  @Test
  void anAnswerIsScopedByTheModelOfTheDeploymentThatGaveIt() throws Exception {
    try (SemanticCache cache = cache()) {
      // Resolved gpt-4o, answered by a fallback deployment serving gpt-4o-mini.
      cache.store(query(Queries.identity("acme", "t1"), "gpt-4o", Message.user("Name a prime."))
          .answeredBy(Deployment.of("mini-eu", "openai", "gpt-4o-mini")), ANSWER);
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.search(query(Queries.identity("acme", "t1"), "gpt-4o",
          Message.user("Name a prime, please."))).lookup().status().outcome())
          .isEqualTo(CacheOutcome.MISS);
      assertThat(cache.search(query(Queries.identity("acme", "t1"), "gpt-4o-mini",
          Message.user("Name a prime, please."))).lookup().status().outcome())
          .isEqualTo(CacheOutcome.HIT);
    }
  }

  @Test
  void awaitStoresWaitsForEveryStoreWhateverTheExecutor() throws Exception {
    // A pool runs tasks side by side: a marker task queued behind a store can finish first.
    CountDownLatch gate = new CountDownLatch(1);
    AtomicBoolean first = new AtomicBoolean(true);
    ExecutorService pool = Executors.newCachedThreadPool();
    ExecutorService gated = new java.util.concurrent.AbstractExecutorService() {
      @Override
      public void execute(Runnable task) {
        boolean hold = first.getAndSet(false);
        pool.execute(() -> {
          if (hold) {
            try {
              gate.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          task.run();
        });
      }

      @Override
      public void shutdown() {
        pool.shutdown();
      }

      @Override
      public List<Runnable> shutdownNow() {
        return pool.shutdownNow();
      }

      @Override
      public boolean isShutdown() {
        return pool.isShutdown();
      }

      @Override
      public boolean isTerminated() {
        return pool.isTerminated();
      }

      @Override
      public boolean awaitTermination(long timeout, java.util.concurrent.TimeUnit unit)
          throws InterruptedException {
        return pool.awaitTermination(timeout, unit);
      }
    };
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).storeExecutor(gated)
        .build()) {
      cache.store(Queries.query("acme", "t1", "How do I boil an egg?"), ANSWER);
      assertThat(cache.awaitStores(Duration.ofMillis(200))).isFalse();
      assertThat(cache.size()).isZero();
      gate.countDown();
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.size()).isOne();
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void theVerifierCanBeReplacedOrLeftOut() throws Exception {
    try (SemanticCache strict = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT)
        .verifier((q, c) -> Verdict.disagree("never")).build();
        SemanticCache loose = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT)
            .verifier(HitVerifier.thresholdOnly()).threshold(0.5).build()) {
      for (SemanticCache c : List.of(strict, loose)) {
        c.store(Queries.query("acme", "t1", "Do cats chase mice?"), ANSWER);
        assertThat(c.awaitStores(Duration.ofSeconds(30))).isTrue();
      }
      assertThat(strict.search(Queries.query("acme", "t1", "Do cats chase mice?")).lookup()
          .status().reason()).endsWith("refused: never");
      // Without a verifier the threshold alone decides, and the swap is a (wrong) hit.
      assertThat(loose.search(Queries.query("acme", "t1", "Do mice chase cats?")).lookup()
          .status().outcome()).isEqualTo(CacheOutcome.HIT);
    }
  }

  @Test
  void aLookupBindsTheVerifierToItsQueryOnceForAllItsCandidates() throws Exception {
    // Three stored paraphrases within the threshold, all refused: the lookup compares its
    // query with each, through one binding, so that a verifier prepares the query once.
    java.util.concurrent.atomic.AtomicInteger binds = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger compared = new java.util.concurrent.atomic.AtomicInteger();
    java.util.concurrent.atomic.AtomicInteger unbound = new java.util.concurrent.atomic.AtomicInteger();
    HitVerifier counting = new HitVerifier() {
      @Override
      public Verdict verify(String query, String cached) {
        unbound.incrementAndGet();
        return Verdict.disagree("never");
      }

      @Override
      public Query bind(String query) {
        binds.incrementAndGet();
        return cached -> {
          compared.incrementAndGet();
          return Verdict.disagree("never");
        };
      }
    };
    try (SemanticCache cache = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).verifier(counting).threshold(0.5).build()) {
      for (String q : List.of("How do I boil an egg?", "How do I boil eggs?",
          "How should I boil an egg?")) {
        cache.store(Queries.query("acme", "t1", q), ANSWER);
      }
      assertThat(cache.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(cache.search(Queries.query("acme", "t1", "How can I boil an egg?")).lookup()
          .status().outcome()).isNotEqualTo(CacheOutcome.HIT);
    }
    assertThat(binds.get()).isOne();
    assertThat(compared.get()).isEqualTo(3);
    assertThat(unbound.get()).isZero();
  }
}
