package io.pointsman.cache.exact;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheControl;
import io.pointsman.CacheOutcome;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheQuery;
import io.pointsman.testing.FakeClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CaffeineExactCacheTest {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"42\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));

  @Test
  void aStoredDeterministicRequestHitsAndCountsIt() {
    CaffeineExactCache cache = CaffeineExactCache.builder().build();
    CacheQuery q = Queries.query("acme", "t1", "What is 6 x 7?");
    assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.MISS);
    cache.store(q, ANSWER);
    assertThat(cache.lookup(q).response()).isEqualTo(ANSWER);
    assertThat(cache.lookup(q).status().layer()).isEqualTo(CaffeineExactCache.LAYER);
    assertThat(cache.counters().get(Counter.EXACT_HITS)).isEqualTo(2);
    assertThat(cache.counters().get(Counter.EXACT_MISSES)).isEqualTo(1);
  }

  @Test
  void keyOrderAndFieldsThatDoNotChangeTheAnswerDoNotChangeTheKey() {
    CaffeineExactCache cache = CaffeineExactCache.builder().build();
    CacheQuery base = Queries.query("acme", "t1", "x");
    CacheQuery first = new CacheQuery(base.identity(), base.model(), Json.readRequest(
        "{\"model\":\"alias\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
            + "\"content\":\"q\"}],\"user\":\"a\",\"response_format\":{\"type\":\"json_object\","
            + "\"strict\":true}}"), CacheControl.DEFAULT);
    CacheQuery second = new CacheQuery(base.identity(), base.model(), Json.readRequest(
        "{\"messages\":[{\"content\":\"q\",\"role\":\"user\"}],\"n\":1,\"top_p\":1,"
            + "\"response_format\":{\"strict\":true,\"type\":\"json_object\"},\"user\":\"b\","
            + "\"stream\":false,\"temperature\":0.0,\"model\":\"other-alias\"}"),
        CacheControl.DEFAULT);
    CacheQuery different = new CacheQuery(base.identity(), base.model(), Json.readRequest(
        "{\"model\":\"alias\",\"temperature\":0,\"messages\":[{\"role\":\"user\","
            + "\"content\":\"q \"}]}"), CacheControl.DEFAULT);
    cache.store(first, ANSWER);
    assertThat(cache.lookup(second).status().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(cache.lookup(different).status().outcome()).isEqualTo(CacheOutcome.MISS);
  }

  @Test
  void identicalPromptsOfTwoTenantsNeverShareAnEntry() {
    CaffeineExactCache cache = CaffeineExactCache.builder().build();
    cache.store(Queries.query("acme", "t1", "same prompt"), ANSWER);
    assertThat(cache.lookup(Queries.query("globex", "t1", "same prompt")).status().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(cache.lookup(Queries.query("acme", "t2", "same prompt")).status().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(cache.lookup(Queries.query("acme", "t1", "same prompt")).status().outcome())
        .isEqualTo(CacheOutcome.HIT);
  }

  @Test
  void entriesExpireAfterTheTtl() {
    FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
    CaffeineExactCache cache = CaffeineExactCache.builder().clock(clock)
        .ttl(Duration.ofMinutes(5)).build();
    CacheQuery q = Queries.query("acme", "t1", "ttl");
    cache.store(q, ANSWER);
    clock.advance(Duration.ofMinutes(4));
    assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.HIT);
    clock.advance(Duration.ofMinutes(2));
    assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.MISS);
  }

  @Test
  void theSizeBoundHolds() {
    CaffeineExactCache cache = CaffeineExactCache.builder().maximumSize(50).build();
    for (int i = 0; i < 1_000; i++) {
      cache.store(Queries.query("acme", "t1", "prompt " + i), ANSWER);
    }
    assertThat(cache.size()).isLessThanOrEqualTo(50);
  }

  @Test
  void nonDeterministicRequestsAreSkippedAndNotStored() {
    CaffeineExactCache cache = CaffeineExactCache.builder().build();
    CacheQuery warm = Queries.query(Queries.identity("acme", "t1"), "hot", 0.8);
    cache.store(warm, ANSWER);
    assertThat(cache.lookup(warm).status().outcome()).isEqualTo(CacheOutcome.SKIPPED);
    assertThat(cache.lookup(warm).status().reason()).isEqualTo("not deterministic");
    assertThat(cache.size()).isZero();
    CaffeineExactCache everything = CaffeineExactCache.builder().eligibility(r -> true).build();
    everything.store(warm, ANSWER);
    assertThat(everything.lookup(warm).status().outcome()).isEqualTo(CacheOutcome.HIT);
  }

  @Test
  void noStoreIsNeverStored() {
    CaffeineExactCache cache = CaffeineExactCache.builder().build();
    CacheQuery q = Queries.query("acme", "t1", "secret");
    cache.store(new CacheQuery(q.identity(), q.model(), q.request(), CacheControl.NO_STORE),
        ANSWER);
    assertThat(cache.lookup(q).status().outcome()).isEqualTo(CacheOutcome.MISS);
  }
}
