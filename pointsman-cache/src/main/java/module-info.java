/**
 * The exact L1 cache on Caffeine and the tiered cache that composes cache layers.
 *
 * <p>The shared exact tier in Redis ({@code CaffeineExactCache.Builder#shared}) needs
 * {@code io.pointsman:pointsman-redis} (module {@code io.pointsman.redis}), which a host that
 * shares entries adds; without it the cache is in-process only.
 */
module io.pointsman.cache {
  requires transitive io.pointsman.core;
  requires com.github.benmanes.caffeine;
  requires org.slf4j;
  // Not transitive: a requires static transitive would make every module that reads this one
  // need pointsman-redis to compile.
  requires static io.pointsman.redis;
  requires static redis.clients.jedis;

  exports io.pointsman.cache.exact;
  exports io.pointsman.cache.tiered;
}
