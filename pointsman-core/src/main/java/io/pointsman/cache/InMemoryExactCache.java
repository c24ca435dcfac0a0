package io.pointsman.cache;

import io.pointsman.CacheControl;
import io.pointsman.Clock;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The default exact cache: responses kept in memory under a SHA-256 of the tenant scope
 * ({@link CacheQuery#tenant()}: org and team, or the key when the identity has neither), the
 * model that answered ({@link CacheQuery#keyModel()}) and the canonical request (key order, whitespace, and the fields that
 * do not change the answer — {@code stream}, {@code stream_options}, {@code user},
 * {@code metadata} — normalized away). By default only deterministic requests are eligible:
 * temperature 0 and a single choice. Entries expire after a TTL; when full, an arbitrary entry
 * is evicted (the cache module brings a Caffeine-backed L1 with proper eviction). Stores are
 * inline: they are a map insert. Thread-safe.
 */
public final class InMemoryExactCache implements ResponseCache {
  /** The layer name reported in cache statuses. */
  public static final String LAYER = "exact";

  private record Entry(ChatResponse response, Instant expiresAt) {}

  private final Clock clock;
  private final int maxEntries;
  private final Duration ttl;
  private final Predicate<ChatRequest> eligible;
  private final ConcurrentHashMap<ByteBuffer, Entry> entries = new ConcurrentHashMap<>();

  private InMemoryExactCache(Clock clock, int maxEntries, Duration ttl,
      Predicate<ChatRequest> eligible) {
    this.clock = clock;
    this.maxEntries = maxEntries;
    this.ttl = ttl;
    this.eligible = eligible;
  }

  /**
   * Returns a cache of 10,000 entries kept 10 minutes, deterministic requests only.
   *
   * @param clock the clock that decides expiry
   * @return the cache
   */
  public static InMemoryExactCache ofDefaults(Clock clock) {
    return of(clock, 10_000, Duration.ofMinutes(10), InMemoryExactCache::deterministic);
  }

  /**
   * Returns a cache with custom bounds and eligibility.
   *
   * @param clock the clock that decides expiry
   * @param maxEntries the most entries kept
   * @param ttl how long an entry lives
   * @param eligible which requests may be read and stored
   * @return the cache
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if maxEntries or ttl is not positive
   */
  public static InMemoryExactCache of(Clock clock, int maxEntries, Duration ttl,
      Predicate<ChatRequest> eligible) {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ttl, "ttl");
    Objects.requireNonNull(eligible, "eligible");
    if (maxEntries < 1 || ttl.isZero() || ttl.isNegative()) {
      throw new IllegalArgumentException("maxEntries and ttl must be positive");
    }
    return new InMemoryExactCache(clock, maxEntries, ttl, eligible);
  }

  /**
   * The default eligibility rule: temperature 0 and at most one choice.
   *
   * @param request the request
   * @return true when the request is deterministic
   */
  public static boolean deterministic(ChatRequest request) {
    return request.temperature() != null && request.temperature() == 0.0
        && (request.n() == null || request.n() == 1);
  }

  @Override
  public CacheLookup lookup(CacheQuery query) {
    if (!eligible.test(query.request())) {
      return CacheLookup.skipped("not deterministic");
    }
    ByteBuffer key = key(query);
    Entry entry = entries.get(key);
    if (entry == null) {
      return CacheLookup.miss(LAYER);
    }
    if (!clock.now().isBefore(entry.expiresAt())) {
      entries.remove(key, entry);
      return CacheLookup.miss(LAYER);
    }
    return CacheLookup.hit(LAYER, entry.response());
  }

  @Override
  public void store(CacheQuery query, ChatResponse response) {
    if (query.control() == CacheControl.NO_STORE || !eligible.test(query.request())) {
      return;
    }
    if (entries.size() >= maxEntries) {
      Iterator<ByteBuffer> it = entries.keySet().iterator();
      if (it.hasNext()) {
        it.next();
        it.remove();
      }
    }
    entries.put(key(query), new Entry(response, clock.now().plus(ttl)));
  }

  /**
   * Returns at once: stores are inline, so every store offered has completed.
   *
   * @param timeout ignored
   * @return true
   */
  @Override
  public boolean awaitStores(Duration timeout) {
    Objects.requireNonNull(timeout, "timeout");
    return true;
  }

  /**
   * Returns the number of entries held.
   *
   * @return the count
   */
  public int size() {
    return entries.size();
  }

  /**
   * Computes the cache key of a query: SHA-256 over the scope and the canonical request.
   *
   * @param query the query
   * @return 32 bytes
   */
  public static ByteBuffer key(CacheQuery query) {
    MessageDigest digest = sha256();
    String model = query.keyModel();
    digest.update(scope(query.tenant(), model));
    ChatRequest r = query.request();
    ChatRequest normalized = new ChatRequest(model, r.messages(), r.tools(),
        r.toolChoice(), r.temperature(), r.topP() != null && r.topP() == 1.0 ? null : r.topP(),
        r.maxTokens(), r.maxCompletionTokens(), r.stop(), r.seed(), r.responseFormat(), null,
        null, null, null, r.n() != null && r.n() == 1 ? null : r.n(), r.extra());
    Json.writeCanonical(normalized, new DigestOutputStream(OutputStream.nullOutputStream(),
        digest));
    return ByteBuffer.wrap(digest.digest());
  }

  private static byte[] scope(String tenant, String model) {
    // Lengths prefix each part so that no two different scopes give the same bytes.
    return (tenant.length() + ":" + tenant + ";" + model.length() + ":" + model + ";")
        .getBytes(StandardCharsets.UTF_8);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
