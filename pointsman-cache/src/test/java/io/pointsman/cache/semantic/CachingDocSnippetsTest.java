package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.testing.SharedEmbedder;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The snippet of docs/caching.md, "Defaults and how to change them", compiled and run. */
class CachingDocSnippetsTest {
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
