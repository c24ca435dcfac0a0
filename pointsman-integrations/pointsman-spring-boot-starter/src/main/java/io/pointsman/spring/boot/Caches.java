package io.pointsman.spring.boot;

import io.pointsman.Clock;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.spi.ResponseCache;
import org.springframework.util.ClassUtils;

/** Builds the response cache from {@code pointsman.cache}, with the cache modules present. */
final class Caches {
  private Caches() {}

  static ResponseCache build(PointsmanProperties.Cache cache, ClassLoader loader) {
    boolean caffeine = ClassUtils.isPresent("io.pointsman.cache.exact.CaffeineExactCache",
        loader);
    boolean semanticPresent = ClassUtils.isPresent("io.pointsman.cache.semantic.SemanticCache",
        loader);
    PointsmanProperties.Exact exact = cache.exact();
    boolean semantic = cache.semantic().enabled();
    if (semantic && !(semanticPresent && caffeine)) {
      throw new IllegalStateException("pointsman.cache.semantic.enabled needs"
          + " io.pointsman:pointsman-cache-semantic on the class path");
    }
    if (!exact.enabled()) {
      if (semantic) {
        throw new IllegalStateException("the semantic cache runs behind the exact cache:"
            + " pointsman.cache.exact.enabled must stay true");
      }
      return ResponseCache.none();
    }
    if (!caffeine) {
      return InMemoryExactCache.of(Clock.system(), (int) Math.min(Integer.MAX_VALUE,
          exact.maximumSize()), exact.ttl(), InMemoryExactCache::deterministic);
    }
    return semantic ? SemanticModule.tiered(cache) : CaffeineModule.caffeine(exact);
  }

  /** Loaded only when pointsman-cache is on the class path. */
  private static final class CaffeineModule {
    private CaffeineModule() {}

    static ResponseCache caffeine(PointsmanProperties.Exact exact) {
      return io.pointsman.cache.exact.CaffeineExactCache.builder()
          .maximumSize(exact.maximumSize()).ttl(exact.ttl()).build();
    }
  }

  /**
   * Loaded only when pointsman-cache-semantic is on the class path too (a class is verified
   * whole: the semantic cache's types must not be named where only Caffeine may be present).
   */
  private static final class SemanticModule {
    private SemanticModule() {}

    static ResponseCache tiered(PointsmanProperties.Cache cache) {
      return io.pointsman.cache.tiered.TieredCache.of(CaffeineModule.caffeine(cache.exact()),
          io.pointsman.cache.semantic.SemanticCache.builder(
                  io.pointsman.cache.semantic.MiniLmEmbedder.builder().build())
              .threshold(cache.semantic().threshold()).ttl(cache.semantic().ttl()).build());
    }
  }
}
