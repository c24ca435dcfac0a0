package io.pointsman.cache.tiered;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters a cache keeps about itself: hits and misses per layer, shared-tier failures and
 * time-outs, store queue drops and replication progress. Thread-safe; increments are cheap.
 */
public final class CacheCounters {
  /** What is counted. */
  public enum Counter {
    /** Hits in the in-process exact layer. */
    EXACT_HITS,
    /** Misses in the in-process exact layer. */
    EXACT_MISSES,
    /** Hits in the shared exact tier in Redis. */
    SHARED_EXACT_HITS,
    /** Misses in the shared exact tier in Redis. */
    SHARED_EXACT_MISSES,
    /** Semantic lookups, whatever their outcome. */
    SEMANTIC_LOOKUPS,
    /** Semantic hits. */
    SEMANTIC_HITS,
    /** Semantic misses, lexical rejections included. */
    SEMANTIC_MISSES,
    /** Candidates above the threshold that the lexical verification refused. */
    LEXICAL_REJECTIONS,
    /** Lookups or stores skipped as not eligible. */
    SKIPPED,
    /** Semantic lookups answered {@code SKIPPED(overload)}: the embedding queue was full. */
    SEMANTIC_SKIPPED_OVERLOAD,
    /** Semantic lookups answered {@code SKIPPED(deadline)}: the embedding missed the deadline. */
    SEMANTIC_SKIPPED_DEADLINE,
    /** Redis commands that timed out (each a miss or a lost store, never a failure). */
    REDIS_TIMEOUTS,
    /** Redis commands that failed otherwise (refused connection, protocol error). */
    REDIS_ERRORS,
    /** Embedding failures (each a miss). */
    EMBEDDING_ERRORS,
    /** Stores handed to the background executor. */
    STORES_QUEUED,
    /** Stores completed in process. */
    STORES_DONE,
    /** Stores dropped: queue full, scope full, or the store failed. */
    STORES_DROPPED,
    /** Entries written to Redis for other instances. */
    ENTRIES_PUBLISHED,
    /** Entries read from Redis that other instances wrote. */
    ENTRIES_REPLICATED
  }

  private final EnumMap<Counter, LongAdder> adders = new EnumMap<>(Counter.class);

  /** Creates counters at zero. */
  public CacheCounters() {
    for (Counter c : Counter.values()) {
      adders.put(c, new LongAdder());
    }
  }

  /**
   * Adds one.
   *
   * @param counter which
   */
  public void increment(Counter counter) {
    adders.get(counter).increment();
  }

  /**
   * Returns one counter's value.
   *
   * @param counter which
   * @return the value
   */
  public long get(Counter counter) {
    return adders.get(counter).sum();
  }

  /**
   * Returns every counter's value at about the same time.
   *
   * @return an immutable map in declaration order
   */
  public Map<Counter, Long> snapshot() {
    EnumMap<Counter, Long> out = new EnumMap<>(Counter.class);
    adders.forEach((k, v) -> out.put(k, v.sum()));
    return java.util.Collections.unmodifiableMap(out);
  }

  /**
   * Returns the non-zero counters as {@code NAME=value} pairs.
   *
   * @return the text
   */
  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("CacheCounters{");
    snapshot().forEach((k, v) -> {
      if (v != 0) {
        sb.append(sb.length() > 14 ? ", " : "").append(k).append('=').append(v);
      }
    });
    return sb.append('}').toString();
  }
}
