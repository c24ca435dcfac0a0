package io.pointsman.cache;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.CacheControl;
import io.pointsman.Clock;
import io.pointsman.model.Embedding;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.EmbeddingCache;
import io.pointsman.spi.EmbeddingCacheLookup;
import io.pointsman.spi.EmbeddingCacheQuery;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The default embeddings cache: responses kept in memory under a SHA-256 of the tenant scope
 * ({@link EmbeddingCacheQuery#tenant()}), the model whose vectors they are
 * ({@link EmbeddingCacheQuery#keyModel()}) and the canonical request: its input exactly as
 * sent, {@code dimensions}, the effective {@code encoding_format} and every field the model
 * does not name ({@code user} is left out: it does not change a vector). Bounded by entries
 * and by the bytes of the vectors held (4 per float); a response larger than a tenth of the
 * byte bound is not stored. When full, arbitrary entries are evicted. Thread-safe.
 */
public final class InMemoryEmbeddingCache implements EmbeddingCache {
  /** The layer name reported in cache statuses. */
  public static final String LAYER = "embeddings";

  private record Entry(EmbeddingResponse response, long bytes, Instant expiresAt) {}

  private final Clock clock;
  private final int maxEntries;
  private final long maxBytes;
  private final Duration ttl;
  private final ConcurrentHashMap<ByteBuffer, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong bytes = new AtomicLong();

  private InMemoryEmbeddingCache(Clock clock, int maxEntries, long maxBytes, Duration ttl) {
    this.clock = clock;
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
    this.ttl = ttl;
  }

  /**
   * Returns a cache of at most 10,000 entries and 64 MiB of vectors, kept one hour.
   *
   * @param clock the clock that decides expiry
   * @return the cache
   * @throws NullPointerException if clock is null
   */
  public static InMemoryEmbeddingCache ofDefaults(Clock clock) {
    return of(clock, 10_000, 64L << 20, Duration.ofHours(1));
  }

  /**
   * Returns a cache with custom bounds.
   *
   * @param clock the clock that decides expiry
   * @param maxEntries the most entries kept
   * @param maxBytes the most bytes of vectors kept
   * @param ttl how long an entry lives
   * @return the cache
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if a bound or the ttl is not positive
   */
  public static InMemoryEmbeddingCache of(Clock clock, int maxEntries, long maxBytes,
      Duration ttl) {
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(ttl, "ttl");
    if (maxEntries < 1 || maxBytes < 1 || ttl.isZero() || ttl.isNegative()) {
      throw new IllegalArgumentException("maxEntries, maxBytes and ttl must be positive");
    }
    return new InMemoryEmbeddingCache(clock, maxEntries, maxBytes, ttl);
  }

  @Override
  public EmbeddingCacheLookup lookup(EmbeddingCacheQuery query) {
    ByteBuffer key = key(query);
    Entry entry = entries.get(key);
    if (entry == null) {
      return EmbeddingCacheLookup.miss(LAYER);
    }
    if (!clock.now().isBefore(entry.expiresAt())) {
      if (entries.remove(key, entry)) {
        bytes.addAndGet(-entry.bytes());
      }
      return EmbeddingCacheLookup.miss(LAYER);
    }
    return EmbeddingCacheLookup.hit(LAYER, entry.response());
  }

  @Override
  public void store(EmbeddingCacheQuery query, EmbeddingResponse response) {
    if (query.control() == CacheControl.NO_STORE) {
      return;
    }
    long size = sizeOf(response);
    if (size > maxBytes / 10) {
      return;
    }
    Iterator<Map.Entry<ByteBuffer, Entry>> it = entries.entrySet().iterator();
    while ((entries.size() >= maxEntries || bytes.get() + size > maxBytes) && it.hasNext()) {
      Map.Entry<ByteBuffer, Entry> e = it.next();
      if (entries.remove(e.getKey(), e.getValue())) {
        bytes.addAndGet(-e.getValue().bytes());
      }
    }
    Entry previous = entries.put(key(query), new Entry(response, size,
        clock.now().plus(ttl)));
    bytes.addAndGet(size - (previous == null ? 0 : previous.bytes()));
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
   * Returns the bytes of vectors held.
   *
   * @return the bytes
   */
  public long bytes() {
    return bytes.get();
  }

  private static long sizeOf(EmbeddingResponse response) {
    long total = 0;
    for (Embedding e : response.data()) {
      if (e != null && e.embedding() != null) {
        total += 4L * e.embedding().dimensions();
      }
    }
    return total;
  }

  /**
   * Computes the cache key of a query: SHA-256 over the scope and the canonical request.
   *
   * @param query the query
   * @return 32 bytes
   */
  public static ByteBuffer key(EmbeddingCacheQuery query) {
    MessageDigest digest = sha256();
    String tenant = query.tenant();
    String model = query.keyModel();
    digest.update((tenant.length() + ":" + tenant + ";" + model.length() + ":" + model + ";")
        .getBytes(StandardCharsets.UTF_8));
    EmbeddingRequest r = query.request();
    ObjectNode canonical = JsonNodeFactory.instance.objectNode();
    canonical.set("input", r.input());
    canonical.put("encoding_format", r.effectiveEncodingFormat());
    if (r.dimensions() != null) {
      canonical.put("dimensions", r.dimensions());
    }
    if (!r.extra().isEmpty()) {
      canonical.set("extra", Json.mapper().valueToTree(r.extra()));
    }
    Json.writeCanonical(canonical, new DigestOutputStream(OutputStream.nullOutputStream(),
        digest));
    return ByteBuffer.wrap(digest.digest());
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
