package io.pointsman;

import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.cache.InMemoryEmbeddingCache;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.guardrail.GuardrailListener;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.MessageBoundsGuardrail;
import io.pointsman.guardrail.OutputGuardrailChain;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.Usage;
import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Authenticator;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.EmbeddingCache;
import io.pointsman.spi.EmbeddingCacheLookup;
import io.pointsman.spi.EmbeddingCacheQuery;
import io.pointsman.spi.EmbeddingCall;
import io.pointsman.spi.EmbeddingReply;
import io.pointsman.spi.InputGuardrail;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ModelResolver;
import io.pointsman.spi.OutputGuardrail;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reply;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.RetryPolicy;
import io.pointsman.spi.RouteContext;
import io.pointsman.spi.Router;
import io.pointsman.spi.Stage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-process LLM gateway: every call is authenticated, authorized, admitted against limits
 * and budgets, checked by guardrails, answered from cache or routed to a provider deployment,
 * and accounted. Built once with {@link #builder()}; immutable and thread-safe.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder()
 *     .authenticator(keys)
 *     .models(catalog)
 *     .provider("openai", openAiProvider)
 *     .deployment(Deployment.of("openai-mini", "openai", "gpt-4o-mini"))
 *     .build();
 * ChatResult result = gateway.chat(request, CallOptions.of(virtualKey));
 * }</pre>
 *
 * <p>Durable: {@code .journal(JournalAccounting.at(dir)).ledger(PostgresLedger.of(pool))} makes
 * {@link Builder#build()} open and recover the journal and run the restart protocol
 * ({@link io.pointsman.accounting.Durability}); {@link #close()} closes everything the builder
 * was given.
 *
 * <p>The lifecycle runs the stages of {@link Stages#ORDER} in that order; custom stages run at
 * the {@link InsertionPoint}s. Whatever a stage does, every authenticated call produces exactly
 * one usage record before it returns or throws, no provider is called before its dispatch
 * intent was recorded, and every reservation is settled or released exactly once.
 */
public final class Gateway implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
  private static final ExecutorService SHARED_ASYNC = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "pointsman-async");
    t.setDaemon(true);
    return t;
  });

  private final Builder config;
  private final Authenticator authenticator;
  private final ModelResolver resolver;
  private final Price unpricedFallback;
  private final Limiter limiter;
  private final InputGuardrail inputGuardrail;
  private final OutputGuardrail outputGuardrail;
  private final ResponseCache cache;
  private final EmbeddingCache embeddingCache;
  private final Router router;
  private final Map<String, Provider> providers;
  private final Accounting accounting;
  private final Map<InsertionPoint, List<StageChain.Named>> stages;
  private final Clock clock;
  private final Executor executor;
  private final RetryPolicy retryPolicy;
  private final StageTimers timers = new StageTimers();
  private final StageTimers embeddingTimers = new StageTimers();
  /** What {@link #close()} closes, in order: whatever was handed to the builder. */
  private final List<Object> owned;
  private final AtomicLong authFailures = new AtomicLong();
  private final AtomicLong invalidUsage = new AtomicLong();
  private final AtomicLong usageAboveBound = new AtomicLong();
  private final AtomicLong holdsLeftForRecovery = new AtomicLong();
  private final AtomicLong listenerFailures = new AtomicLong();
  private final CallListener.Factory listenerFactory;
  private final io.pointsman.accounting.Durability durability;

  private Gateway(Builder b) {
    this.config = b.copy();
    this.authenticator = b.authenticator;
    this.resolver = b.resolver;
    this.unpricedFallback = b.unpricedFallback;
    this.clock = b.clock == null ? Clock.system() : b.clock;
    Limiter given = b.limiter == null ? Limiter.none() : b.limiter;
    if (b.journal != null) {
      // Opens and recovers the journal over the ledger and runs the restart protocol; the
      // limiter becomes the counters behind the budget gate.
      this.durability = io.pointsman.accounting.Durability.start(b.journal, b.ledger, given);
      this.limiter = durability.limiter();
    } else {
      this.durability = null;
      this.limiter = given;
    }
    this.inputGuardrail = GuardrailDefaults.input(b.inputGuardrail, b.guardrailListener);
    this.outputGuardrail = GuardrailDefaults.output(b.outputGuardrail, b.guardrailListener);
    this.cache = b.cache == null ? InMemoryExactCache.ofDefaults(clock) : b.cache;
    this.embeddingCache = b.embeddingCache == null ? InMemoryEmbeddingCache.ofDefaults(clock)
        : b.embeddingCache;
    this.router = b.router == null ? new SingleDeploymentRouter(b.deployments) : b.router;
    this.providers = Map.copyOf(b.providers);
    this.accounting = durability != null ? durability.accounting()
        : b.accounting == null ? new InMemoryAccounting() : b.accounting;
    this.listenerFactory = b.listenerFactory == null ? CallListener.Factory.NONE
        : b.listenerFactory;
    Map<InsertionPoint, List<StageChain.Named>> s = new EnumMap<>(InsertionPoint.class);
    for (InsertionPoint p : InsertionPoint.values()) {
      s.put(p, List.copyOf(b.stages.getOrDefault(p, List.of())));
    }
    this.stages = s;
    this.executor = b.executor == null ? SHARED_ASYNC : b.executor;
    this.retryPolicy = b.retryPolicy != null ? b.retryPolicy
        : RetryPolicy.attempts(b.maxAttempts);
    List<Object> closing = new ArrayList<>();
    if (durability != null) {
      // Stops the housekeeping, drains and closes the journal, then closes the ledger.
      closing.add(durability);
    }
    closing.addAll(b.owned());
    this.owned = List.copyOf(closing);
  }

  /**
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder holding this gateway's configuration and sharing its stores, pools and
   * accounting (for a durable gateway: its open journal and budget gate, whose restart
   * protocol stays this gateway's); each setting may be replaced once.
   *
   * @return a builder
   */
  public Builder toBuilder() {
    Builder b = config.copy();
    b.cache = cache;
    b.embeddingCache = embeddingCache;
    b.accounting = accounting;
    if (durability != null) {
      // The derived gateway shares the open journal and the gated counters; it does not open
      // the journal a second time.
      b.journal = null;
      b.ledger = null;
      b.limiter = limiter;
    }
    b.explicitlySet.clear();
    return b;
  }

  /**
   * Returns the gateway-wide stage timers of chat calls ({@link #chat}, {@link #chatAsync},
   * {@link #stream}).
   *
   * @return the timers
   */
  public StageTimers timers() {
    return timers;
  }

  /**
   * Returns the gateway-wide stage timers of embeddings calls ({@link #embed}), kept apart from
   * the chat timers: an embeddings call's stages take other times, and it runs no guardrail.
   *
   * @return the timers
   */
  public StageTimers embeddingTimers() {
    return embeddingTimers;
  }

  /**
   * Returns the embeddings cache.
   *
   * @return the cache
   */
  public EmbeddingCache embeddingCache() {
    return embeddingCache;
  }

  /**
   * Returns the accounting every call is recorded through.
   *
   * @return the accounting
   */
  public Accounting accounting() {
    return accounting;
  }

  /**
   * Returns the restart protocol of a durable gateway (built with {@code journal(...)} and
   * {@code ledger(...)}): whether budgets are confirmed, the recovered holds, the journal's
   * accounting and the ledger.
   *
   * @return the protocol, or {@code null} when the gateway is not durable
   */
  public io.pointsman.accounting.Durability durability() {
    return durability;
  }

  /**
   * Returns how many times a {@link CallListener} threw. Each failure was logged and changed
   * nothing in its call.
   *
   * @return the count
   */
  public long listenerFailures() {
    return listenerFailures.get();
  }

  /**
   * Returns the response cache.
   *
   * @return the cache
   */
  public ResponseCache cache() {
    return cache;
  }

  /**
   * Returns how many calls failed authentication (they produce no usage record: there is no
   * identity to charge).
   *
   * @return the count
   */
  public long authenticationFailures() {
    return authFailures.get();
  }

  /**
   * Returns how many provider replies carried usage that cannot be true (a negative count,
   * more cached than prompt tokens, or a cost that overflows or exceeds
   * {@link io.pointsman.spi.Counter#MAX_VALUE}). Each such call was charged its attempt's worst
   * case with {@link UsageRecord#costEstimated()} set, instead of the reported usage.
   *
   * @return the count
   */
  public long invalidUsageCount() {
    return invalidUsage.get();
  }

  /**
   * Returns how many provider replies reported plausible usage beyond what the hold assumed:
   * more prompt tokens than the input bound, or more completion tokens than the choices times
   * the output cap sent. Each was charged as reported (never below what the provider billed),
   * so its usage record's cost may exceed its {@link UsageRecord#heldMicros()}.
   *
   * @return the count
   */
  public long usageAboveBoundCount() {
    return usageAboveBound.get();
  }

  /**
   * Returns how many reservations were left held because the call had dispatched and its usage
   * record could not be made durable. The journal's dispatch intent brings such a call back as
   * interrupted at recovery, which ends its hold exactly once; ending it here as well would end
   * it twice.
   *
   * @return the count
   */
  public long holdsLeftForRecovery() {
    return holdsLeftForRecovery.get();
  }

  /**
   * Runs one call and waits for its response.
   *
   * @param request the request
   * @param options the caller's key and per-call options
   * @return the response and what the gateway did
   * @throws PointsmanException with the status and deciding stage when the call fails; the
   *     call's usage record is durable before it is thrown (except for authentication failures)
   * @throws NullPointerException if an argument is null
   */
  public ChatResult chat(ChatRequest request, CallOptions options) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    return run(request, options, null);
  }

  /**
   * Runs one call on the gateway's executor.
   *
   * @param request the request
   * @param options the caller's key and per-call options
   * @return a future completed with the result, or exceptionally with the
   *     {@link PointsmanException}
   * @throws NullPointerException if an argument is null
   */
  public CompletableFuture<ChatResult> chatAsync(ChatRequest request, CallOptions options) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    return CompletableFuture.supplyAsync(() -> run(request, options, null), executor);
  }

  /**
   * Runs one streamed call: chunks go to the observer as they arrive, on this thread; the
   * method returns (the stream's final event) once the call's usage record is durable.
   * Streamed calls skip the response cache.
   *
   * @param request the request ({@code stream} is set for the provider)
   * @param options the caller's key and per-call options
   * @param observer receives the chunks
   * @return the assembled response and what the gateway did
   * @throws PointsmanException when the call fails, after its usage record is durable
   * @throws NullPointerException if an argument is null
   */
  public ChatResult stream(ChatRequest request, CallOptions options, StreamObserver observer) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    Objects.requireNonNull(observer, "observer");
    ChatRequest streamed = request.isStream() ? request
        : request.toBuilder().stream(true).build();
    return run(streamed, options, observer);
  }

  /**
   * Runs one embeddings call and waits for its response. It goes through the chat call's
   * stages where they apply: authentication (no usage record when it fails), the request's
   * validation, model resolution with the key's grants and the
   * {@link ModelSpec#EMBEDDINGS} capability, the limits and budgets on the inputs' token bound
   * (no output is held; the worst case is every input token at the dearest input price), the
   * embeddings cache ({@link Builder#embeddingCache}), the router and retry policy, the
   * dispatch intent before each send and one usage record per call. The guardrails and custom
   * stages do not run: they read and rewrite chat messages. Timed in
   * {@link #embeddingTimers()}.
   *
   * @param request the request
   * @param options the caller's key and per-call options
   * @return the response and what the gateway did
   * @throws PointsmanException with the status and deciding stage when the call fails; the
   *     call's usage record is durable before it is thrown (except for authentication failures)
   * @throws NullPointerException if an argument is null
   */
  public EmbeddingResult embed(EmbeddingRequest request, CallOptions options) {
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(options, "options");
    Call call = begin(options, null, request, null);
    Ran<EmbeddingResponse> ran = afterAuth(call, c -> {
      request.validate();
      resolve(c);
      reserve(c);
      return lookupEmbedding(c);
    });
    Finished f = finish(call, null, ran.failure());
    Charge charge = f.charge();
    return new EmbeddingResult(ran.value(), call.embeddingReply == null ? null
        : charge.usage(), charge.costMicros(), charge.estimated(), call.cacheStatus,
        call.answeredBy == null ? null : call.answeredBy.id(), call.dispatched, call.eventId,
        call.requestId, f.outcome(), new StageTimings(call.nanos),
        call.reservation == null ? java.util.List.of() : remaining(call));
  }

  /**
   * Closes what the gateway owns, which is everything handed to its builder that can be
   * closed: first the housekeeping of a durable gateway, then the accounting (the journal
   * drains what it can into the ledger, then closes), the ledger, the limiter (and its counter
   * store), the cache, the guardrails, the router, the providers, the authenticator and the
   * custom stages. A component that fails to close is logged and the rest are still closed;
   * the first failure is thrown at the end. Idempotent. Gateways derived with
   * {@link #toBuilder()} share these: close the last one only.
   *
   * @throws IllegalStateException if a component failed to close (after all were tried)
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    RuntimeException first = null;
    java.util.Set<Object> done = java.util.Collections.newSetFromMap(
        new java.util.IdentityHashMap<>());
    for (Object o : owned) {
      if (!(o instanceof AutoCloseable c) || !done.add(o)) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("closing {} failed", o, e);
        if (first == null) {
          first = new IllegalStateException("closing " + o + " failed: " + e.getMessage(), e);
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private volatile boolean closed;

  // ---------------------------------------------------------------------------------------
  // The lifecycle

  private ChatResult run(ChatRequest request, CallOptions options, StreamObserver observer) {
    Call call = begin(options, request, null, observer);
    Ran<Reply> ran = afterAuth(call, c -> {
      RequestValidator.validate(request, observer != null);
      return StageChain.run(stages.get(InsertionPoint.AFTER_AUTH), c, this::admit);
    });
    Reply reply = ran.value();
    Finished f = finish(call, reply == null ? null : reply.response(), ran.failure());
    Charge charge = f.charge();
    return new ChatResult(reply.response(), call.providerReply == null ? null : charge.usage(),
        charge.costMicros(), charge.estimated(), call.cacheStatus,
        call.answeredBy == null ? null : call.answeredBy.id(), call.dispatched, call.eventId,
        call.requestId, f.outcome(), new StageTimings(call.nanos), call.firstChunkNanos,
        call.reservation == null ? java.util.List.of() : remaining(call));
  }

  /**
   * Starts a call of either type: its ids, its listener, and stage 1. Without an identity
   * there is nobody to charge, so an authentication failure is counted and thrown but
   * produces no usage record.
   */
  private Call begin(CallOptions options, ChatRequest request, EmbeddingRequest embedding,
      StreamObserver observer) {
    long start = clock.nanoTime();
    String requestId = options.requestId() != null ? options.requestId()
        : UUID.randomUUID().toString();
    Call call = new Call(requestId, UUID.randomUUID().toString(), options, request, embedding,
        clock.now(), start, observer);
    if (listenerFactory != CallListener.Factory.NONE) {
      call.listenerFailures = listenerFailures;
      try {
        CallListener l = listenerFactory.create(new CallListener.CallStart(requestId,
            call.eventId, request, observer != null, call.startedAt, embedding));
        call.listener = l == null ? CallListener.NONE : l;
      } catch (RuntimeException e) {
        call.listenerFailed("create", e);
      }
    }

    long t = clock.nanoTime();
    try {
      call.identity = Objects.requireNonNull(authenticator.authenticate(options.virtualKey()),
          "authenticator returned null");
    } catch (PointsmanException e) {
      authFailures.incrementAndGet();
      LOG.debug("call {} denied at {}: {}", requestId, e.stage(), e.getMessage());
      call.addNanos(Stages.IDENTITY_AUTH, clock.nanoTime() - t);
      unauthenticated(call, e);
      throw e;
    } catch (RuntimeException e) {
      authFailures.incrementAndGet();
      PointsmanException failure = PointsmanException.failure(Status.INTERNAL,
          Stages.IDENTITY_AUTH, "authenticator failed: " + e.getClass().getName(), e);
      call.addNanos(Stages.IDENTITY_AUTH, clock.nanoTime() - t);
      unauthenticated(call, failure);
      throw failure;
    }
    call.addNanos(Stages.IDENTITY_AUTH, clock.nanoTime() - t);
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.identified(call.identity);
      } catch (RuntimeException e) {
        call.listenerFailed("identified", e);
      }
    }
    Set<String> tags = new LinkedHashSet<>(call.identity.tags());
    tags.addAll(options.tags());
    call.tags = Set.copyOf(tags);
    return call;
  }

  /** What the stages after authentication produced: a value, or the call's failure. */
  private record Ran<R>(R value, RuntimeException failure) {}

  /**
   * Runs the stages after authentication. A runtime failure is returned for {@link #finish};
   * an {@link Error} is accounted at once (an Error after a send is an unknown outcome,
   * charged at its worst case), then rethrown.
   */
  private <R> Ran<R> afterAuth(Call call, java.util.function.Function<Call, R> body) {
    try {
      return new Ran<>(body.apply(call), null);
    } catch (RuntimeException e) {
      return new Ran<>(null, e);
    } catch (Error e) {
      try {
        finish(call, null, PointsmanException.failure(Status.INTERNAL, "gateway",
            "fatal error: " + e.getClass().getName(), e));
      } catch (RuntimeException | Error accounted) {
        if (accounted != e) {
          e.addSuppressed(accounted);
        }
      }
      throw e;
    }
  }

  private StageTimers timersOf(Call call) {
    return call.embedding != null ? embeddingTimers : timers;
  }

  /** Tells the listener of a call that failed authentication: it has no usage record. */
  private static void unauthenticated(Call call, PointsmanException e) {
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.callEnd(new CallListener.CallEnd(null, null, e, -1));
      } catch (RuntimeException failure) {
        call.listenerFailed("callEnd", failure);
      }
    }
  }

  private Reply admit(Call call) {
    resolve(call);
    reserve(call);
    long t = clock.nanoTime();
    PointsmanException inputDenial = null;
    try {
      call.request = Objects.requireNonNull(
          inputGuardrail.check(call.identity, call.request), "input guardrail returned null");
    } catch (PointsmanException e) {
      inputDenial = e;
      throw e;
    } finally {
      call.addNanos(Stages.GUARDRAIL_INPUT, clock.nanoTime() - t);
      guardrailOutcome(call, Stages.GUARDRAIL_INPUT, inputDenial);
    }
    return StageChain.run(stages.get(InsertionPoint.BEFORE_CACHE), call, this::lookup);
  }

  /** Stage 2 of either call type: the model, the grants, the capabilities, the bounds. */
  private void resolve(Call call) {
    long t = clock.nanoTime();
    try {
      ResolvedModel resolved = call.embedding != null
          ? resolver.resolveEmbedding(call.identity, call.embedding)
          : resolver.resolve(call.identity, call.request);
      call.model = Objects.requireNonNull(resolved, "model resolver returned null");
    } finally {
      call.addNanos(Stages.MODEL_RESOLVE, clock.nanoTime() - t);
    }
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.modelResolved(call.model);
      } catch (RuntimeException e) {
        call.listenerFailed("modelResolved", e);
      }
    }
  }

  /**
   * Stage 3 of either call type: the hold of one attempt's worst case against every limit and
   * budget. An embeddings call holds its inputs' token bound and no output.
   */
  private void reserve(Call call) {
    long t = clock.nanoTime();
    try {
      call.choices = call.request == null || call.request.n() == null ? 1 : call.request.n();
      call.outputCap = call.embedding != null ? 0 : call.model.maxOutputTokens();
      call.worstCaseMicros = worstCase(call);
      Admission admission = new Admission(call.eventId, call.identity, call.tags, call.model,
          call.model.inputTokens(), call.outputCap * call.choices, call.worstCaseMicros,
          call.startedAt);
      call.reservation = Objects.requireNonNull(limiter.reserve(admission),
          "limiter returned null");
    } finally {
      call.addNanos(Stages.RATELIMIT_RESERVE, clock.nanoTime() - t);
    }
  }

  private static void guardrailOutcome(Call call, String stage, PointsmanException denial) {
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.guardrailOutcome(stage, denial);
      } catch (RuntimeException e) {
        call.listenerFailed("guardrailOutcome", e);
      }
    }
  }

  private static void cacheOutcome(Call call) {
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.cacheOutcome(call.cacheStatus);
      } catch (RuntimeException e) {
        call.listenerFailed("cacheOutcome", e);
      }
    }
  }

  private Reply lookup(Call call) {
    CacheControl control = call.options.cacheControl();
    CacheQuery query = null;
    boolean mayStore = false;
    if (call.observer != null) {
      call.cacheStatus = CacheStatus.skipped("stream");
    } else if (control == CacheControl.NO_STORE) {
      call.cacheStatus = CacheStatus.skipped("no-store");
    } else {
      query = new CacheQuery(call.identity, call.model, call.request, control);
      if (control == CacheControl.NO_CACHE) {
        call.cacheStatus = CacheStatus.bypass();
        mayStore = true;
      } else {
        long t = clock.nanoTime();
        try {
          CacheLookup found = cache.lookup(query);
          call.cacheStatus = found.status();
          if (found.response() != null) {
            call.servedFromCache = true;
            cacheOutcome(call);
            return Reply.of(found.response());
          }
          mayStore = found.status().outcome() != CacheOutcome.SKIPPED;
        } catch (RuntimeException e) {
          LOG.warn("cache lookup failed for call {}; treated as a miss", call.requestId, e);
          call.cacheStatus = CacheStatus.error("cache");
        } finally {
          call.addNanos(Stages.CACHE_LOOKUP, clock.nanoTime() - t);
        }
      }
    }

    cacheOutcome(call);
    Reply reply = StageChain.run(stages.get(InsertionPoint.AFTER_PROVIDER), call,
        this::provide);

    long t = clock.nanoTime();
    ChatResponse checked;
    PointsmanException outputDenial = null;
    try {
      checked = Objects.requireNonNull(outputGuardrail.check(call.identity, call.request,
          reply.response()), "output guardrail returned null");
    } catch (PointsmanException e) {
      outputDenial = e;
      throw e;
    } finally {
      call.addNanos(Stages.GUARDRAIL_OUTPUT, clock.nanoTime() - t);
      guardrailOutcome(call, Stages.GUARDRAIL_OUTPUT, outputDenial);
    }
    if (mayStore && call.providerReply != null) {
      try {
        // Keyed by the model that answered: a fallback deployment's answer is its model's.
        cache.store(query.answeredBy(call.answeredBy), checked);
      } catch (RuntimeException e) {
        LOG.warn("cache store failed for call {}", call.requestId, e);
      }
    }
    return Reply.of(checked);
  }

  /**
   * Stage 5 of an embeddings call: the embeddings cache, then the provider. A hit is the
   * answer, at no cost; a fresh answer is stored under the model that gave it.
   */
  private EmbeddingResponse lookupEmbedding(Call call) {
    CacheControl control = call.options.cacheControl();
    EmbeddingCacheQuery query = null;
    boolean mayStore = false;
    if (control == CacheControl.NO_STORE) {
      call.cacheStatus = CacheStatus.skipped("no-store");
    } else {
      query = new EmbeddingCacheQuery(call.identity, call.model, call.embedding, control, null);
      if (control == CacheControl.NO_CACHE) {
        call.cacheStatus = CacheStatus.bypass();
        mayStore = true;
      } else {
        long t = clock.nanoTime();
        try {
          EmbeddingCacheLookup found = embeddingCache.lookup(query);
          call.cacheStatus = found.status();
          if (found.response() != null) {
            call.servedFromCache = true;
            cacheOutcome(call);
            return found.response();
          }
          mayStore = found.status().outcome() != CacheOutcome.SKIPPED;
        } catch (RuntimeException e) {
          LOG.warn("embeddings cache lookup failed for call {}; treated as a miss",
              call.requestId, e);
          call.cacheStatus = CacheStatus.error("cache");
        } finally {
          call.addNanos(Stages.CACHE_LOOKUP, clock.nanoTime() - t);
        }
      }
    }
    cacheOutcome(call);
    EmbeddingResponse response = provide(call, this::attemptEmbedding);
    if (mayStore && call.embeddingReply != null) {
      try {
        embeddingCache.store(query.answeredBy(call.answeredBy), response);
      } catch (RuntimeException e) {
        LOG.warn("embeddings cache store failed for call {}", call.requestId, e);
      }
    }
    return response;
  }

  private Reply provide(Call call) {
    return provide(call, c -> StageChain.run(stages.get(InsertionPoint.BEFORE_PROVIDER), c,
        this::attempt));
  }

  /**
   * Stages 6 and 7 of either call type: the router picks a deployment for each attempt, the
   * attempt runs, and a failure the retry policy allows is retried (on the same deployment or
   * the next one the router picks), with a hold of its own when the failed attempt may have
   * been billed.
   */
  private <R> R provide(Call call, java.util.function.Function<Call, R> attemptFn) {
    call.providerPhase = true;
    Set<String> failed = new LinkedHashSet<>();
    ProviderException last = null;
    // The pause before the next attempt: a provider's retry-after concerns the deployment that
    // sent it, so it is decided after the next deployment is chosen.
    String pausedFrom = null;
    Duration pauseSame = null;
    Duration pauseElsewhere = null;
    int maxAttempts = Math.max(1, retryPolicy.maxAttempts());
    for (int attempt = 1; attempt <= maxAttempts; attempt++) {
      // Deadlines are measured on the monotonic clock: a step of the wall clock neither
      // shortens nor lengthens them.
      if (call.hasDeadline && call.nanosLeft(clock.nanoTime()) <= 0) {
        throw PointsmanException.denied(Status.GATEWAY_TIMEOUT, Stages.PROVIDER_ATTEMPT, null,
            "the call's deadline passed before attempt " + attempt);
      }
      long t = clock.nanoTime();
      Deployment deployment;
      try {
        deployment = Objects.requireNonNull(router.select(new RouteContext(call.identity,
            call.model, call.request, attempt, failed, call.embedding)),
            "router returned null");
      } finally {
        call.addNanos(Stages.ROUTER_SELECT, clock.nanoTime() - t);
      }
      if (pausedFrom != null) {
        Duration pause = deployment.id().equals(pausedFrom) ? pauseSame : pauseElsewhere;
        if (pause == null) {
          // Only the deployment that asked for a longer wait than the policy allows is left.
          tellRouter(call, deployment, false, Duration.ZERO);
          throw last;
        }
        try {
          pauseBeforeRetry(call, pause);
        } catch (RuntimeException e) {
          tellRouter(call, deployment, false, Duration.ZERO);
          throw e;
        }
      }
      call.deployment = deployment;
      call.attempt = attempt;
      int unknownBefore = call.unknownAttempts;
      Object answerBefore = call.answer();
      long began = clock.nanoTime();
      boolean reported = false;
      try {
        R reply = attemptFn.apply(call);
        reported = true;
        tellRouter(call, deployment, true, Duration.ofNanos(clock.nanoTime() - began));
        return reply;
      } catch (ProviderException e) {
        reported = true;
        try {
          router.onFailure(deployment, e, Duration.ofNanos(clock.nanoTime() - began));
        } catch (RuntimeException routerFailure) {
          LOG.warn("router failed to take the outcome of call {} on {}", call.requestId,
              deployment.id(), routerFailure);
        }
        last = e;
        failed.add(deployment.id());
        if (!mayRetry(call, e, attempt, maxAttempts)) {
          throw e;
        }
        // A failure only another deployment may get past (an exhausted quota) is never retried
        // on the deployment that sent it.
        pauseSame = e.retryableOnSameDeployment() ? retryPolicy.retryAfter(attempt, e) : null;
        pauseElsewhere = e.retryAfter() == null && e.retryableOnSameDeployment() ? pauseSame
            : retryPolicy.retryAfter(attempt, e.withoutRetryAfter());
        if (pauseSame == null && pauseElsewhere == null) {
          throw e;
        }
        // A stage that failed the attempt after the provider answered leaves work the provider
        // billed: it is charged with the call, and the retry needs a hold of its own too.
        boolean answeredThenFailed = call.answer() != answerBefore;
        if ((call.unknownAttempts > unknownBefore || answeredThenFailed) && !extendHold(call)) {
          // The failed attempt may have been billed up to its worst case, which the hold
          // already covers; a retry needs a worst case of its own, or it does not run.
          throw e;
        }
        if (answeredThenFailed) {
          call.keepRejectedAnswer();
        }
        pausedFrom = deployment.id();
        LOG.debug("call {} attempt {} on {} failed ({}); retrying", call.requestId, attempt,
            deployment.id(), e.status());
      } finally {
        call.deployment = null;
        if (!reported) {
          // A stage denial, an intent that could not be recorded, or an error: the router
          // still learns the attempt ended, so its in-flight counts and probes do not leak.
          tellRouter(call, deployment, false, Duration.ofNanos(clock.nanoTime() - began));
        }
      }
    }
    throw last;
  }

  /**
   * Whether a failed attempt may be followed by another: never once a chunk reached the caller,
   * once the caller's observer failed, once the calling thread is interrupted (the flag stays
   * set), or after the last attempt.
   */
  private static boolean mayRetry(Call call, ProviderException e, int attempt, int maxAttempts) {
    if (attempt >= maxAttempts || call.chunksDelivered > 0) {
      return false;
    }
    if (call.stream != null && call.stream.observerFailure != null) {
      return false;
    }
    boolean interrupted = Thread.currentThread().isInterrupted();
    if (!interrupted && causedByInterrupt(e)) {
      // The provider cleared the flag on its way out; the caller still asked to stop.
      Thread.currentThread().interrupt();
      interrupted = true;
    }
    if (interrupted) {
      LOG.debug("call {} attempt {} failed and the calling thread is interrupted: not"
          + " retried", call.requestId, attempt);
      return false;
    }
    return true;
  }

  private static boolean causedByInterrupt(Throwable e) {
    int depth = 0;
    for (Throwable c = e; c != null && depth < 16; c = c.getCause(), depth++) {
      if (c instanceof InterruptedException || c instanceof java.io.InterruptedIOException
          || c instanceof java.nio.channels.ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  /** Holds one more attempt's worst case before a retry after an unknown outcome. */
  private boolean extendHold(Call call) {
    try {
      if (call.reservation.extend(call.worstCaseMicros)) {
        return true;
      }
      LOG.debug("call {}: the limits cannot hold another worst case of {}; not retried",
          call.requestId, call.worstCaseMicros);
    } catch (RuntimeException e) {
      LOG.warn("call {}: extending reservation {} failed; not retried", call.requestId,
          call.reservation.id(), e);
    }
    return false;
  }

  private void tellRouter(Call call, Deployment deployment, boolean success, Duration took) {
    try {
      router.onOutcome(deployment, success, took);
    } catch (RuntimeException e) {
      LOG.warn("router failed to take the outcome of call {} on {}", call.requestId,
          deployment.id(), e);
    }
  }

  private void pauseBeforeRetry(Call call, Duration pause) {
    if (pause.isZero() || pause.isNegative()) {
      return;
    }
    if (call.hasDeadline
        && pause.compareTo(Duration.ofNanos(Math.max(0, call.nanosLeft(clock.nanoTime())))) > 0) {
      throw PointsmanException.denied(Status.GATEWAY_TIMEOUT, Stages.PROVIDER_ATTEMPT, null,
          "the call's deadline leaves no time for the retry pause of " + pause);
    }
    try {
      Thread.sleep(pause.toMillis(), pause.toNanosPart() % 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw PointsmanException.failure(Status.GATEWAY_TIMEOUT, Stages.PROVIDER_ATTEMPT,
          "interrupted while pausing before a retry", e);
    }
  }

  private Reply attempt(Call call) {
    ProviderReply reply = dispatch(call, deployment -> {
      // Prepared before the intent: a request the hold does not cover is refused unsent.
      ChatRequest wire = wireRequest(call, deployment);
      return (provider, deadline) -> {
        ProviderCall providerCall = new ProviderCall(call.requestId, call.eventId, deployment,
            wire, call.attempt, deadline);
        return call.observer == null ? provider.send(providerCall)
            : provider.stream(providerCall, chunk -> deliver(call, chunk));
      };
    }, r -> call.providerReply = r);
    return Reply.of(reply.response());
  }

  private EmbeddingResponse attemptEmbedding(Call call) {
    EmbeddingReply reply = dispatch(call, deployment -> {
      EmbeddingRequest wire = call.embedding.withModel(deployment.providerModel());
      return (provider, deadline) -> provider.embed(new EmbeddingCall(call.requestId,
          call.eventId, deployment, wire, call.attempt, deadline));
    }, r -> call.embeddingReply = r);
    return reply.response();
  }

  /** One send of a prepared attempt: the provider and the deadline it must honour. */
  @FunctionalInterface
  private interface Send<T> {
    T send(Provider provider, Instant deadline);
  }

  /**
   * Stage 7 of either call type: prepares the attempt, records its dispatch intent (no
   * provider is called before it is durable), sends it, and classifies what came back: a
   * provider failure keeps its billing, anything else thrown after the send (and a null
   * answer) is an unknown outcome, charged at the attempt's worst case.
   */
  private <T> T dispatch(Call call, java.util.function.Function<Deployment, Send<T>> prepare,
      java.util.function.Consumer<T> onAnswer) {
    Deployment deployment = call.deployment;
    Provider provider = providers.get(deployment.provider());
    if (provider == null) {
      throw PointsmanException.failure(Status.INTERNAL, Stages.ROUTER_SELECT, "deployment "
          + deployment.id() + " names provider '" + deployment.provider()
          + "', which is not registered", null);
    }
    long t = clock.nanoTime();
    try {
      Send<T> send = prepare.apply(deployment);
      DispatchIntent intent = DispatchIntent.builder()
          .eventId(call.eventId).requestId(call.requestId).attempt(call.attempt)
          .keyId(call.identity.keyId()).userId(call.identity.userId())
          .teamId(call.identity.teamId()).orgId(call.identity.orgId()).tags(call.tags)
          .model(call.model.name()).deploymentId(deployment.id())
          .provider(deployment.provider()).reservationId(call.reservation.id())
          .heldMicros(call.reservation.heldMicros()).worstCaseMicros(call.worstCaseMicros)
          .at(clock.now()).callStartedAt(call.startedAt)
          .build();
      try {
        accounting.dispatched(intent);
      } catch (PointsmanException e) {
        throw e;
      } catch (RuntimeException e) {
        throw PointsmanException.failure(Status.UNAVAILABLE, Stages.PROVIDER_ATTEMPT,
            "the dispatch intent could not be recorded; the provider was not called", e);
      }
      // From here the provider may do (and bill) the work.
      call.dispatched++;
      long sent = clock.nanoTime();
      if (call.listener != CallListener.NONE) {
        try {
          call.listener.attemptStart(deployment, call.attempt);
        } catch (RuntimeException e) {
          call.listenerFailed("attemptStart", e);
        }
      }
      ProviderException attemptFailure = null;
      boolean answered = false;
      try {
        // The provider converts the deadline to its own monotonic time at once; it is anchored
        // to the wall clock now, from the time left on the gateway's monotonic clock.
        Instant deadline = call.hasDeadline ? clock.now().plusNanos(Math.max(0,
            call.nanosLeft(clock.nanoTime()))) : null;
        T reply;
        try {
          reply = send.send(provider, deadline);
        } catch (ProviderException e) {
          if (e.billing() == ProviderException.Billing.UNKNOWN) {
            call.unknownAttempts++;
          }
          throw e;
        } catch (RuntimeException e) {
          call.unknownAttempts++;
          throw ProviderException.unknownOutcome("provider '" + deployment.provider()
              + "' failed: " + e.getClass().getName(), e);
        } catch (Error e) {
          // After the send nobody knows what the provider did: charged at the worst case.
          call.unknownAttempts++;
          throw e;
        }
        if (reply == null) {
          call.unknownAttempts++;
          throw ProviderException.unknownOutcome("provider '" + deployment.provider()
              + "' returned null", null);
        }
        onAnswer.accept(reply);
        call.answeredBy = deployment;
        answered = true;
        return reply;
      } catch (ProviderException e) {
        attemptFailure = e;
        throw e;
      } finally {
        if (call.listener != CallListener.NONE) {
          attemptEnd(call, deployment, answered, attemptFailure, clock.nanoTime() - sent);
        }
      }
    } finally {
      call.addNanos(Stages.PROVIDER_ATTEMPT, clock.nanoTime() - t);
    }
  }

  private static void attemptEnd(Call call, Deployment deployment, boolean answered,
      ProviderException failure, long nanos) {
    try {
      ProviderException f = answered || failure != null ? failure
          : ProviderException.unknownOutcome("the attempt ended with an error", null);
      call.listener.attemptEnd(deployment, call.attempt, f, nanos);
    } catch (RuntimeException e) {
      call.listenerFailed("attemptEnd", e);
    }
  }

  /**
   * The request an attempt sends: the deployment's model name, the output cap the hold covers
   * (lowered to the caller's own or a fallback model's smaller cap, never raised) on
   * {@code max_completion_tokens} — or on {@code max_tokens} when that is the field the
   * request used — and no more choices than the hold covers.
   */
  private ChatRequest wireRequest(Call call, Deployment deployment) {
    ChatRequest r = call.request;
    int n = r.n() == null ? 1 : r.n();
    if (n > call.choices) {
      throw PointsmanException.failure(Status.INTERNAL, Stages.PROVIDER_ATTEMPT, "the request"
          + " asks for " + n + " choices after admission, the reservation covers "
          + call.choices + "; the provider was not called", null);
    }
    long cap = call.outputCap;
    if (!deployment.servesModel().equals(call.model.name())
        && resolver instanceof ModelCatalog catalog) {
      ModelSpec fallback = catalog.find(deployment.servesModel());
      if (fallback != null) {
        cap = Math.min(cap, fallback.maxOutputTokens());
      }
    }
    int wireCap = (int) Math.max(1, Math.min(cap, Integer.MAX_VALUE));
    Integer maxTokens = r.maxTokens() == null ? null : Math.min(r.maxTokens(), wireCap);
    Integer maxCompletionTokens = r.maxCompletionTokens() != null
        ? Integer.valueOf(Math.min(r.maxCompletionTokens(), wireCap))
        : r.maxTokens() == null ? Integer.valueOf(wireCap) : null;
    return new ChatRequest(deployment.providerModel(), r.messages(), r.tools(), r.toolChoice(),
        r.temperature(), r.topP(), maxTokens, maxCompletionTokens, r.stop(), r.seed(),
        r.responseFormat(), r.user(), r.metadata(), r.stream(), r.streamOptions(), r.n(),
        r.extra());
  }

  private boolean deliver(Call call, io.pointsman.model.ChatChunk chunk) {
    Call.StreamState state = call.stream;
    if (state == null) {
      state = new Call.StreamState();
      call.stream = state;
      try {
        call.observer.onStart(state);
      } catch (Throwable e) {
        // The caller's failure, not the provider's: the stream stops, the call fails, and
        // what the provider did is charged; never a reason to send again.
        state.observerFailure = e;
        state.cancel();
        return false;
      }
    }
    if (state.cancelled()) {
      return false;
    }
    try {
      call.observer.onChunk(chunk);
      if (call.chunksDelivered++ == 0) {
        call.firstChunkNanos = clock.nanoTime() - call.startNanos;
        if (call.listener != CallListener.NONE) {
          try {
            call.listener.firstChunk(call.firstChunkNanos);
          } catch (RuntimeException e) {
            call.listenerFailed("firstChunk", e);
          }
        }
      }
    } catch (Throwable e) {
      state.observerFailure = e;
      state.cancel();
    }
    return !state.cancelled();
  }

  // ---------------------------------------------------------------------------------------
  // Stage 9: record the usage, then end the reservation, exactly once per call.

  /** What a call is charged: the usage recorded, its cost and whether the cost is estimated. */
  private record Charge(Usage usage, long costMicros, boolean estimated, String priceVersion) {}

  /** How a call ended: what it was charged and its outcome. */
  private record Finished(Charge charge, UsageOutcome outcome) {}

  /**
   * Stage 9 of either call type: prices the call, records its usage record, ends its
   * reservation, times it and tells the listener; throws the call's failure once it is
   * accounted.
   */
  private Finished finish(Call call, ChatResponse response, RuntimeException failure) {
    PointsmanException error;
    Charge charge;
    UsageOutcome outcome;
    Error fatal = null;
    try {
      if (failure == null && call.contractViolation != null) {
        failure = PointsmanException.failure(Status.INTERNAL, "chain", call.contractViolation,
            null);
      }
      if (failure == null && call.stream != null && call.stream.observerFailure != null) {
        failure = PointsmanException.failure(Status.INTERNAL, "stream.observer",
            "the stream observer failed: " + call.stream.observerFailure.getClass().getName(),
            call.stream.observerFailure);
      }
      error = failure == null ? null : asPointsman(failure);
      charge = charge(call);
      outcome = outcomeOf(call, error);
      if (call.stream != null && call.stream.cancelled() && error == null) {
        outcome = UsageOutcome.CANCELLED;
        charge = new Charge(charge.usage(), charge.costMicros(), true, charge.priceVersion());
      }
    } catch (RuntimeException | Error e) {
      // The gateway's own bookkeeping failed: still record, charging every dispatched attempt
      // its worst case, and end the hold.
      LOG.error("call {}: the charge could not be computed; charging the worst case",
          call.requestId, e);
      if (e instanceof Error err) {
        fatal = err;
      }
      error = PointsmanException.failure(Status.INTERNAL, Stages.LEDGER_WRITE,
          "the call's charge could not be computed: " + e.getClass().getName(), e);
      if (failure != null) {
        error.addSuppressed(failure);
      }
      charge = new Charge(null, saturatedMultiply(call.worstCaseMicros, call.dispatched),
          true, call.worstPriceVersion);
      outcome = call.dispatched > 0 ? UsageOutcome.UNKNOWN : UsageOutcome.FAILED;
    }

    long t = clock.nanoTime();
    boolean durable = false;
    UsageRecord record = null;
    try {
      record = UsageRecord.builder()
          .eventId(call.eventId).requestId(call.requestId)
          .keyId(call.identity.keyId()).userId(call.identity.userId())
          .teamId(call.identity.teamId()).orgId(call.identity.orgId()).tags(call.tags)
          .model(call.model == null ? null : call.model.name())
          .deploymentId(call.answeredBy == null ? null : call.answeredBy.id())
          .attempts(call.dispatched).outcome(outcome)
          .httpStatus(error == null ? 200 : error.status().httpStatus())
          .decidedBy(error == null ? null : error.stage())
          .rule(error == null ? null : error.rule())
          .usage(charge.usage()).costMicros(charge.costMicros())
          .costEstimated(charge.estimated()).priceVersion(charge.priceVersion())
          .reservationId(call.reservation == null ? null : call.reservation.id())
          .heldMicros(heldMicros(call)).cacheOutcome(call.cacheStatus.outcome())
          .startedAt(call.startedAt)
          .durationNanos(Math.max(0, clock.nanoTime() - call.startNanos))
          .build();
      // The record first: a hold ended before its record is durable would come back from the
      // journal's intent as interrupted and be ended a second time.
      accounting.settled(record);
      durable = true;
    } catch (RuntimeException | Error e) {
      // Durable all the same: what failed came after (a synchronous settlement, say).
      durable = e instanceof io.pointsman.spi.RecordDurableException;
      if (durable) {
        LOG.warn("usage record of call {} is durable, but: {}", call.requestId, e.getMessage());
      } else if (e instanceof PointsmanException) {
        // A typed refusal (a full or poisoned journal, for one) can come for every call under
        // load: one line each, the stack at debug.
        LOG.error("usage record of call {} could not be made durable: {}", call.requestId,
            e.getMessage());
        LOG.debug("usage record of call {} could not be made durable", call.requestId, e);
      } else {
        LOG.error("usage record of call {} could not be made durable", call.requestId, e);
      }
      if (e instanceof Error err && fatal == null) {
        fatal = err;
      }
      PointsmanException accountingError = e instanceof PointsmanException pe ? pe
          : PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
              "the usage record could not be made durable", e);
      if (error != null && error != accountingError) {
        accountingError.addSuppressed(error);
      }
      error = accountingError;
    } finally {
      try {
        Error ending = endReservation(call, charge, durable);
        if (fatal == null) {
          fatal = ending;
        }
      } finally {
        call.addNanos(Stages.LEDGER_WRITE, clock.nanoTime() - t);
        call.nanos[Stages.ORDER.size()] = clock.nanoTime() - call.startNanos;
        try {
          timersOf(call).record(call.nanos);
        } catch (RuntimeException e) {
          LOG.warn("stage timers failed for call {}", call.requestId, e);
        }
      }
    }
    if (call.listener != CallListener.NONE) {
      try {
        call.listener.callEnd(new CallListener.CallEnd(record,
            error == null ? response : null, error,
            call.firstChunkNanos));
      } catch (RuntimeException e) {
        call.listenerFailed("callEnd", e);
      }
    }
    if (fatal != null) {
      if (error != null && error.getCause() != fatal) {
        fatal.addSuppressed(error);
      }
      throw fatal;
    }
    if (error != null) {
      LOG.debug("call {} failed at {}: {}", call.requestId, error.stage(), error.getMessage());
      throw error;
    }
    return new Finished(charge, outcome);
  }

  private static long heldMicros(Call call) {
    if (call.reservation == null) {
      return 0;
    }
    try {
      return Math.max(0, call.reservation.heldMicros());
    } catch (RuntimeException e) {
      LOG.warn("the reservation of call {} could not report its hold", call.requestId, e);
      return 0;
    }
  }

  /**
   * Prices what the provider did, through the one validation boundary for provider usage.
   * Never throws for anything a provider reports.
   */
  private Charge charge(Call call) {
    Usage usage = null;
    long cost = 0;
    boolean estimated = false;
    String version = null;
    if (call.rejectedAnswers != null) {
      for (Call.AnsweredAttempt answered : call.rejectedAnswers) {
        Charge c = chargeAnswer(call, answered.reply().usage(),
            answered.reply().usageEstimated(), answered.reply().response(),
            answered.deployment());
        usage = c.usage();
        cost = saturatedAdd(cost, c.costMicros());
        estimated |= c.estimated();
        version = c.priceVersion();
      }
    }
    if (call.providerReply != null || call.embeddingReply != null) {
      Charge c = call.providerReply != null
          ? chargeAnswer(call, call.providerReply.usage(), call.providerReply.usageEstimated(),
              call.providerReply.response(), call.answeredBy)
          : chargeAnswer(call, call.embeddingReply.usage(),
              call.embeddingReply.usageEstimated(), null, call.answeredBy);
      usage = c.usage();
      cost = saturatedAdd(cost, c.costMicros());
      estimated |= c.estimated();
      version = c.priceVersion();
    }
    if (call.unknownAttempts > 0) {
      // An attempt whose outcome is unknown may have been billed: charge its worst case.
      cost = saturatedAdd(cost, saturatedMultiply(call.worstCaseMicros, call.unknownAttempts));
      estimated = true;
      if (version == null) {
        version = call.worstPriceVersion;
      }
    }
    return new Charge(usage, cost, estimated, version);
  }

  /**
   * Prices one answer a provider gave, at the price of the deployment that gave it: its
   * reported usage, or, when it reported none, the full input bound plus the output counted in
   * the chat response (an embeddings answer has none), estimated.
   */
  private Charge chargeAnswer(Call call, Usage reported, boolean reportedEstimated,
      ChatResponse response, Deployment answeredBy) {
    Usage usage = reported;
    boolean estimated = reportedEstimated;
    if (usage == null) {
      // No usage reported (or a cancelled stream): full input plus the counted output.
      usage = Usage.of(call.model.inputTokens(), response == null ? 0 : countOutput(response));
      estimated = true;
    }
    Price price = answeredBy != null && answeredBy.priceOverride() != null
        ? answeredBy.priceOverride() : call.model.spec().price();
    if (price == null) {
      return new Charge(usage, call.worstCaseMicros, true, call.worstPriceVersion);
    }
    Charge checked = checkUsage(call, usage, price);
    return new Charge(checked.usage(), checked.costMicros(), estimated | checked.estimated(),
        checked.priceVersion());
  }

  /**
   * The validation boundary for provider usage. Counts that cannot be true (negative, more
   * cached than prompt tokens, a cost that overflows or exceeds what a counter holds) are
   * replaced by the attempt's worst case, estimated and counted in
   * {@link #invalidUsageCount()}. Plausible counts beyond what the hold assumed are charged as
   * reported and counted in {@link #usageAboveBoundCount()}.
   */
  private Charge checkUsage(Call call, Usage usage, Price price) {
    long prompt = usage.promptTokens();
    long completion = usage.completionTokens();
    long cached = usage.cachedTokens();
    long cacheWrite = usage.cacheCreationTokens();
    long reasoning = usage.reasoningTokens();
    String invalid = null;
    long cost = 0;
    if (prompt < 0 || completion < 0 || cached < 0 || cacheWrite < 0 || reasoning < 0) {
      invalid = "a negative or malformed token count";
    } else if (cached > prompt || cacheWrite > prompt - cached) {
      invalid = "more cached and cache-write than prompt tokens";
    } else if (reasoning > completion) {
      invalid = "more reasoning than completion tokens";
    } else {
      try {
        cost = price.cost(prompt - cached - cacheWrite, cached, cacheWrite,
            completion - reasoning, reasoning);
        if (cost > io.pointsman.spi.Counter.MAX_VALUE) {
          invalid = "a cost above " + io.pointsman.spi.Counter.MAX_VALUE + " micro-units";
        }
      } catch (ArithmeticException | IllegalArgumentException e) {
        invalid = "a cost that overflows";
      }
    }
    if (invalid != null) {
      invalidUsage.incrementAndGet();
      LOG.warn("call {}: deployment {} reported impossible usage ({}: prompt={}, cached={},"
          + " completion={}); charged the attempt's worst case of {} micro-units, estimated",
          call.requestId, deploymentId(call), invalid, prompt, cached, completion,
          call.worstCaseMicros);
      long output = saturatedMultiply(call.outputCap, call.choices);
      return new Charge(Usage.of(call.model.inputTokens(), output), call.worstCaseMicros, true,
          call.worstPriceVersion);
    }
    long outputBound = saturatedMultiply(call.outputCap, call.choices);
    if (prompt > call.model.inputTokens() || completion > outputBound) {
      usageAboveBound.incrementAndGet();
      LOG.warn("call {}: deployment {} reported usage beyond the hold's bounds (prompt {} of"
          + " {}, completion {} of {}); charged as reported: {} micro-units against a worst"
          + " case of {}", call.requestId, deploymentId(call), prompt,
          call.model.inputTokens(), completion, outputBound, cost, call.worstCaseMicros);
    }
    return new Charge(usage, cost, false, price.version());
  }

  private static String deploymentId(Call call) {
    return call.answeredBy == null ? null : call.answeredBy.id();
  }

  private static long countOutput(ChatResponse response) {
    long total = 0;
    for (io.pointsman.model.Choice choice : response.choices()) {
      if (choice != null && choice.message() != null) {
        total = saturatedAdd(total, TokenBounds.count(choice.message().text()));
      }
    }
    return total;
  }

  private static long saturatedAdd(long a, long b) {
    long r = a + b;
    return ((a ^ r) & (b ^ r)) < 0 ? Long.MAX_VALUE : r;
  }

  private static long saturatedMultiply(long a, long b) {
    long hi = Math.multiplyHigh(a, b);
    long lo = a * b;
    return (hi == 0 && lo >= 0) || (hi == -1 && lo < 0) ? lo : Long.MAX_VALUE;
  }

  private static java.util.List<io.pointsman.spi.LimitRemaining> remaining(Call call) {
    try {
      return call.reservation.remaining();
    } catch (RuntimeException e) {
      LOG.warn("limiter could not report what remains for call {}", call.requestId, e);
      return java.util.List.of();
    }
  }

  /**
   * Ends the reservation once the record is durable: settled at the charge when any attempt
   * was dispatched, released otherwise. A call that dispatched and whose record is not durable
   * keeps its hold: the journal's dispatch intent brings it back at recovery, which ends it
   * exactly once. Never throws; returns an {@link Error} the limiter threw, for the caller to
   * rethrow once the call is accounted.
   */
  private Error endReservation(Call call, Charge charge, boolean durable) {
    if (call.reservation == null || call.reservationEnded) {
      return null;
    }
    if (!durable && call.dispatched > 0) {
      holdsLeftForRecovery.incrementAndGet();
      LOG.error("reservation {} of call {} stays held: the call dispatched and its usage record"
          + " is not durable; recovery of its dispatch intent ends the hold",
          call.reservation.id(), call.requestId);
      return null;
    }
    call.reservationEnded = true;
    try {
      if (call.dispatched > 0) {
        call.reservation.settle(charge.costMicros(), charge.usage());
      } else {
        call.reservation.release();
      }
    } catch (RuntimeException e) {
      LOG.error("reservation {} could not be ended", call.reservation.id(), e);
    } catch (Error e) {
      LOG.error("reservation {} could not be ended", call.reservation.id(), e);
      return e;
    }
    return null;
  }

  private static UsageOutcome outcomeOf(Call call, PointsmanException error) {
    if (error == null) {
      if (call.servedFromCache) {
        return UsageOutcome.CACHE_HIT;
      }
      if (call.answer() == null) {
        return UsageOutcome.SERVED_BY_STAGE;
      }
      return UsageOutcome.SUCCESS;
    }
    if (call.answer() != null) {
      return Stages.GUARDRAIL_OUTPUT.equals(error.stage()) ? UsageOutcome.BLOCKED_OUTPUT
          : UsageOutcome.FAILED;
    }
    if (call.unknownAttempts > 0) {
      return UsageOutcome.UNKNOWN;
    }
    if (call.dispatched > 0) {
      return UsageOutcome.PROVIDER_FAILED;
    }
    int status = error.status().httpStatus();
    return status >= 400 && status < 500 ? UsageOutcome.REJECTED : UsageOutcome.FAILED;
  }

  private static PointsmanException asPointsman(RuntimeException e) {
    if (e instanceof PointsmanException pe) {
      return pe;
    }
    return PointsmanException.failure(Status.INTERNAL, "gateway",
        "unexpected failure: " + e.getClass().getName(), e);
  }

  private long worstCase(Call call) {
    ModelSpec spec = call.model.spec();
    Price price = spec.price() != null ? spec.price() : unpricedFallback;
    if (price == null) {
      throw PointsmanException.failure(Status.UNAVAILABLE, Stages.RATELIMIT_RESERVE, "model "
          + spec.name() + " has no price and no fallback price is configured: its cost would"
          + " be unknown", null);
    }
    // The router knows every deployment it may pick, fallbacks and price overrides included.
    price = price.max(router.worstPrice(spec.name()));
    try {
      // Every input token at the dearest input price (a cache read or write may cost more than
      // plain input in a price as configured), every choice at the full output cap and the
      // dearer of the output and reasoning prices.
      long input = call.model.inputTokens();
      long output = Math.multiplyExact(call.outputCap, (long) call.choices);
      call.worstPriceVersion = price.version();
      return price.worstCost(input, output);
    } catch (ArithmeticException e) {
      throw PointsmanException.badRequest(Stages.RATELIMIT_RESERVE,
          "the request's worst-case cost overflows");
    }
  }


  /**
   * Builds a {@link Gateway}. Setters fail fast: null arguments throw
   * {@link NullPointerException} naming the parameter, bad values throw
   * {@link IllegalArgumentException}, and setting a single-valued setting twice throws
   * {@link IllegalStateException}. Rules across settings are checked by {@link #build()}. Not
   * thread-safe.
   */
  public static final class Builder {
    private Authenticator authenticator;
    private ModelResolver resolver;
    private Price unpricedFallback;
    private Limiter limiter;
    private InputGuardrail inputGuardrail;
    private OutputGuardrail outputGuardrail;
    private GuardrailListener guardrailListener;
    private ResponseCache cache;
    private EmbeddingCache embeddingCache;
    private Router router;
    private final Map<String, Provider> providers = new LinkedHashMap<>();
    private final List<Deployment> deployments = new ArrayList<>();
    private Accounting accounting;
    private final Map<InsertionPoint, List<StageChain.Named>> stages =
        new EnumMap<>(InsertionPoint.class);
    private Clock clock;
    private Executor executor;
    private int maxAttempts = RetryPolicy.DEFAULT_MAX_ATTEMPTS;
    private RetryPolicy retryPolicy;
    private io.pointsman.spi.Journal journal;
    private io.pointsman.spi.Ledger ledger;
    private CallListener.Factory listenerFactory;
    private final Set<String> explicitlySet = new HashSet<>();

    private Builder() {}

    private Builder copy() {
      Builder b = new Builder();
      b.authenticator = authenticator;
      b.resolver = resolver;
      b.unpricedFallback = unpricedFallback;
      b.limiter = limiter;
      b.inputGuardrail = inputGuardrail;
      b.outputGuardrail = outputGuardrail;
      b.guardrailListener = guardrailListener;
      b.cache = cache;
      b.embeddingCache = embeddingCache;
      b.router = router;
      b.providers.putAll(providers);
      b.deployments.addAll(deployments);
      b.accounting = accounting;
      stages.forEach((k, v) -> b.stages.put(k, new ArrayList<>(v)));
      b.clock = clock;
      b.executor = executor;
      b.maxAttempts = maxAttempts;
      b.retryPolicy = retryPolicy;
      b.journal = journal;
      b.ledger = ledger;
      b.listenerFactory = listenerFactory;
      b.explicitlySet.addAll(explicitlySet);
      return b;
    }

    /** What the gateway closes, in closing order (the durable part first, it drains). */
    private List<Object> owned() {
      List<Object> out = new ArrayList<>();
      out.add(accounting);
      out.add(limiter);
      if (limiter instanceof io.pointsman.limits.CounterLimiter c) {
        out.add(c.store());
      }
      out.add(cache);
      out.add(embeddingCache);
      out.add(inputGuardrail);
      out.add(outputGuardrail);
      out.add(router);
      out.addAll(providers.values());
      out.add(authenticator);
      out.add(resolver);
      stages.values().forEach(list -> list.forEach(n -> out.add(n.stage())));
      out.removeIf(Objects::isNull);
      return out;
    }

    private void once(String name, Object current) {
      if (!explicitlySet.add(name)) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }

    /**
     * Sets stage 1, the authenticator (for example an
     * {@link io.pointsman.auth.InMemoryKeyStore}).
     *
     * @param value the authenticator
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder authenticator(Authenticator value) {
      Objects.requireNonNull(value, "authenticator");
      once("authenticator", authenticator);
      this.authenticator = value;
      return this;
    }

    /**
     * Sets stage 2 to a model catalog, whose fallback price also sizes reservations of
     * unpriced models.
     *
     * @param catalog the catalog
     * @return this builder
     * @throws NullPointerException if catalog is null
     * @throws IllegalStateException if a resolver was already set
     */
    public Builder models(ModelCatalog catalog) {
      Objects.requireNonNull(catalog, "catalog");
      once("modelResolver", resolver);
      this.resolver = catalog;
      this.unpricedFallback = catalog.unpricedFallback();
      return this;
    }

    /**
     * Sets stage 2 to a custom resolver.
     *
     * @param value the resolver
     * @param fallbackPrice the price that sizes reservations of unpriced models, or
     *     {@code null} when every model the resolver returns has a price
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if a resolver was already set
     */
    public Builder modelResolver(ModelResolver value, Price fallbackPrice) {
      Objects.requireNonNull(value, "modelResolver");
      once("modelResolver", resolver);
      this.resolver = value;
      this.unpricedFallback = fallbackPrice;
      return this;
    }

    /**
     * Sets stage 3, the limiter. Default: no limits.
     *
     * @param value the limiter
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder limiter(Limiter value) {
      Objects.requireNonNull(value, "limiter");
      once("limiter", limiter);
      this.limiter = value;
      return this;
    }

    /**
     * Sets stage 4, the input guardrail. Default: {@link InputGuardrailChain#ofDefaults()}
     * (message bounds, secrets redacted, high-confidence prompt injection blocked). To opt out,
     * set {@link MessageBoundsGuardrail#ofDefaults()} (bounds only) or {@link
     * InputGuardrail#none()} (nothing).
     *
     * @param value the guardrail
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder inputGuardrail(InputGuardrail value) {
      Objects.requireNonNull(value, "inputGuardrail");
      once("inputGuardrail", inputGuardrail);
      this.inputGuardrail = value;
      return this;
    }

    /**
     * Sets a listener told of every finding the guardrail chains act on: the default input
     * chain's, and those of an {@link InputGuardrailChain} or {@link OutputGuardrailChain} set
     * on this builder (after the chain's own listener). Guardrails of other types do not report
     * findings; with none of these chains in place, {@link #build()} refuses the listener.
     *
     * @param value the listener
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder guardrailListener(GuardrailListener value) {
      Objects.requireNonNull(value, "guardrailListener");
      once("guardrailListener", guardrailListener);
      this.guardrailListener = value;
      return this;
    }

    /**
     * Sets stage 8, the output guardrail. Default: none.
     *
     * @param value the guardrail
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder outputGuardrail(OutputGuardrail value) {
      Objects.requireNonNull(value, "outputGuardrail");
      once("outputGuardrail", outputGuardrail);
      this.outputGuardrail = value;
      return this;
    }

    /**
     * Sets stage 5, the response cache. Default: {@link InMemoryExactCache#ofDefaults}.
     *
     * @param value the cache ({@link ResponseCache#none()} to disable caching)
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder cache(ResponseCache value) {
      Objects.requireNonNull(value, "cache");
      once("cache", cache);
      this.cache = value;
      return this;
    }

    /**
     * Sets the cache of embeddings calls ({@link Gateway#embed}), a separate SPI from the chat
     * response cache (see {@link EmbeddingCache} for why). Default:
     * {@link InMemoryEmbeddingCache#ofDefaults}.
     *
     * @param value the cache ({@link EmbeddingCache#none()} to disable caching embeddings)
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder embeddingCache(EmbeddingCache value) {
      Objects.requireNonNull(value, "embeddingCache");
      once("embeddingCache", embeddingCache);
      this.embeddingCache = value;
      return this;
    }

    /**
     * Sets stage 6, the router. Default: a {@link SingleDeploymentRouter} over the
     * deployments.
     *
     * @param value the router
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder router(Router value) {
      Objects.requireNonNull(value, "router");
      once("router", router);
      this.router = value;
      return this;
    }

    /**
     * Registers a provider under a name that deployments refer to.
     *
     * @param name the provider name
     * @param provider the provider
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if name is blank
     * @throws IllegalStateException if the name is already registered
     */
    public Builder provider(String name, Provider provider) {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(provider, "provider");
      if (name.isBlank()) {
        throw new IllegalArgumentException("provider name must not be blank");
      }
      if (providers.containsKey(name) && !explicitlySet.add("provider:" + name)) {
        throw new IllegalStateException("provider " + name + " was already set to "
            + providers.get(name));
      }
      explicitlySet.add("provider:" + name);
      providers.put(name, provider);
      return this;
    }

    /**
     * Adds a deployment (in preference order).
     *
     * @param value the deployment
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if a deployment with that id was already added
     */
    public Builder deployment(Deployment value) {
      Objects.requireNonNull(value, "deployment");
      for (Deployment d : deployments) {
        if (d.id().equals(value.id())) {
          throw new IllegalStateException("deployment " + value.id() + " was already added");
        }
      }
      deployments.add(value);
      return this;
    }

    /**
     * Sets stage 9, the accounting. Default: {@link InMemoryAccounting}.
     *
     * @param value the accounting
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder accounting(Accounting value) {
      Objects.requireNonNull(value, "accounting");
      once("accounting", accounting);
      this.accounting = value;
      return this;
    }

    /**
     * Makes the gateway durable: every dispatch intent and usage record is made durable in this
     * journal before the gateway sends or answers, and settled into the {@link #ledger ledger}
     * after acknowledgement. {@link #build()} opens and recovers the journal and runs the
     * restart protocol ({@link io.pointsman.accounting.Durability}); {@link Gateway#close()}
     * closes both. Replaces {@link #accounting}.
     *
     * <pre>{@code
     * Gateway.builder()...journal(JournalAccounting.at(dir)).ledger(PostgresLedger.of(ds)).build();
     * }</pre>
     *
     * @param value the journal (for the file journal, {@code JournalAccounting.at(dir)})
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder journal(io.pointsman.spi.Journal value) {
      Objects.requireNonNull(value, "journal");
      once("journal", journal);
      this.journal = value;
      return this;
    }

    /**
     * Sets the ledger a durable gateway's journal settles into, rebuilds budget counters from
     * and resolves recovered holds with (for PostgreSQL, {@code PostgresLedger.of(dataSource)}).
     * Needs {@link #journal}.
     *
     * @param value the ledger
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder ledger(io.pointsman.spi.Ledger value) {
      Objects.requireNonNull(value, "ledger");
      once("ledger", ledger);
      this.ledger = value;
      return this;
    }

    /**
     * Sets the factory of per-call listeners ({@link CallListener}), for metrics and tracing.
     * Use {@link CallListener.Factory#composite} for several. Default:
     * {@link CallListener.Factory#NONE}, which costs nothing per call.
     *
     * @param value the factory
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder listener(CallListener.Factory value) {
      Objects.requireNonNull(value, "listener");
      once("listener", listenerFactory);
      this.listenerFactory = value;
      return this;
    }

    /**
     * Registers a custom stage at an insertion point. Stages at one point run in registration
     * order.
     *
     * @param point where it runs
     * @param name a unique name, used in errors and logs
     * @param stage the stage
     * @return this builder
     * @throws NullPointerException if an argument is null
     * @throws IllegalArgumentException if name is blank
     * @throws IllegalStateException if a stage of that name is already registered
     */
    public Builder stage(InsertionPoint point, String name, Stage stage) {
      Objects.requireNonNull(point, "point");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(stage, "stage");
      if (name.isBlank()) {
        throw new IllegalArgumentException("stage name must not be blank");
      }
      for (List<StageChain.Named> list : stages.values()) {
        for (StageChain.Named n : list) {
          if (n.name().equals(name)) {
            throw new IllegalStateException("stage " + name + " is already registered");
          }
        }
      }
      stages.computeIfAbsent(point, p -> new ArrayList<>()).add(new StageChain.Named(name,
          stage));
      return this;
    }

    /**
     * Sets the clock. Default: {@link Clock#system()}.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder clock(Clock value) {
      Objects.requireNonNull(value, "clock");
      once("clock", clock);
      this.clock = value;
      return this;
    }

    /**
     * Sets the executor of {@link Gateway#chatAsync}. Default: a shared pool of daemon
     * threads.
     *
     * @param value the executor
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder executor(Executor value) {
      Objects.requireNonNull(value, "executor");
      once("executor", executor);
      this.executor = value;
      return this;
    }

    /**
     * Sets how many provider attempts one call may make (retries of retryable failures, on
     * the next deployment when the router has one). Default:
     * {@link RetryPolicy#DEFAULT_MAX_ATTEMPTS}.
     *
     * @param value 1 to 10
     * @return this builder
     * @throws IllegalArgumentException if out of range
     * @throws IllegalStateException if already set
     */
    public Builder maxAttempts(int value) {
      if (value < 1 || value > 10) {
        throw new IllegalArgumentException("maxAttempts must be between 1 and 10: " + value);
      }
      if (explicitlySet.contains("retryPolicy")) {
        throw new IllegalStateException("retryPolicy was already set to " + retryPolicy
            + ": set either maxAttempts or retryPolicy");
      }
      once("maxAttempts", maxAttempts);
      this.maxAttempts = value;
      return this;
    }

    /**
     * Sets the retry policy, replacing {@link #maxAttempts}. Default:
     * {@code RetryPolicy.attempts(maxAttempts)}.
     *
     * @param value the policy
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set, or if maxAttempts was set
     */
    public Builder retryPolicy(RetryPolicy value) {
      Objects.requireNonNull(value, "retryPolicy");
      if (explicitlySet.contains("maxAttempts")) {
        throw new IllegalStateException("maxAttempts was already set to " + maxAttempts
            + ": set either maxAttempts or retryPolicy");
      }
      once("retryPolicy", retryPolicy);
      this.retryPolicy = value;
      return this;
    }

    /**
     * Builds the gateway.
     *
     * @return the gateway
     * @throws IllegalStateException naming what to add when the settings do not fit together
     */
    public Gateway build() {
      GuardrailDefaults.check(inputGuardrail, outputGuardrail, guardrailListener);
      if (authenticator == null) {
        throw missing("no authenticator: set authenticator(...), for example an"
            + " InMemoryKeyStore");
      }
      if (resolver == null) {
        throw missing("no models: set models(ModelCatalog) or modelResolver(...)");
      }
      if (router != null && !deployments.isEmpty()) {
        throw new ConfigurationException(ConfigurationException.Problem.CONFLICTING_SETTINGS,
            "deployment(...) was added next to router(...): the router picks among its own"
                + " deployments and would ignore " + deployments.get(0).id()
                + "; give every deployment to the router");
      }
      if (deployments.isEmpty() && router == null) {
        throw missing("no deployment: add deployment(...) and the provider(...) it names");
      }
      if (providers.isEmpty()) {
        throw missing("no provider: add provider(name, provider)");
      }
      if (journal != null && accounting != null) {
        throw new ConfigurationException(ConfigurationException.Problem.CONFLICTING_SETTINGS,
            "journal(...) and accounting(...) were both set: a durable gateway's accounting is"
                + " its journal; remove accounting(...)");
      }
      if (journal != null && ledger == null) {
        throw missing("journal(...) needs ledger(...): the ledger the journal settles into");
      }
      if (ledger != null && journal == null) {
        throw missing("ledger(...) needs journal(...): records reach the ledger through the"
            + " journal");
      }
      List<Deployment> all = router == null ? deployments : router.deployments();
      String where = router == null ? "deployment " : "the router's deployment ";
      for (Deployment d : all) {
        if (!providers.containsKey(d.provider())) {
          throw new ConfigurationException(
              ConfigurationException.Problem.UNREGISTERED_PROVIDER, where + d.id()
                  + " names provider '" + d.provider() + "', which is not registered: add"
                  + " provider(\"" + d.provider() + "\", ...)");
        }
        if (resolver instanceof ModelCatalog catalog && catalog.find(d.servesModel()) == null) {
          throw new ConfigurationException(ConfigurationException.Problem.UNKNOWN_MODEL,
              where + d.id() + " serves model '" + d.servesModel() + "', which is not in the"
                  + " catalog: add it to the ModelCatalog or correct the name");
        }
      }
      if (resolver instanceof ModelCatalog catalog && (router == null
          || !router.deployments().isEmpty())) {
        for (ModelSpec spec : catalog.models()) {
          boolean served = all.stream().anyMatch(d -> d.servesModel().equals(spec.name()));
          if (!served) {
            LOG.info("model {} has no deployment: calls to it will get 503", spec.name());
          }
        }
      }
      return new Gateway(this);
    }

    private static ConfigurationException missing(String message) {
      return new ConfigurationException(ConfigurationException.Problem.MISSING_SETTING,
          message);
    }
  }
}
