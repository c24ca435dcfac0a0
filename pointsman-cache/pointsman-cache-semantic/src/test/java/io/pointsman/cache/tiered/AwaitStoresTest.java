package io.pointsman.cache.tiered;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.cache.testing.Queries;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/** awaitStores on the exact cache's shared tier and on a tiered cache. */
class AwaitStoresTest {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));

  @Test
  void theExactCacheWaitsForItsWritesToRedis() throws Exception {
    CountDownLatch gate = new CountDownLatch(1);
    Executor gated = task -> new Thread(() -> {
      try {
        gate.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      task.run();
    }).start();
    try (TestRedis redis = TestRedis.start();
        RedisConnection connection = RedisConnection.builder(redis.uri())
            .keyPrefix(redis.keyPrefix()).build();
        CaffeineExactCache cache = CaffeineExactCache.builder().shared(connection)
            .storeExecutor(gated).build()) {
      CacheQuery q = Queries.query("acme", "t1", "What is a monad?");
      cache.store(q, ANSWER);
      assertThat(cache.awaitStores(Duration.ofMillis(100))).isFalse();
      assertThat(cache.counters().get(Counter.ENTRIES_PUBLISHED)).isZero();
      gate.countDown();
      assertThat(cache.awaitStores(Duration.ofSeconds(10))).isTrue();
      assertThat(cache.counters().get(Counter.ENTRIES_PUBLISHED)).isOne();
    }
  }

  @Test
  void anExactCacheWithoutASharedTierHasNothingToWaitFor() throws Exception {
    try (CaffeineExactCache cache = CaffeineExactCache.builder().build()) {
      cache.store(Queries.query("acme", "t1", "What is a monad?"), ANSWER);
      assertThat(cache.awaitStores(Duration.ZERO)).isTrue();
    }
  }

  /** A layer whose stores finish only when told. */
  private static final class SlowLayer implements ResponseCache {
    final CountDownLatch done = new CountDownLatch(1);

    @Override
    public CacheLookup lookup(CacheQuery query) {
      return CacheLookup.miss("slow");
    }

    @Override
    public void store(CacheQuery query, ChatResponse response) {}

    @Override
    public boolean awaitStores(Duration timeout) throws InterruptedException {
      return done.await(timeout.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    }
  }

  @Test
  void aTieredCacheWaitsForEveryLayer() throws Exception {
    SlowLayer slow = new SlowLayer();
    try (CaffeineExactCache exact = CaffeineExactCache.builder().build()) {
      TieredCache tiered = TieredCache.of(exact, slow);
      assertThat(tiered.awaitStores(Duration.ofMillis(50))).isFalse();
      slow.done.countDown();
      assertThat(tiered.awaitStores(Duration.ofSeconds(1))).isTrue();
    }
  }
}
