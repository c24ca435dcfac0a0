package io.pointsman.limits.redis;

import io.pointsman.spi.CounterRebuild;
import java.time.Duration;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.UnifiedJedis;

/** Test helpers for Redis counter stores. */
final class Stores {
  private Stores() {}

  /** Starts a first generation on an empty namespace, as a rebuild from an empty ledger does. */
  static RedisCounterStore fresh(RedisCounterStore store) {
    try (CounterRebuild r = store.beginRebuild(60_000, false)) {
      r.commit();
    }
    return store;
  }

  /**
   * Marks an empty namespace as a first generation with a plain SET, without the store's API
   * (so tests that use it also run against stores that have no generations).
   */
  static void initialize(UnifiedJedis client, String keyPrefix) {
    client.set(keyPrefix + "{limits}:~gen", "initial");
  }

  /** A pooled client with short time-outs, for servers a test stops or cuts off. */
  static JedisPooled client(java.net.URI uri, Duration timeout) {
    int ms = (int) timeout.toMillis();
    return new JedisPooled(new HostAndPort(uri.getHost(), uri.getPort()),
        DefaultJedisClientConfig.builder().connectionTimeoutMillis(ms).socketTimeoutMillis(ms)
            .build());
  }
}
