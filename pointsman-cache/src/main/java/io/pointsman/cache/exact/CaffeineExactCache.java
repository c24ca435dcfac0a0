package io.pointsman.cache.exact;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.pointsman.CacheControl;
import io.pointsman.CacheStatus;
import io.pointsman.Clock;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.tiered.CacheCounters;
import io.pointsman.cache.tiered.CacheCounters.Counter;
import io.pointsman.cache.tiered.PendingStores;
import io.pointsman.cache.tiered.StoreExecutors;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Predicate;
import redis.clients.jedis.params.SetParams;

/**
 * The exact L1: responses in process (Caffeine, size-bounded with W-TinyLFU eviction, expiring
 * a fixed time after the write) under the tenant scope and the request normalized as core's
 * canonical key normalizes it, compared structurally (key order and dropped fields do not
 * matter; a fast seeded hash picks the bucket, equality decides, so no digest collision can
 * cross tenants). With {@link Builder#shared} an L1 miss reads a shared exact tier in Redis
 * under core's canonical SHA-256 ({@link InMemoryExactCache#key}), bounded by the connection's
 * time-out; a Redis hit refills the L1. Writes to Redis, and their SHA-256, run off the request
 * thread. Only eligible requests are read or stored (by default deterministic ones:
 * temperature 0, one choice). Thread-safe.
 *
 * <pre>{@code
 * ResponseCache cache = CaffeineExactCache.builder()
 *     .maximumSize(50_000)
 *     .ttl(Duration.ofMinutes(30))
 *     .build();
 * Gateway gateway = Gateway.builder().cache(cache)...build();
 * }</pre>
 */
public final class CaffeineExactCache implements ResponseCache, AutoCloseable {
  /** The layer name of the in-process tier in cache statuses. */
  public static final String LAYER = "exact";
  /** The layer name of the shared tier in cache statuses. */
  public static final String SHARED_LAYER = "exact-redis";

  private static final String BOTH_LAYERS = LAYER + "+" + SHARED_LAYER;

  private final Cache<ExactKey, ChatResponse> entries;
  private final Predicate<ChatRequest> eligible;
  private final Duration ttl;
  private final RedisConnection shared;
  private final Executor executor;
  private final ExecutorService ownedExecutor;
  private final CacheCounters counters;
  private final PendingStores pending = new PendingStores();

  private CaffeineExactCache(Builder b) {
    Clock clock = b.clock;
    this.entries = Caffeine.newBuilder().maximumSize(b.maximumSize).expireAfterWrite(b.ttl)
        .ticker(clock::nanoTime).executor(Runnable::run).build();
    this.eligible = b.eligible;
    this.ttl = b.ttl;
    this.shared = b.shared;
    this.counters = b.counters;
    if (b.executor == null && b.shared != null) {
      this.ownedExecutor = StoreExecutors.bounded("pointsman-exact-store", 10_000);
      this.executor = ownedExecutor;
    } else {
      this.ownedExecutor = null;
      this.executor = b.executor == null ? Runnable::run : b.executor;
    }
  }

