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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;

/**
 * Redis stopped or paused under a running gateway: every call still succeeds, as a miss when
 * nothing in process answers, and the counters say what happened. Each test runs its own
 * embedded server, so stopping or pausing it disturbs no one else.
 */
class RedisFailureTest {
  private TestRedis redis;
  private RedisConnection connection;
  private CacheCounters counters;
  private CaffeineExactCache exact;
  private SemanticCache semantic;
  private GatewayRig rig;

  @BeforeEach
  void start() {
    redis = TestRedis.embedded();
    connection = RedisConnection.builder(redis.uri()).keyPrefix(redis.keyPrefix()).build();
    counters = new CacheCounters();
    exact = CaffeineExactCache.builder().shared(connection).counters(counters).build();
    semantic = SemanticCache.builder(SharedEmbedder.get())
        .lookupDeadline(SharedEmbedder.PATIENT).shared(connection)
        .counters(counters).build();
    rig = new GatewayRig(TieredCache.of(exact, semantic));
  }

  @AfterEach
  void stop() {
    semantic.close();
    exact.close();
    connection.close();
    redis.close();
  }

  @Test
  void withRedisStoppedCallsSucceedAsMissesAndTheCountersShowIt() throws Exception {
    String prompt = "How do I undo the last git commit?";
    assertThat(rig.call(GatewayRig.ACME_KEY, prompt).cacheStatus().outcome())
        .isEqualTo(CacheOutcome.MISS);
    assertThat(semantic.awaitStores(Duration.ofSeconds(30))).isTrue();
    TieredGatewayTest.awaitCounter(counters, Counter.ENTRIES_PUBLISHED, 2);

    redis.close();

    ChatResult fresh = rig.call(GatewayRig.ACME_KEY, "What is the boiling point of water?");
    assertThat(fresh.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(fresh.cacheStatus().reason())
        .contains("exact+exact-redis: error: redis unavailable");
    assertThat(counters.get(Counter.REDIS_ERRORS)).isGreaterThanOrEqualTo(1);

    // What this instance holds in process still answers.
    assertThat(rig.call(GatewayRig.ACME_KEY, prompt).cacheStatus().layer())
        .isEqualTo(CaffeineExactCache.LAYER);
    ChatResult paraphrase = rig.call(GatewayRig.ACME_KEY, "How can I undo the last git commit?");
    assertThat(paraphrase.cacheStatus().layer()).isEqualTo(SemanticCache.LAYER);
    assertThat(rig.fixture.sends()).isEqualTo(2);

    // Stores and the replication loop keep failing quietly, counted.
    long before = counters.get(Counter.REDIS_ERRORS);
    TieredGatewayTest.awaitCounter(counters, Counter.REDIS_ERRORS, before + 2);
  }

  @Test
  void withRedisPausedCallsSucceedAsMissesWithinTheTimeout() {
    rig.call(GatewayRig.ACME_KEY, "warm the pool");
    // Every client of this server waits for 3 s; our commands give up after 50 ms.
    redis.client().sendCommand(Protocol.Command.CLIENT, "PAUSE", "3000", "ALL");
    long started = System.nanoTime();
    ChatResult result = rig.call(GatewayRig.ACME_KEY, "What is the speed of light?");
    long elapsedMillis = (System.nanoTime() - started) / 1_000_000;

    assertThat(result.response()).isNotNull();
    assertThat(result.cacheStatus().outcome()).isEqualTo(CacheOutcome.MISS);
    assertThat(result.cacheStatus().reason())
        .contains("exact+exact-redis: error: redis timeout");
    assertThat(counters.get(Counter.REDIS_TIMEOUTS)).isGreaterThanOrEqualTo(1);
    // Generous: far above the 50 ms time-out, far below the 3 s pause.
    assertThat(elapsedMillis).isLessThan(1_500);
  }
}
