package io.pointsman.cache.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.cache.redis.testing.TestRedis;
import java.net.URI;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;

class RedisConnectionTest {
  @Test
  void aPasswordInTheUriAuthenticatesAndItsAbsenceIsAnErrorNotATimeout() {
    try (TestRedis redis = TestRedis.embedded()) {
      redis.client().sendCommand(Protocol.Command.CONFIG, "SET", "requirepass", "s3cr:t");
      URI base = redis.uri();
      URI withPassword = URI.create("redis://:s3cr%3At@" + base.getHost() + ":" + base.getPort());
      try (RedisConnection good = RedisConnection.builder(withPassword)
              .keyPrefix(redis.keyPrefix()).build();
          RedisConnection bad = RedisConnection.builder(base).keyPrefix(redis.keyPrefix())
              .build()) {
        good.client().set(redis.keyPrefix() + "k", "v");
        assertThat(good.client().get(redis.keyPrefix() + "k")).isEqualTo("v");
        assertThatThrownBy(() -> bad.client().get(redis.keyPrefix() + "k"))
            .satisfies(e -> assertThat(RedisConnection.isTimeout(e)).isFalse());
      }
    }
  }
}
