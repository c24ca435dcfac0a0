package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.Gateway;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.tiered.CacheCounters;
import io.pointsman.cache.tiered.TieredCache;
import io.pointsman.spi.ResponseCache;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The snippets of docs/caching.md: "Defaults and how to change them" compiled and run; the
 * opening one compiled only, since it connects to a Redis of the host's.
 */
class CachingDocSnippetsTest {
  @SuppressWarnings("unused")
  private static Gateway openingSnippet() {
    RedisConnection redis = RedisConnection.builder(URI.create("redis://127.0.0.1:6379"))
        .keyPrefix("pointsman:")          // every key of both layers lives under it
        .build();                         // 50 ms time-out per command by default
    CacheCounters counters = new CacheCounters();
    MiniLmEmbedder embedder = MiniLmEmbedder.builder().build();   // quantized MiniLM, 256 tokens

    ResponseCache cache = TieredCache.of(
        CaffeineExactCache.builder().maximumSize(50_000).ttl(Duration.ofMinutes(30))
            .shared(redis).counters(counters).build(),
        SemanticCache.builder(embedder).ttl(Duration.ofMinutes(30))   // threshold 0.85, standard verifier
            .shared(redis).counters(counters).build());

    Gateway gateway = Gateway.builder().cache(cache) /* … */ .build();
    return gateway;
  }

  @Test
  void theLatencyBudgetSnippetBuildsACacheThatStartsWithNothingShed() {
    MiniLmEmbedder embedder = SharedEmbedder.get();
    // --- snippet ---
    SemanticCache budgeted = SemanticCache.builder(embedder)
        .lookupDeadline(Duration.ofMillis(3))        // default 5 ms
        .embeddingQueueCapacity(8)                   // default 16 lookups waiting
        .maxBatch(4)                                 // default 8 texts per run
        .build();
    long shed = budgeted.skippedForOverload() + budgeted.skippedForDeadline();
    // --- end of snippet ---
    try (budgeted) {
      assertThat(shed).isZero();
      assertThat(SemanticCache.DEFAULT_LOOKUP_DEADLINE).isEqualTo(Duration.ofMillis(5));
      assertThat(SemanticCache.DEFAULT_QUEUE_CAPACITY).isEqualTo(16);
      assertThat(SemanticCache.DEFAULT_MAX_BATCH).isEqualTo(8);
      assertThat(budgeted.lookup(Queries.query("acme", "t1", "anything")).status().outcome())
          .isEqualTo(io.pointsman.CacheOutcome.MISS);
    }
  }

  @Test
  void theDefaultsSnippetBuildsCachesThatBehaveAsDescribed() throws Exception {
    MiniLmEmbedder embedder = SharedEmbedder.get();
    // --- snippet ---
    SemanticCache cache = SemanticCache.builder(embedder)
        .threshold(0.90)                                    // default 0.85
        .verifier(HitVerifier.standard())                   // the default
        .build();

    // A verifier of your own: a functional interface, called on the request thread for each
    // candidate at or above the threshold; it must accept every text compared with itself.
    HitVerifier exactWords = (query, cached) -> query.strip().equalsIgnoreCase(cached.strip())
        ? Verdict.AGREE : Verdict.disagree("not the same words");
    SemanticCache strict = SemanticCache.builder(embedder).verifier(exactWords).build();

    // The similarity alone decides (expect wrong hits on near misses).
    SemanticCache loose = SemanticCache.builder(embedder)
        .verifier(HitVerifier.thresholdOnly()).build();
    // --- end of snippet ---
    try (cache; strict; loose) {
      assertThat(SemanticCache.DEFAULT_THRESHOLD).isEqualTo(0.85);
      strict.store(Queries.query("acme", "t1", "What is a monad?"),
          SemanticPairCorpusTest.answer("m"));
      assertThat(strict.awaitStores(Duration.ofSeconds(30))).isTrue();
      assertThat(searchPastTheDeadline(strict, "What's a monad?").lookup().status().reason())
          .endsWith("refused: not the same words");
      assertThat(exactWords.verify("What is a monad?", " what is a monad? ").agrees()).isTrue();
    }
  }

  /**
   * Searches until the lookup is not skipped: the snippet keeps the 5 ms deadline, which a
   * loaded machine can miss; the embedding started by a skipped lookup is found by the next.
   */
  private static SemanticLookup searchPastTheDeadline(SemanticCache cache, String text)
      throws InterruptedException {
    for (int i = 0; ; i++) {
      SemanticLookup found = cache.search(Queries.query("acme", "t1", text));
      if (found.lookup().status().outcome() != io.pointsman.CacheOutcome.SKIPPED || i == 3_000) {
        return found;
      }
      Thread.sleep(10);
    }
  }
}
