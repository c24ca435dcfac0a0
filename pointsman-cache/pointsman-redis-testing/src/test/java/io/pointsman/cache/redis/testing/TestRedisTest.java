package io.pointsman.cache.redis.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestRedisTest {
  @Test
  void resolvesAServerAndRemovesItsKeysOnClose() {
    String key;
    try (TestRedis redis = TestRedis.start()) {
      key = redis.keyPrefix() + "probe";
      redis.client().set(key, "1");
      assertThat(redis.client().get(key)).isEqualTo("1");
      try (TestRedis again = TestRedis.start()) {
        assertThat(again.keyPrefix()).isNotEqualTo(redis.keyPrefix());
      }
    }
    try (TestRedis redis = TestRedis.start()) {
      assertThat(redis.client().exists(key)).isFalse();
    }
  }

  @Test
  void theEmbeddedServerRunsWithoutAnyInstalledRedis() {
    try (TestRedis redis = TestRedis.embedded()) {
      assertThat(redis.isEmbedded()).isTrue();
      assertThat(redis.client().ping()).isEqualTo("PONG");
      redis.client().incr(redis.keyPrefix() + "n");
      assertThat(redis.client().get(redis.keyPrefix() + "n")).isEqualTo("1");
    }
  }
}
