package io.pointsman.limits.redis;

import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.spi.CounterStore;

/** The counter store contract on Redis (a unique key prefix per test, removed after it). */
class RedisCounterStoreContractTest extends CounterStoreContract {
  private TestRedis redis;

  @Override
  CounterStore newStore() {
    redis = TestRedis.start();
    return Stores.fresh(RedisCounterStore.builder(redis.client()).keyPrefix(redis.keyPrefix())
        .build());
  }

  @Override
  void closeStore() {
    redis.close();
  }
}
