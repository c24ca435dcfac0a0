package io.pointsman;

/** What the response cache did for one call. */
public enum CacheOutcome {
  /** Answered from the cache; the provider was not called. */
  HIT,
  /** Consulted and not found; the provider was called. */
  MISS,
  /** Not read because the call said {@code no-cache}; a store was allowed. */
  BYPASS,
  /** Neither read nor stored; {@link CacheStatus#reason()} says why. */
  SKIPPED
}
