package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.LimitsUnavailableException;
import io.pointsman.limits.Scope;
import io.pointsman.spi.CounterStoreUnavailableException;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * Limit counters refuse a Redis that may evict them (an evicted budget restarts at zero), and
 * live on a connection of their own, apart from the cache's, which may evict.
 */
class EvictionPolicyTest {
  @Test
  void aServerThatMayEvictIsRefusedWithAClearMessage() {
    try (RedisServerProcess lru = RedisServerProcess.start("--maxmemory-policy", "allkeys-lru");
        JedisPooled client = Stores.client(lru.uri(), Duration.ofSeconds(2))) {
      assertThatThrownBy(() -> RedisCounterStore.builder(client).build())
          .isInstanceOf(CounterStoreUnavailableException.class)
          .hasMessageContaining("maxmemory-policy is allkeys-lru")
          .hasMessageContaining("noeviction");
    }
  }

  @Test
  void anEvictingServerIsUsedOnlyWhenExplicitlyAllowed() {
    try (RedisServerProcess lru = RedisServerProcess.start("--maxmemory-policy", "volatile-ttl");
        JedisPooled client = Stores.client(lru.uri(), Duration.ofSeconds(2))) {
      RedisCounterStore store = RedisCounterStore.builder(client).allowEvictionPolicy(true)
          .build();
      assertThat(store.evictionPolicy()).isEqualTo("volatile-ttl");
      assertThatThrownBy(() -> RedisCounterStore.builder(client).build())
          .isInstanceOf(EvictionPolicyException.class);
    }
  }

  @Test
  void aServerThatStartsEvictingLaterIsRefusedOnItsFirstReach() {
    try (RedisServerProcess server = RedisServerProcess.start();
        JedisPooled client = Stores.client(server.uri(), Duration.ofMillis(500))) {
      server.stop();
      // Unreachable at build: the check waits for the first operation that reaches it.
      RedisCounterStore store = RedisCounterStore.builder(client).keyPrefix("late:").build();
      assertThat(store.evictionPolicy()).isNull();
      server.startAgain();
      client.configSet("maxmemory-policy", "allkeys-random");
      CounterLimiter limiter = CounterLimiter.builder(store).budget(Scope.team("t1"), 1_000)
          .build();
      assertThatThrownBy(() -> limiter.reserve(CounterStoreContract.admission("e1", 10,
          java.time.Instant.now()))).isInstanceOf(LimitsUnavailableException.class)
          .hasMessageContaining("allkeys-random");
    }
  }

  @Test
  void countersAndCacheUseSeparateConnections() {
    try (RedisServerProcess countersServer = RedisServerProcess.start();
        RedisServerProcess cacheServer = RedisServerProcess.start("--maxmemory-policy",
            "allkeys-lru");
        RedisConnection counters = RedisConnection.builder(countersServer.uri())
            .keyPrefix("pm-limits:").timeout(Duration.ofSeconds(1)).build();
        RedisConnection cache = RedisConnection.builder(cacheServer.uri())
            .keyPrefix("pm-cache:").build()) {
      RedisCounterStore store = RedisCounterStore.builder(counters).build();
      assertThat(store.evictionPolicy()).isEqualTo("noeviction");
      assertThat(store.redisKey("budget:team:t1")).startsWith("pm-limits:{limits}:");
      Stores.initialize(counters.client(), "pm-limits:");
      CounterLimiter limiter = CounterLimiter.builder(store).budget(Scope.team("t1"), 1_000)
          .build();
      limiter.reserve(CounterStoreContract.admission("e1", 10, java.time.Instant.now()))
          .settle(7);
      assertThat(limiter.budget(Scope.team("t1")).spentMicros()).isEqualTo(7);
      // The cache's server evicts, as caches should; counters are refused there.
      cache.client().set("pm-cache:k", "v");
      assertThat(cache.client().get("pm-cache:k")).isEqualTo("v");
      assertThatThrownBy(() -> RedisCounterStore.builder(cache).build())
          .isInstanceOf(EvictionPolicyException.class);
    }
  }
}
