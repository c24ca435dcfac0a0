package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.tiered.TieredCache;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Every text of both pair corpora, stored by one tenant, looked up word for word and as its
 * paired query by another, through the exact and the semantic layer: no hit. The tenants differ
 * by org, by team, by key (neither team nor org), and by a key id that equals the other's org.
 */
class CrossTenantCorpusTest {
  private static Identity identity(String key, String team, String org) {
    return new Identity(key, null, team, org, Set.of(), Grant.all(), Grant.all(), Grant.all());
  }

  @Test
  void noTenantEverHitsAnotherTenantsEntry() throws Exception {
    List<SemanticPairCorpusTest.Pair> pairs = new ArrayList<>();
    pairs.addAll(SemanticPairCorpusTest.load(SemanticCorpusGenerator.TUNING));
    pairs.addAll(SemanticPairCorpusTest.load(SemanticCorpusGenerator.HELDOUT));
    Identity[][] owners = {
        {identity("k-1", "t", "a"), identity("k-2", "t", "b")},
        {identity("k-1", "t", "a"), identity("k-3", "u", "a")},
        {identity("k-lone-1", null, null), identity("k-lone-2", null, null)},
        {identity("k-4", null, "a"), identity("a", null, null)},
    };
    int tries = 0;
    int hits = 0;
    int ownHits = 0;
    for (Identity[] pair : owners) {
      Identity owner = pair[0];
      Identity intruder = pair[1];
      try (CaffeineExactCache exact = CaffeineExactCache.builder().maximumSize(10_000).build();
          SemanticCache semantic = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).build()) {
        TieredCache cache = TieredCache.of(exact, semantic);
        for (SemanticPairCorpusTest.Pair p : pairs) {
          cache.store(SemanticPairCorpusTest.query(owner, p.cachedContext(), p.cached()),
              SemanticPairCorpusTest.answer(p.cached()));
        }
        // The intruder's scope is not empty: it holds one entry of its own.
        cache.store(SemanticPairCorpusTest.query(intruder, null, "An unrelated question?"),
            SemanticPairCorpusTest.answer("decoy"));
        assertThat(cache.awaitStores(Duration.ofMinutes(2))).isTrue();
        for (SemanticPairCorpusTest.Pair p : pairs) {
          for (String text : List.of(p.cached(), p.query())) {
            tries++;
            if (cache.lookup(SemanticPairCorpusTest.query(intruder, p.cachedContext(), text))
                .status().outcome() == CacheOutcome.HIT) {
              hits++;
            }
          }
          // The owner's own identical lookup hits, so the entries were there to be found.
          if (cache.lookup(SemanticPairCorpusTest.query(owner, p.cachedContext(), p.cached()))
              .status().outcome() == CacheOutcome.HIT) {
            ownHits++;
          }
        }
      }
    }
    System.out.printf("cross-tenant: %d lookups, %d hits; owners' own lookups: %d of %d hit%n",
        tries, hits, ownHits, owners.length * pairs.size());
    assertThat(tries).isGreaterThanOrEqualTo(4_000);
    assertThat(hits).isZero();
    assertThat(ownHits).isEqualTo(owners.length * pairs.size());
  }
}
