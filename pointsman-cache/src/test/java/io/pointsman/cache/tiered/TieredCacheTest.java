package io.pointsman.cache.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.CacheStatus;
import io.pointsman.cache.testing.Queries;
import io.pointsman.model.ChatResponse;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TieredCacheTest {
  private static final CacheQuery QUERY = Queries.query("acme", "t1", "q");

  /** A layer that answers with a fixed lookup and records stores. */
  private static final class Layer implements ResponseCache {
    final CacheLookup answer;
    final List<CacheQuery> stores = new ArrayList<>();
    int lookups;

    Layer(CacheLookup answer) {
      this.answer = answer;
    }

    @Override
    public CacheLookup lookup(CacheQuery query) {
      lookups++;
      if (answer == null) {
        throw new IllegalStateException("broken layer");
      }
      return answer;
    }

    @Override
    public void store(CacheQuery query, ChatResponse response) {
      stores.add(query);
      if (answer == null) {
        throw new IllegalStateException("broken layer");
      }
    }
  }

  @Test
  void missesNameEveryLayerConsultedAndTheirReasons() {
    Layer exact = new Layer(CacheLookup.miss("exact"));
    Layer semantic = new Layer(new CacheLookup(new CacheStatus(CacheOutcome.MISS, "semantic",
        "similarity=0.8000 below 0.9000"), null));
    CacheLookup found = TieredCache.of(exact, semantic).lookup(QUERY);
    assertThat(found.status()).isEqualTo(new CacheStatus(CacheOutcome.MISS, "exact+semantic",
        "semantic: similarity=0.8000 below 0.9000"));
  }

  @Test
  void theFirstHitAnswersAndLaterLayersAreNotAsked() {
    Layer exact = new Layer(CacheLookup.miss("exact"));
    Layer semantic = new Layer(CacheLookup.skipped("never asked"));
    ChatResponse response = io.pointsman.model.Json.readResponse(("{\"id\":\"c\",\"object\":"
        + "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[]}").getBytes(
        java.nio.charset.StandardCharsets.UTF_8));
    Layer hit = new Layer(CacheLookup.hit("exact", response));
    assertThat(TieredCache.of(exact, hit, semantic).lookup(QUERY).response()).isSameAs(response);
    assertThat(semantic.lookups).isZero();
  }

  @Test
  void allSkippedIsTheFirstSkipAndABrokenLayerIsAMissThatStillLetsOthersStore() {
    Layer first = new Layer(CacheLookup.skipped("not deterministic"));
    Layer second = new Layer(CacheLookup.skipped("last message is not a user text"));
    assertThat(TieredCache.of(first, second).lookup(QUERY).status())
        .isEqualTo(CacheStatus.skipped("not deterministic"));

    Layer broken = new Layer(null);
    Layer fine = new Layer(CacheLookup.miss("semantic"));
    TieredCache tiered = TieredCache.of(broken, fine);
    CacheLookup found = tiered.lookup(QUERY);
    assertThat(found.status().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(found.status().reason()).isEqualTo("Layer: error");
    tiered.store(QUERY, null);
    assertThat(fine.stores).hasSize(1);
  }
}
