/** Redis stores: the shared Redis connection and the Redis counter store for limits. */
module io.pointsman.redis {
  requires transitive io.pointsman.core;
  requires transitive redis.clients.jedis;
  requires org.apache.commons.pool2;
  requires org.slf4j;

  exports io.pointsman.cache.redis;
  exports io.pointsman.limits.redis;
}
