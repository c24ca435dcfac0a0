package io.pointsman.cache.semantic;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.pointsman.CacheControl;
import io.pointsman.CacheOutcome;
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
import io.pointsman.model.Content;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Predicate;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.resps.StreamEntry;

/**
 * The semantic L2: answers a request with the response to an earlier request that asked the
 * same thing in other words.
 *
 * <p><b>What is compared.</b> The text of the last message, which must be a user turn of
 * text only. All the rest — the tenant ({@link CacheQuery#tenant()}: org and team, or the key
 * when there is neither), the model that answered ({@link CacheQuery#keyModel()}), the system
 * prompt, every earlier message, tools, tool choice, response format and every parameter —
 * forms the scope key ({@link InMemoryExactCache#key} of the request with that last text
 * blanked), and an entry is only ever compared with entries of the same scope. Two tenants
 * therefore never share an entry, nor do two conversations with different histories.
 *
 * <p><b>When it hits.</b> The text is embedded with the {@link Embedder} (normally
 * {@link MiniLmEmbedder}); the scope's
 * {@link VectorIndex} (a flat scan up to {@link #DEFAULT_GRAPH_FROM} entries, HNSW beyond)
 * returns the nearest entries; a candidate answers only if its cosine
 * similarity reaches the threshold (default 0.85) <em>and</em> the {@link HitVerifier}
 * (default {@link AlignmentVerifier}) accepts the two texts. The similarity is reported in the
 * status's reason ({@code similarity=0.9412}).
 *
 * <p><b>Latency budget.</b> One embedding thread embeds every waiting text, lookups first, up
 * to {@link Builder#maxBatch} per {@link Embedder#embedBatch} run. A lookup waits at most
 * {@link Builder#lookupDeadline} (default 5 ms) and then answers {@code SKIPPED(deadline)}; when
 * {@link Builder#embeddingQueueCapacity} lookups (default 16) already wait, it answers
 * {@code SKIPPED(overload)} at once. Both are counted ({@link #skippedForOverload()},
 * {@link #skippedForDeadline()}). An embedding a lookup started is kept by text, finished or
 * not, and the store of the same text uses it instead of embedding again; the store of a text
 * whose lookup was refused for overload is dropped (counted as a dropped store), so that under
 * overload the embedder's time goes to lookups, not to stores.
 *
 * <p><b>Stores</b> run on a background executor: embedding, indexing, and with a shared
 * {@link RedisConnection}, an append to a Redis stream ({@code <prefix>semantic:stream},
 * trimmed to about {@code maxEntries} most recent entries). Every instance reads that stream every sync interval
 * (default 100 ms), so an entry stored on one instance is visible to the others within one
 * interval plus one Redis round trip while Redis answers; a new instance replays the stream,
 * so entries outlive the process until their TTL. Redis is never on the lookup path; a Redis
 * failure delays replication and is counted, never failing a call.
 *
 * <p>Thread-safe. Close it to stop its threads.
 *
 * <pre>{@code
 * MiniLmEmbedder embedder = MiniLmEmbedder.builder().build();
 * SemanticCache semantic = SemanticCache.builder(embedder).shared(redis).build();
 * }</pre>
 */
public final class SemanticCache implements ResponseCache, AutoCloseable {
  /** The layer name in cache statuses. */
  public static final String LAYER = "semantic";
  /** The scope size from which an HNSW graph replaces the flat scan, by default. */
  public static final int DEFAULT_GRAPH_FROM = 2_048;
  /** The default similarity threshold. */
  public static final double DEFAULT_THRESHOLD = 0.85;

  private static final int CANDIDATES = 5;
  private static final int SWEEP_EVERY = 1024;
  /** The default time a lookup waits for its embedding. */
  public static final Duration DEFAULT_LOOKUP_DEADLINE = Duration.ofMillis(5);
  /** The default most texts in one embedder run. */
  public static final int DEFAULT_MAX_BATCH = 8;
  /** The default most lookups waiting for the embedder. */
  public static final int DEFAULT_QUEUE_CAPACITY = 2 * DEFAULT_MAX_BATCH;
  /** The skip reason when the embedding queue is full. */
  public static final String OVERLOAD = "overload";
  /** The skip reason when the embedding missed the lookup deadline. */
  public static final String DEADLINE = "deadline";

