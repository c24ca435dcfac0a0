package io.pointsman;

/** What a call allows the response cache to do. */
public enum CacheControl {
  /** Read and store as the cache's eligibility rules allow. */
  DEFAULT,
  /** Skip reads, allow stores ({@code no-cache}). */
  NO_CACHE,
  /** Skip reads and stores ({@code no-store}). */
  NO_STORE
}
