/** Test support for Redis stores: a real redis-server per test run and a reply-dropping proxy. */
module io.pointsman.redis.testing {
  requires transitive redis.clients.jedis;
  requires embedded.redis;

  exports io.pointsman.cache.redis.testing;
}