  private static final long MEMO_MAX_BYTES = 16L << 20;
  private static final int STORE_QUEUE = 10_000;

  private final Embedder embedder;
  private final EmbeddingQueue queue;
  private final long deadlineNanos;
  private final HitVerifier verifier;
  private final double threshold;
  private final Duration ttl;
  private final int maxEntries;
  private final AtomicInteger vectorsHeld = new AtomicInteger();
  private final AtomicInteger storesSinceSweep = new AtomicInteger();
  private final Predicate<ChatRequest> eligible;
  private final Clock clock;
  private final int graphFrom;
  private final int graphSearchBreadth;
  private final CacheCounters counters;
  private final ExecutorService storeExecutor;
  private final boolean ownsStoreExecutor;
  private final RedisConnection shared;
  private final ScheduledExecutorService syncer;
  private final String origin = UUID.randomUUID().toString();
  private final Map<String, Scope> scopes = new ConcurrentHashMap<>();
  // Embeddings by text, in flight or done: a store finds the lookup's embedding here, even one
  // the lookup stopped waiting for, and never embeds the text again. Failed ones drop out.
  // A lookup refused for overload leaves REFUSED here (weighed and evicted like the others), so
  // that its store sheds the text instead of embedding it.
  private static final float[] REFUSED = new float[0];
  private final AsyncCache<String, float[]> embeddings = Caffeine.newBuilder()
      .maximumWeight(MEMO_MAX_BYTES)
      .weigher((String text, float[] v) -> 2 * text.length() + Float.BYTES * v.length + 64)
      .executor(Runnable::run).buildAsync();
  private final ReentrantLock syncLock = new ReentrantLock();
  private final PendingStores pending = new PendingStores();
  private volatile String lastStreamId = "0-0";

