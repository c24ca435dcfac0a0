package io.pointsman.spi;

import io.pointsman.model.ChatResponse;
import java.time.Duration;

/**
 * Stage 5, {@code cache.lookup}: answers a request from earlier responses in the same tenant
 * scope. The gateway honours {@code no-store} (neither method is called) and {@code no-cache}
 * ({@link #lookup} is not called, {@link #store} is); the cache applies its own eligibility
 * rules in both methods. A cache error degrades to a miss, never to a failed call.
 * Implementations must be thread-safe; stores should not block the caller.
 */
public interface ResponseCache {
  /**
   * Looks a request up.
   *
   * @param query the request within its scope
   * @return a hit, a miss, or skipped with the reason (for example not deterministic)
   */
  CacheLookup lookup(CacheQuery query);

  /**
   * Offers a fresh response for storing. Ignored when the request is not eligible.
   *
   * @param query the request within its scope
   * @param response the response that passed the output guardrail
   */
  void store(CacheQuery query, ChatResponse response);

  /**
   * Waits until every store offered so far has completed (a cache that stores off the request
   * thread queues them). For tests, benchmarks and orderly shutdown; a cache that stores inline
   * returns true at once, which is the default.
   *
   * @param timeout how long to wait at most
   * @return true if every store offered before the call completed in time
   * @throws InterruptedException if interrupted while waiting
   */
  default boolean awaitStores(Duration timeout) throws InterruptedException {
    return true;
  }

  /**
   * Returns a cache that stores nothing.
   *
   * @return the cache
   */
  static ResponseCache none() {
    return new ResponseCache() {
      @Override
      public CacheLookup lookup(CacheQuery query) {
        return CacheLookup.skipped("no cache configured");
      }

      @Override
      public void store(CacheQuery query, ChatResponse response) {}
    };
  }
}
