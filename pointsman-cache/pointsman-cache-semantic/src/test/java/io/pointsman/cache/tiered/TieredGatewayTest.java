package io.pointsman.cache.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.ChatResult;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.cache.semantic.SemanticCache;
import io.pointsman.cache.testing.GatewayRig;
import io.pointsman.cache.testing.SharedEmbedder;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The tiered cache behind real gateways, sharing through a real Redis. */
class TieredGatewayTest {
  private TestRedis redis;
  private final List<AutoCloseable> closing = new ArrayList<>();

  @BeforeEach
  void start() {
    redis = TestRedis.start();
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    redis.close();
  }

  /** One gateway instance: its own caches and connection, the test's shared key prefix. */
  private final class Instance {
    final RedisConnection connection = RedisConnection.builder(redis.uri())
        .keyPrefix(redis.keyPrefix()).build();
    final CacheCounters counters = new CacheCounters();
    final CaffeineExactCache exact = CaffeineExactCache.builder().shared(connection)
        .counters(counters).build();
    final SemanticCache semantic = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT)
        .shared(connection).counters(counters).build();
    final GatewayRig rig = new GatewayRig(TieredCache.of(exact, semantic));

    Instance() {
      closing.add(semantic);
      closing.add(exact);
      closing.add(connection);
    }

    ChatResult call(String key, String text) {
      return rig.call(key, text);
    }
  }

  @Test
  void twoTenantsSendingIdenticalPromptsNeverShareAHit() throws Exception {
    Instance gateway = new Instance();
    String prompt = "What is the capital of France?";
    assertThat(gateway.call(GatewayRig.ACME_KEY, prompt).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(gateway.semantic.awaitStores(Duration.ofSeconds(30))).isTrue();
    // The other tenant's paraphrase and identical prompt find its own scope empty.
    ChatResult globexParaphrase = gateway.call(GatewayRig.GLOBEX_KEY,
        "What's the capital of France?");
    assertThat(globexParaphrase.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(globexParaphrase.cacheStatus().reason()).contains("semantic: empty scope");
    assertThat(gateway.rig.fixture.sends()).isEqualTo(2);

    ChatResult acmeAgain = gateway.call(GatewayRig.ACME_KEY, prompt);
    assertThat(acmeAgain.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(acmeAgain.cacheStatus().layer()).isEqualTo(CaffeineExactCache.LAYER);
    ChatResult acmeParaphrase = gateway.call(GatewayRig.ACME_KEY,
        "What's the capital of France?");
    assertThat(acmeParaphrase.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(acmeParaphrase.cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
    assertThat(acmeParaphrase.cacheStatus().reason()).matches("similarity=0\\.9\\d{3}");
    assertThat(gateway.rig.fixture.sends()).isEqualTo(2);
  }

  @Test
  void twoGatewayInstancesShareEntriesThroughRedis() throws Exception {
    Instance first = new Instance();
    Instance second = new Instance();
    String prompt = "How do I reverse a list in Python?";
    ChatResult original = first.call(GatewayRig.ACME_KEY, prompt);
    assertThat(original.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(first.semantic.awaitStores(Duration.ofSeconds(30))).isTrue();

    // The exact tier: the second instance's L1 misses, Redis answers.
    awaitCounter(first.counters, Counter.ENTRIES_PUBLISHED, 2);
    ChatResult exact = second.call(GatewayRig.ACME_KEY, prompt);
    assertThat(exact.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(exact.cacheStatus().layer()).isEqualTo(CaffeineExactCache.SHARED_LAYER);
    assertThat(exact.response()).isEqualTo(original.response());

    // The semantic tier: the entry reaches the second instance's index through the stream.
    awaitCounter(second.counters, Counter.ENTRIES_REPLICATED, 1);
    ChatResult semantic = second.call(GatewayRig.ACME_KEY, "How can I reverse a list in Python?");
    assertThat(semantic.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(semantic.cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
    assertThat(semantic.response()).isEqualTo(original.response());
    assertThat(second.rig.fixture.sends()).isZero();

    // A third instance started later replays the stream: entries outlive their writer.
    Instance late = new Instance();
    awaitCounter(late.counters, Counter.ENTRIES_REPLICATED, 1);
    assertThat(late.call(GatewayRig.ACME_KEY, "How can I reverse a list in Python?")
        .cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
  }

  @Test
  void aNearMissNamesTheSimilarityAndTheRefusal() throws Exception {
    Instance gateway = new Instance();
    gateway.call(GatewayRig.ACME_KEY, "Give me three tips for public speaking.");
    assertThat(gateway.semantic.awaitStores(Duration.ofSeconds(30))).isTrue();
    ChatResult other = gateway.call(GatewayRig.ACME_KEY, "Give me five tips for public speaking.");
    assertThat(other.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(other.cacheStatus().layer()).isEqualTo("exact+exact-redis+semantic");
    assertThat(other.cacheStatus().reason())
        .matches("semantic: similarity=0\\.\\d{4} refused: numbers differ \\[5\\] vs \\[3\\]");
    assertThat(gateway.counters.get(Counter.LEXICAL_REJECTIONS)).isEqualTo(1);
  }

  /** Waits for a counter; the bound is generous because the machine is shared. */
  static void awaitCounter(CacheCounters counters, Counter counter, long atLeast)
      throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (counters.get(counter) < atLeast && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(counters.get(counter)).as(counter.name()).isGreaterThanOrEqualTo(atLeast);
  }
}