  /** A lookup refused by the full queue; no stack trace. */
  private static final class Overloaded extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Overloaded() {
      super(OVERLOAD, null, false, false);
    }
  }

  private record Entry(String text, ChatResponse response, Instant expiresAt) {}

  /** The entries of one scope and their index. */
  private static final class Scope {
    final VectorIndex index;
    final Map<Integer, Entry> entries = new ConcurrentHashMap<>();
    final AtomicInteger nextId = new AtomicInteger();
    final ReentrantLock addLock = new ReentrantLock();

    Scope(VectorIndex index) {
      this.index = index;
    }
  }

  private SemanticCache(Builder b) {
    this.embedder = b.embedder;
    this.deadlineNanos = b.lookupDeadline.toNanos();
    this.queue = new EmbeddingQueue(b.embedder, b.queueCapacity, STORE_QUEUE, b.maxBatch,
        deadlineNanos);
    this.verifier = b.verifier;
    this.threshold = b.threshold;
    this.ttl = b.ttl;
    this.maxEntries = b.maxEntries;
    this.eligible = b.eligible;
    this.clock = b.clock;
    this.graphFrom = b.graphFrom;
    this.graphSearchBreadth = b.graphSearchBreadth;
    this.counters = b.counters;
    this.shared = b.shared;
    this.ownsStoreExecutor = b.storeExecutor == null;
    this.storeExecutor = b.storeExecutor != null ? b.storeExecutor
        : StoreExecutors.bounded("pointsman-semantic-store", 10_000);
    if (shared != null) {
      this.syncer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pointsman-semantic-sync");
        t.setDaemon(true);
        return t;
      });
      long millis = b.syncInterval.toMillis();
      syncer.scheduleWithFixedDelay(this::syncQuietly, 0, millis, TimeUnit.MILLISECONDS);
    } else {
      this.syncer = null;
    }
  }

  /**
   * Returns a builder over an embedder: threshold 0.85, {@link HitVerifier#standard()}, 10 minutes TTL, 100,000 entries,
   * deterministic requests only, a flat scan per scope up to 2,048 entries and HNSW beyond, no
   * shared tier; a 5 ms lookup deadline, 16 lookups waiting for the embedder at most, 8 texts
   * per embedder run.
   *
   * @param embedder the embedder; not closed by the cache
   * @return the builder
   * @throws NullPointerException if embedder is null
   */
  public static Builder builder(Embedder embedder) {
    return new Builder(Objects.requireNonNull(embedder, "embedder"));
  }

  @Override
  public CacheLookup lookup(CacheQuery query) {
    return search(query).lookup();
  }

  /**
   * Looks a request up and reports the similarity and verification behind the answer.
   *
   * @param query the request within its scope
   * @return the detailed result
   */
  public SemanticLookup search(CacheQuery query) {
    long start = System.nanoTime();
    counters.increment(Counter.SEMANTIC_LOOKUPS);
    if (!eligible.test(query.request())) {
      counters.increment(Counter.SKIPPED);
      return new SemanticLookup(CacheLookup.skipped("not deterministic"), Double.NaN, "", null);
    }
    String text = textToEmbed(query.request());
    if (text == null) {
      counters.increment(Counter.SKIPPED);
      return new SemanticLookup(CacheLookup.skipped("last message is not a user text"),
          Double.NaN, "", null);
    }
    Scope scope = scopes.get(scopeKey(query));
    if (scope == null || scope.entries.isEmpty()) {
      counters.increment(Counter.SEMANTIC_MISSES);
      return new SemanticLookup(miss("empty scope"), Double.NaN, "", null);
    }
    float[] vector;
    try {
      vector = awaitEmbedding(text, start);
    } catch (Overloaded e) {
      counters.increment(Counter.SEMANTIC_SKIPPED_OVERLOAD);
      return skipped(OVERLOAD);
    } catch (TimeoutException e) {
      counters.increment(Counter.SEMANTIC_SKIPPED_DEADLINE);
      return skipped(DEADLINE);
    } catch (RuntimeException e) {
      counters.increment(Counter.EMBEDDING_ERRORS);
      return new SemanticLookup(new CacheLookup(CacheStatus.error(LAYER), null), Double.NaN, "",
          null);
    }
    List<VectorIndex.Neighbor> neighbors = scope.index.search(vector, CANDIDATES);
    Instant now = clock.now();
    double best = Double.NaN;
    SemanticLookup refused = null;
    HitVerifier.Query bound = null;
    for (VectorIndex.Neighbor n : neighbors) {
      Entry entry = scope.entries.get(n.id());
      if (entry == null || !now.isBefore(entry.expiresAt())) {
        continue;
      }
      if (Double.isNaN(best)) {
        best = n.similarity();
      }
      if (n.similarity() < threshold) {
        break;
      }
      if (bound == null) {
        bound = verifier.bind(text);
      }
      Verdict verdict = bound.verify(entry.text());
      if (verdict.agrees()) {
        counters.increment(Counter.SEMANTIC_HITS);
        return new SemanticLookup(new CacheLookup(new CacheStatus(CacheOutcome.HIT, LAYER,
            similarity(n.similarity())), entry.response()), n.similarity(), entry.text(), verdict);
      }
      counters.increment(Counter.LEXICAL_REJECTIONS);
      if (refused == null) {
        refused = new SemanticLookup(miss(similarity(n.similarity()) + " refused: "
            + verdict.reason()), n.similarity(), entry.text(), verdict);
      }
    }
    counters.increment(Counter.SEMANTIC_MISSES);
    if (refused != null) {
      return refused;
    }
    String reason = Double.isNaN(best) ? "empty scope"
        : similarity(best) + " below " + String.format(Locale.ROOT, "%.4f", threshold);
    return new SemanticLookup(miss(reason), best, "", null);
  }

  private static SemanticLookup skipped(String reason) {
    return new SemanticLookup(new CacheLookup(new CacheStatus(CacheOutcome.SKIPPED, LAYER,
        reason), null), Double.NaN, "", null);
  }

  /**
   * Waits for the text's embedding until the deadline, counted from the start of the lookup;
   * queues it unless a store or an earlier lookup already did.
   */
  private float[] awaitEmbedding(String text, long start) throws TimeoutException {
    CompletableFuture<float[]> future = embedding(text, true);
    if (future == null) {
      throw new Overloaded();
    }
    try {
      return future.get(Math.max(0, deadlineNanos - (System.nanoTime() - start)),
          TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new TimeoutException("interrupted");
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new EmbeddingException("embedding failed", e.getCause());
    }
  }

  private static CacheLookup miss(String reason) {
    return new CacheLookup(new CacheStatus(CacheOutcome.MISS, LAYER, reason), null);
  }

  private static String similarity(double s) {
    return String.format(Locale.ROOT, "similarity=%.4f", s);
  }

  @Override
  public void store(CacheQuery query, ChatResponse response) {
    if (query.control() == CacheControl.NO_STORE || !eligible.test(query.request())) {
      return;
    }
    String text = textToEmbed(query.request());
    if (text == null) {
      return;
    }
    String scopeKey = scopeKey(query);
    Instant expiresAt = clock.now().plus(ttl);
    counters.increment(Counter.STORES_QUEUED);
    // Queued here, not on the store thread, so that the embeddings of many stores share runs.
    CompletableFuture<float[]> future = embedding(text, false);
    if (future == null) {
      counters.increment(Counter.STORES_DROPPED);
      return;
    }
    try {
      pending.execute(storeExecutor, () -> storeNow(scopeKey, text, future, response,
          expiresAt));
    } catch (RejectedExecutionException e) {
      counters.increment(Counter.STORES_DROPPED);
    }
  }

  private void storeNow(String scopeKey, String text, CompletableFuture<float[]> future,
      ChatResponse response, Instant expiresAt) {
    float[] vector;
    try {
      vector = future.join();
    } catch (CompletionException | java.util.concurrent.CancellationException e) {
      counters.increment(Counter.EMBEDDING_ERRORS);
      counters.increment(Counter.STORES_DROPPED);
      return;
    }
    if (storesSinceSweep.incrementAndGet() % SWEEP_EVERY == 0) {
      sweepExpired();
    }
    if (!add(scopeKey, text, vector, response, expiresAt)) {
      return;
    }
    if (shared != null) {
      publish(scopeKey, text, vector, response, expiresAt);
    }
  }

  private boolean add(String scopeKey, String text, float[] vector, ChatResponse response,
      Instant expiresAt) {
    while (true) {
      Scope scope = scopes.computeIfAbsent(scopeKey, k -> new Scope(
          graphFrom == Integer.MAX_VALUE ? VectorIndex.flat(embedder.dimensions())
              : VectorIndex.adaptive(embedder.dimensions(), graphFrom,
                  graphSearchBreadth)));
      scope.addLock.lock();
      try {
        if (scopes.get(scopeKey) != scope) {
          continue; // swept between lookup and lock: add to the scope that replaced it
        }
        if (vectorsHeld.incrementAndGet() > maxEntries) {
          vectorsHeld.decrementAndGet();
          counters.increment(Counter.STORES_DROPPED);
          return false;
        }
        int id = scope.nextId.getAndIncrement();
        scope.entries.put(id, new Entry(text, response, expiresAt));
        scope.index.add(id, vector);
        counters.increment(Counter.STORES_DONE);
        return true;
      } finally {
        scope.addLock.unlock();
      }
    }
  }

  /**
   * Drops expired entries, and whole scopes once every entry in them expired; only then are
   * their vectors freed, since an index does not delete. The vectors of expired entries in a
   * live scope count against the bound until the scope empties.
   */
  private void sweepExpired() {
    Instant now = clock.now();
    for (Map.Entry<String, Scope> e : scopes.entrySet()) {
      Scope scope = e.getValue();
      scope.addLock.lock();
      try {
        scope.entries.values().removeIf(entry -> !now.isBefore(entry.expiresAt()));
        if (scope.entries.isEmpty() && scopes.remove(e.getKey(), scope)) {
          vectorsHeld.addAndGet(-scope.index.size());
        }
      } finally {
        scope.addLock.unlock();
      }
    }
  }

  /**
   * Returns the text's embedding, finished or running, queueing it when nobody has: as a lookup
   * (refused under overload) or as a store.
   *
   * @return the future, or {@code null} when the queue refused it
   */
  private CompletableFuture<float[]> embedding(String text, boolean lookup) {
    CompletableFuture<float[]> known = embeddings.getIfPresent(text);
    boolean refused = known != null && known.getNow(null) == REFUSED;
    if (known != null && !refused) {
      return known;
    }
    if (refused && !lookup) {
      // Its lookup was refused for overload: embedding it for the store would take the
      // embedder's time from the lookups that come next, and under a lasting overload every
      // lookup would be refused while the embedder works through stores.
      return null;
    }
    CompletableFuture<float[]> queued = lookup ? queue.offerLookup(text)
        : queue.submitStore(text);
    if (queued == null) {
      if (lookup) {
        embeddings.asMap().putIfAbsent(text, CompletableFuture.completedFuture(REFUSED));
      }
      return null;
    }
    CompletableFuture<float[]> now = embeddings.asMap().compute(text,
        (k, current) -> current == null || current.getNow(null) == REFUSED ? queued : current);
    if (now != queued) {
      queued.cancel(false); // another call queued the same text first: the worker skips ours
      return now;
    }
    return queued;
  }

  private String streamKey() {
    return shared.keyPrefix() + "semantic:stream";
  }

  private void publish(String scopeKey, String text, float[] vector, ChatResponse response,
      Instant expiresAt) {
    try {
      shared.client().xadd(streamKey(),
          XAddParams.xAddParams().maxLen(maxEntries).approximateTrimming(),
          Map.of("origin", origin, "scope", scopeKey, "text", text,
              "vector", encode(vector), "response", Json.write(response),
              "expires", Long.toString(expiresAt.toEpochMilli())));
      counters.increment(Counter.ENTRIES_PUBLISHED);
    } catch (RuntimeException e) {
      counters.increment(RedisConnection.isTimeout(e) ? Counter.REDIS_TIMEOUTS
          : Counter.REDIS_ERRORS);
    }
  }

  private void syncQuietly() {
    try {
      syncNow();
    } catch (RuntimeException e) {
      counters.increment(RedisConnection.isTimeout(e) ? Counter.REDIS_TIMEOUTS
          : Counter.REDIS_ERRORS);
    }
  }

  /**
   * Reads the entries other instances appended to the shared stream since the last read and
   * indexes them. Runs every sync interval on the cache's own thread; tests call it to avoid
   * waiting.
   *
   * @return how many entries were indexed
   * @throws IllegalStateException if the cache has no shared tier
   * @throws RuntimeException whatever the Redis client throws when Redis fails
   */
  public int syncNow() {
    if (shared == null) {
      throw new IllegalStateException("no shared tier configured");
    }
    syncLock.lock();
    try {
      int applied = 0;
      while (true) {
        List<Map.Entry<String, List<StreamEntry>>> read = shared.client().xread(
            XReadParams.xReadParams().count(1000),
            Map.of(streamKey(), new StreamEntryID(lastStreamId)));
        if (read == null || read.isEmpty() || read.get(0).getValue().isEmpty()) {
          return applied;
        }
        List<StreamEntry> entries = read.get(0).getValue();
        Instant now = clock.now();
        for (StreamEntry e : entries) {
          lastStreamId = e.getID().toString();
          Map<String, String> f = e.getFields();
          if (origin.equals(f.get("origin"))) {
            continue;
          }
          Instant expires = Instant.ofEpochMilli(Long.parseLong(f.get("expires")));
          if (!now.isBefore(expires)) {
            continue;
          }
          ChatResponse response = Json.readResponse(
              f.get("response").getBytes(java.nio.charset.StandardCharsets.UTF_8));
          if (add(f.get("scope"), f.get("text"), decode(f.get("vector")), response, expires)) {
            counters.increment(Counter.ENTRIES_REPLICATED);
            applied++;
          }
        }
        if (entries.size() < 1000) {
          return applied;
        }
      }
    } finally {
      syncLock.unlock();
    }
  }

  private static String encode(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(v.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return Base64.getEncoder().encodeToString(b.array());
  }

  private static float[] decode(String s) {
    ByteBuffer b = ByteBuffer.wrap(Base64.getDecoder().decode(s)).order(ByteOrder.LITTLE_ENDIAN);
    float[] v = new float[b.remaining() / Float.BYTES];
    b.asFloatBuffer().get(v);
    return v;
  }

  /**
   * Returns the text a request is compared by: the last message's text when it is a user
   * turn of text only, else {@code null}.
   *
   * @param request the request
   * @return the text, or {@code null} when the request has no such turn
   */
  public static String textToEmbed(ChatRequest request) {
    List<Message> messages = request.messages();
    if (messages == null || messages.isEmpty()) {
      return null;
    }
    Message last = messages.get(messages.size() - 1);
    if (last == null || last.role() != Role.USER || last.content() == null) {
      return null;
    }
    if (last.content() instanceof Content.Parts parts
        && parts.parts().stream().anyMatch(p -> p.text() == null)) {
      // An image or another non-text part is part of the question, and the text alone does
      // not show it: such a turn is not compared.
      return null;
    }
    return last.text();
  }

  /**
   * Returns the scope key of a query: everything but the last user text — the tenant
   * ({@link CacheQuery#tenant()}), the model that answered ({@link CacheQuery#keyModel()}), the
   * system prompt, every earlier turn, tools, tool choice, response format and every
   * parameter — hashed as core's canonical key hashes a request.
   *
   * @param query the query
   * @return a hex SHA-256
   */
  public static String scopeKey(CacheQuery query) {
    ChatRequest r = query.request();
    List<Message> rest = new ArrayList<>(r.messages());
    Message last = rest.remove(rest.size() - 1);
    rest.add(new Message(last.role(), null, last.name(), last.toolCalls(), last.toolCallId(),
        last.extra()));
    ChatRequest blanked = new ChatRequest(r.model(), rest, r.tools(), r.toolChoice(),
        r.temperature(), r.topP(), r.maxTokens(), r.maxCompletionTokens(), r.stop(), r.seed(),
        r.responseFormat(), r.user(), r.metadata(), r.stream(), r.streamOptions(), r.n(),
        r.extra());
    ByteBuffer key = InMemoryExactCache.key(new CacheQuery(query.identity(), query.model(),
        blanked, query.control(), query.answeredBy()));
    byte[] bytes = new byte[key.remaining()];
    key.get(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  /**
   * Returns the number of live entries across scopes in this instance.
   *
   * @return the count
   */
  public int size() {
    int n = 0;
    for (Scope s : scopes.values()) {
      n += s.entries.size();
    }
    return n;
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
   * Waits until every store offered so far has been embedded and indexed locally (and
   * published when shared), or dropped and counted. For tests, benchmarks and orderly
   * shutdown; works with any store executor.
   *
   * @param timeout how long to wait at most
   * @return true if no store was pending within the time-out
   * @throws InterruptedException if interrupted while waiting
   */
  @Override
  public boolean awaitStores(Duration timeout) throws InterruptedException {
    return pending.await(timeout);
  }

  /** Stops the sync thread and, when the cache created it, the store thread. */
  @Override
  public void close() {
    if (syncer != null) {
      syncer.shutdownNow();
    }
    if (ownsStoreExecutor) {
      storeExecutor.shutdown();
      try {
        // Let stores already embedding finish before the host closes the embedder.
        storeExecutor.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    queue.close();
  }

  /**
   * Returns the semantic lookups so far, whatever their outcome.
   *
   * @return the count, from {@link #counters()}
   */
  public long lookups() {
    return counters.get(Counter.SEMANTIC_LOOKUPS);
  }

  /**
   * Returns the semantic hits so far.
   *
   * @return the count, from {@link #counters()}
   */
  public long hits() {
    return counters.get(Counter.SEMANTIC_HITS);
  }

  /**
   * Returns the semantic misses so far, refusals by the verifier included.
   *
   * @return the count, from {@link #counters()}
   */
  public long misses() {
    return counters.get(Counter.SEMANTIC_MISSES);
  }

  /**
   * Returns the lookups answered {@code SKIPPED(overload)}: the embedding queue was full, so
   * they gave up at once.
   *
   * @return the count, from {@link #counters()}
   */
  public long skippedForOverload() {
    return counters.get(Counter.SEMANTIC_SKIPPED_OVERLOAD);
  }

  /**
   * Returns the lookups answered {@code SKIPPED(deadline)}: their embedding was not done
   * within the lookup deadline (it still finishes, for the store).
   *
   * @return the count, from {@link #counters()}
   */
  public long skippedForDeadline() {
    return counters.get(Counter.SEMANTIC_SKIPPED_DEADLINE);
  }

  /**
   * Returns the embedder runs so far; with concurrent lookups and stores batched, fewer than
   * {@link #textsEmbedded()}.
   *
   * @return the count
   */
  public long embedderRuns() {
    return queue.runs();
  }

  /**
   * Returns the texts embedded so far, lookups and stores.
   *
   * @return the count
   */
  public long textsEmbedded() {
    return queue.texts();
  }

  /** Configures a {@link SemanticCache}. Not thread-safe. */
  public static final class Builder {
    private final Embedder embedder;
    private Duration lookupDeadline = DEFAULT_LOOKUP_DEADLINE;
    private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
    private int maxBatch = DEFAULT_MAX_BATCH;
    private HitVerifier verifier = HitVerifier.standard();
    private double threshold = DEFAULT_THRESHOLD;
    private Duration ttl = Duration.ofMinutes(10);
    private int maxEntries = 100_000;
    private Predicate<ChatRequest> eligible = InMemoryExactCache::deterministic;
    private Clock clock = Clock.system();
    private int graphFrom = DEFAULT_GRAPH_FROM;
    private int graphSearchBreadth = 64;
    private CacheCounters counters = new CacheCounters();
    private ExecutorService storeExecutor;
    private RedisConnection shared;
    private Duration syncInterval = Duration.ofMillis(100);

    private Builder(Embedder embedder) {
      this.embedder = embedder;
    }

    /**
     * Sets how long a lookup waits for its embedding, counted from the start of the lookup;
     * past it the lookup answers {@code SKIPPED(deadline)} and the request goes on to the
     * provider. The embedding still finishes and the store of the same text uses it.
     *
     * @param value a positive duration; default {@link #DEFAULT_LOOKUP_DEADLINE}
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder lookupDeadline(Duration value) {
      Objects.requireNonNull(value, "value");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("lookupDeadline must be positive: " + value);
      }
      this.lookupDeadline = value;
      return this;
    }

    /**
     * Sets the most lookups waiting for the embedder; one more answers
     * {@code SKIPPED(overload)} at once instead of queueing. Stores wait apart and never take a
     * lookup's place.
     *
     * @param lookups at least 1; default {@link #DEFAULT_QUEUE_CAPACITY}
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder embeddingQueueCapacity(int lookups) {
      if (lookups < 1) {
        throw new IllegalArgumentException("embeddingQueueCapacity must be at least 1: "
            + lookups);
      }
      this.queueCapacity = lookups;
      return this;
    }

    /**
     * Sets the most texts embedded in one run: the embedding thread takes every waiting text up
     * to this many (lookups first) and hands them to {@link Embedder#embedBatch} together.
     * {@code 1} gives every text a run of its own (with {@link MiniLmEmbedder}, vectors equal to
     * {@link MiniLmEmbedder#embed}'s).
     *
     * @param texts at least 1; default {@link #DEFAULT_MAX_BATCH}
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxBatch(int texts) {
      if (texts < 1) {
        throw new IllegalArgumentException("maxBatch must be at least 1: " + texts);
      }
      this.maxBatch = texts;
      return this;
    }

    /**
     * Sets the cosine similarity a candidate needs before the lexical verification.
     *
     * @param value in (0, 1]
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder threshold(double value) {
      if (!(value > 0 && value <= 1)) {
        throw new IllegalArgumentException("threshold must be in (0, 1]: " + value);
      }
      this.threshold = value;
      return this;
    }

    /**
     * Replaces the verification every candidate within the threshold must pass; default
     * {@link HitVerifier#standard()} ({@link AlignmentVerifier}). {@link LexicalVerifier} is the
     * earlier, looser rule set; {@link HitVerifier#thresholdOnly()} leaves the decision to the
     * similarity.
     *
     * @param value the verifier
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder verifier(HitVerifier value) {
      this.verifier = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets how long an entry answers after it was stored.
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
     * Sets the most vectors held across scopes (about 1.6 KB each plus the response); stores
     * beyond it are dropped and counted until expired scopes are swept.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxEntries(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxEntries must be at least 1: " + value);
      }
      this.maxEntries = value;
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
     * Sets the clock that decides expiry.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Uses an exact flat scan in every scope, whatever its size.
     *
     * @return this builder
     */
    public Builder flatIndex() {
      this.graphFrom = Integer.MAX_VALUE;
      return this;
    }

    /**
     * Sets the HNSW search breadth (efSearch): wider finds a stored paraphrase more often in a
     * large scope and costs more per lookup (at 100,000 entries, 128 instead of 64 measured
     * about 1.6 times the time for 3 points more near-duplicate recall; docs/caching.md).
     *
     * @param candidates at least 1; default 64
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder graphSearchBreadth(int candidates) {
      if (candidates < 1) {
        throw new IllegalArgumentException("graphSearchBreadth must be at least 1: "
            + candidates);
      }
      this.graphSearchBreadth = candidates;
      return this;
    }

    /**
     * Sets the scope size from which an HNSW graph replaces the flat scan.
     *
     * @param entries at least 1; default {@link #DEFAULT_GRAPH_FROM}
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder graphFrom(int entries) {
      if (entries < 1) {
        throw new IllegalArgumentException("graphFrom must be at least 1: " + entries);
      }
      this.graphFrom = entries;
      return this;
    }

    /**
     * Shares counters with other caches.
     *
     * @param value the counters
     * @return this builder
     */
    public Builder counters(CacheCounters value) {
      this.counters = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Sets the executor that embeds, indexes and publishes stores; default one daemon thread
     * with 10,000 queued. The cache does not shut down an executor it was given.
     *
     * @param value the executor
     * @return this builder
     */
    public Builder storeExecutor(ExecutorService value) {
      this.storeExecutor = Objects.requireNonNull(value, "value");
      return this;
    }

    /**
     * Persists and shares entries through Redis.
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
     * Sets how often the shared stream is read.
     *
     * @param value a positive duration; default 100 ms
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder syncInterval(Duration value) {
      Objects.requireNonNull(value, "value");
      if (value.toMillis() < 1) {
        throw new IllegalArgumentException("syncInterval must be at least 1 ms: " + value);
      }
      this.syncInterval = value;
      return this;
    }

    /**
     * Builds the cache and, with a shared tier, starts replaying the stream.
     *
     * @return the cache
     */
    public SemanticCache build() {
      return new SemanticCache(this);
    }
  }
}
