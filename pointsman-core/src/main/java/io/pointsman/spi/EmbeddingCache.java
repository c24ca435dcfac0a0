package io.pointsman.spi;

import io.pointsman.model.EmbeddingResponse;

/**
 * The exact cache of embeddings calls, stage {@code cache.lookup} of
 * {@link io.pointsman.Gateway#embed}: answers a request from an earlier response of the same
 * model in the same tenant scope. A separate SPI from {@link ResponseCache}: its value is a
 * list of vectors rather than a chat completion, every embeddings request is deterministic
 * (there is no temperature to make it ineligible), a semantic layer has no meaning for it, and
 * a host may well keep vectors (large, long-lived) elsewhere than chat answers. The gateway
 * honours {@code no-store} (neither method is called) and {@code no-cache} ({@link #lookup} is
 * not called, {@link #store} is). A cache error degrades to a miss, never to a failed call.
 * Implementations must be thread-safe.
 */
public interface EmbeddingCache {
  /**
   * Looks a request up.
   *
   * @param query the request within its scope
   * @return a hit, a miss, or skipped with the reason
   */
  EmbeddingCacheLookup lookup(EmbeddingCacheQuery query);

  /**
   * Offers a fresh response for storing.
   *
   * @param query the request within its scope, naming the deployment that answered
   * @param response the response
   */
  void store(EmbeddingCacheQuery query, EmbeddingResponse response);

  /**
   * Returns a cache that stores nothing.
   *
   * @return the cache
   */
  static EmbeddingCache none() {
    return new EmbeddingCache() {
      @Override
      public EmbeddingCacheLookup lookup(EmbeddingCacheQuery query) {
        return EmbeddingCacheLookup.skipped("no cache configured");
      }

      @Override
      public void store(EmbeddingCacheQuery query, EmbeddingResponse response) {}
    };
  }
}