  /**
   * Returns a builder: 10,000 entries, 10 minutes, deterministic requests, no shared tier.
   *
   * @return the builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public CacheLookup lookup(CacheQuery query) {
    if (!eligible.test(query.request())) {
      counters.increment(Counter.SKIPPED);
      return CacheLookup.skipped("not deterministic");
    }
    ExactKey key = ExactKey.of(query);
    ChatResponse found = entries.getIfPresent(key);
    if (found != null) {
      counters.increment(Counter.EXACT_HITS);
      return CacheLookup.hit(LAYER, found);
    }
    counters.increment(Counter.EXACT_MISSES);
    if (shared == null) {
      return CacheLookup.miss(LAYER);
    }
    byte[] bytes;
    try {
      bytes = shared.client().get(redisKey(InMemoryExactCache.key(query)));
    } catch (RuntimeException e) {
      return sharedFailure(e);
    }
    if (bytes == null) {
      counters.increment(Counter.SHARED_EXACT_MISSES);
      return CacheLookup.miss(BOTH_LAYERS);
    }
    ChatResponse response;
    try {
      response = Json.readResponse(bytes);
    } catch (RuntimeException e) {
      counters.increment(Counter.REDIS_ERRORS);
      return new CacheLookup(new CacheStatus(io.pointsman.CacheOutcome.MISS, BOTH_LAYERS,
          "error: unreadable entry"), null);
    }
    counters.increment(Counter.SHARED_EXACT_HITS);
    entries.put(key, response);
    return CacheLookup.hit(SHARED_LAYER, response);
  }

  private CacheLookup sharedFailure(RuntimeException e) {
    boolean timeout = RedisConnection.isTimeout(e);
    counters.increment(timeout ? Counter.REDIS_TIMEOUTS : Counter.REDIS_ERRORS);
    return new CacheLookup(new CacheStatus(io.pointsman.CacheOutcome.MISS, BOTH_LAYERS,
        timeout ? "error: redis timeout" : "error: redis unavailable"), null);
  }

  @Override
  public void store(CacheQuery query, ChatResponse response) {
    if (query.control() == CacheControl.NO_STORE || !eligible.test(query.request())) {
      return;
    }
    entries.put(ExactKey.of(query), response);
    counters.increment(Counter.STORES_DONE);
    if (shared == null) {
      return;
    }
    try {
      counters.increment(Counter.STORES_QUEUED);
      pending.execute(executor, () -> publish(InMemoryExactCache.key(query), response));
    } catch (RejectedExecutionException e) {
      counters.increment(Counter.STORES_DROPPED);
    }
  }

  private void publish(ByteBuffer key, ChatResponse response) {
    try {
      shared.client().set(redisKey(key), Json.writeBytes(response),
          SetParams.setParams().px(ttl.toMillis()));
      counters.increment(Counter.ENTRIES_PUBLISHED);
    } catch (RuntimeException e) {
      counters.increment(RedisConnection.isTimeout(e) ? Counter.REDIS_TIMEOUTS
          : Counter.REDIS_ERRORS);
      counters.increment(Counter.STORES_DROPPED);
    }
  }

  private byte[] redisKey(ByteBuffer key) {
    byte[] digest = new byte[key.remaining()];
    key.duplicate().get(digest);
    return (shared.keyPrefix() + "exact:" + HexFormat.of().formatHex(digest))
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Returns the approximate number of entries in process.
   *
   * @return the count
   */
  public long size() {
    entries.cleanUp();
    return entries.estimatedSize();
  }

  /**
   * Returns this cache's counters.
   *
   * @return the live counters
   */
  public CacheCounters counters() {
    return counters;
  }

  /**
   * Waits until every write to the shared tier offered so far has been sent (or failed and
   * been counted). In process, a store is a map insert done before {@link #store} returns;
   * without a shared tier this returns true at once.
   *
   * @param timeout how long to wait at most
   * @return true if no write was pending within the time-out
   * @throws InterruptedException if interrupted while waiting
   */
  @Override
  public boolean awaitStores(Duration timeout) throws InterruptedException {
    return pending.await(timeout);
  }

  /** Stops the store thread this cache started, if any; the Redis connection stays open. */
  @Override
  public void close() {
    if (ownedExecutor != null) {
      ownedExecutor.shutdown();
    }
  }

  /** Configures a {@link CaffeineExactCache}. Not thread-safe. */
  public static final class Builder {
    private long maximumSize = 10_000;
    private Duration ttl = Duration.ofMinutes(10);
    private Predicate<ChatRequest> eligible = InMemoryExactCache::deterministic;
    private Clock clock = Clock.system();
    private RedisConnection shared;
    private Executor executor;
    private CacheCounters counters = new CacheCounters();

    private Builder() {}

    /**
     * Sets the most entries kept in process.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maximumSize(long value) {
      if (value < 1) {
        throw new IllegalArgumentException("maximumSize must be at least 1: " + value);
      }
      this.maximumSize = value;
      return this;
    }

    /**
     * Sets how long an entry lives after it was written, in process and in Redis.
     *
     * @param value a positive duration
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder ttl(Duration value) {
      Objects.requireNonNull(value, "value");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("ttl must be positive: " + value);
      }
      this.ttl = value;
      return this;
    }

    /**
     * Sets which requests may be read and stored.
     *
     * @param value the rule; default {@link InMemoryExactCache#deterministic}
     * @return this builder
     */
    public Builder eligibility(Predicate<ChatRequest> value) {
      this.eligible = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the clock that drives expiry.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Adds the shared exact tier in Redis.
     *
     * @param value the connection
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder shared(RedisConnection value) {
      Objects.requireNonNull(value, "value");
      if (shared != null) {
        throw new IllegalStateException("shared was already set to " + shared.keyPrefix());
      }
      this.shared = value;
      return this;
    }

    /**
     * Sets the executor for writes to Redis; default one daemon thread, 10,000 queued.
     *
     * @param value the executor
     * @return this builder
     */
    public Builder storeExecutor(Executor value) {
      this.executor = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Shares counters with other caches (a tiered cache passes its own).
     *
     * @param value the counters
     * @return this builder
     */
    public Builder counters(CacheCounters value) {
      this.counters = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Builds the cache.
     *
     * @return the cache
     */
    public CaffeineExactCache build() {
      return new CaffeineExactCache(this);
    }
  }
}
