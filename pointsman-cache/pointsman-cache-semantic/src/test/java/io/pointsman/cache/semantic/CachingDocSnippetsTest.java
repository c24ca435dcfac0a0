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
      assertThat(strict.search(Queries.query("acme", "t1", "What's a monad?")).lookup().status()
          .reason()).endsWith("refused: not the same words");
      assertThat(exactWords.verify("What is a monad?", " what is a monad? ").agrees()).isTrue();
    }
  }
}
