package io.pointsman;

import io.pointsman.model.ChatRequest;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Exchange;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResolvedModel;
import java.time.Instant;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/** The state of one call through the lifecycle; the {@link Exchange} custom stages see. */
final class Call implements Exchange {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Call.class);
  final String requestId;
  final String eventId;
  final CallOptions options;
  final Instant startedAt;
  final long startNanos;
  /** Whether the call has a deadline ({@link CallOptions#timeout()}). */
  final boolean hasDeadline;
  /** The deadline on the monotonic clock ({@link Clock#nanoTime()}), when there is one. */
  final long deadlineNanos;
  final StreamObserver observer;
  final long[] nanos = new long[Stages.ORDER.size() + 1];

  /** The chat request; {@code null} for an embeddings call. */
  ChatRequest request;
  /** The embeddings request; {@code null} for a chat call. */
  final io.pointsman.model.EmbeddingRequest embedding;
  Identity identity;
  Set<String> tags = Set.of();
  ResolvedModel model;
  /** The number of choices the hold covers ({@code n}, at least 1). */
  int choices = 1;
  /** The per-choice output cap the hold covers, sent on the wire of every attempt. */
  long outputCap;
  /** The worst case of one attempt: what the hold covers and what an unknown attempt costs. */
  long worstCaseMicros;
  /** The version of the price the worst case was computed at. */
  String worstPriceVersion;
  Reservation reservation;
  boolean reservationEnded;
  CacheStatus cacheStatus = CacheStatus.skipped("not reached");
  boolean providerPhase;
  Deployment deployment;
  Deployment answeredBy;
  int attempt;
  int dispatched;
  int unknownAttempts;
  ProviderReply providerReply;
  /** The answer of an embeddings call's provider, once it answered. */
  io.pointsman.spi.EmbeddingReply embeddingReply;
  /**
   * Answers the provider gave (and billed) on earlier attempts that a stage then failed with a
   * retryable error; charged with the call. Null until there is one.
   */
  java.util.List<AnsweredAttempt> rejectedAnswers;
  boolean servedFromCache;
  String servedByStage;
  String contractViolation;
  int chunksDelivered;
  long firstChunkNanos = -1;
  StreamState stream;
  private Map<io.pointsman.Key<?>, Object> attributes;
  /** The call's listener; {@link CallListener#NONE} unless the gateway has a factory. */
  CallListener listener = CallListener.NONE;
  /** Where listener failures are counted, set with a listener. */
  java.util.concurrent.atomic.AtomicLong listenerFailures;

  Call(String requestId, String eventId, CallOptions options, ChatRequest request,
      io.pointsman.model.EmbeddingRequest embedding, Instant startedAt, long startNanos,
      StreamObserver observer) {
    this.requestId = requestId;
    this.eventId = eventId;
    this.options = options;
    this.request = request;
    this.embedding = embedding;
    this.startedAt = startedAt;
    this.startNanos = startNanos;
    this.hasDeadline = options.timeout() != null;
    this.deadlineNanos = hasDeadline ? saturatedAdd(startNanos, options.timeout()) : 0;
    this.observer = observer;
    Arrays.fill(nanos, -1);
  }

  private static long saturatedAdd(long nanos, java.time.Duration timeout) {
    long amount;
    try {
      amount = timeout.toNanos();
    } catch (ArithmeticException e) {
      amount = Long.MAX_VALUE;
    }
    // A timeout of centuries is as good as none, but the difference arithmetic must not wrap.
    return nanos + Math.min(amount, Long.MAX_VALUE / 4);
  }

  /**
   * Returns the nanoseconds left before the deadline, negative or zero once it passed.
   *
   * @param nowNanos a reading of the monotonic clock
   * @return the time left
   */
  long nanosLeft(long nowNanos) {
    return deadlineNanos - nowNanos;
  }

  /** The provider's answer of either call type, or {@code null} while there is none. */
  Object answer() {
    return providerReply != null ? providerReply : embeddingReply;
  }

  /** An answer a provider gave on one attempt, and the deployment that gave it. */
  record AnsweredAttempt(ProviderReply reply, Deployment deployment) {}

  /** Keeps the current answer for the charge and clears it before the next attempt. */
  void keepRejectedAnswer() {
    if (rejectedAnswers == null) {
      rejectedAnswers = new java.util.ArrayList<>(2);
    }
    rejectedAnswers.add(new AnsweredAttempt(providerReply, answeredBy));
    providerReply = null;
    answeredBy = null;
  }

  void addNanos(String stage, long amount) {
    int i = Stages.ORDER.indexOf(stage);
    nanos[i] = (nanos[i] < 0 ? 0 : nanos[i]) + amount;
    if (listener != CallListener.NONE) {
      try {
        listener.stageEnd(stage, amount);
      } catch (RuntimeException e) {
        listenerFailed("stageEnd", e);
      }
    }
  }

  /** Counts and logs a listener's failure; the call goes on as if it had not happened. */
  void listenerFailed(String event, RuntimeException e) {
    long n = listenerFailures.incrementAndGet();
    if (n == 1 || Long.bitCount(n) == 1) {
      // The first failure and then ever more rarely: a broken listener fails every call.
      LOG.warn("call listener failed in {} for call {} ({} failures so far)", event, requestId,
          n, e);
    } else {
      LOG.debug("call listener failed in {} for call {}", event, requestId, e);
    }
  }

  @Override
  public String requestId() {
    return requestId;
  }

  @Override
  public String eventId() {
    return eventId;
  }

  @Override
  public CallOptions options() {
    return options;
  }

  @Override
  public ChatRequest request() {
    return request;
  }

  @Override
  public void request(ChatRequest replacement) {
    Objects.requireNonNull(replacement, "request");
    if (embedding != null) {
      throw new IllegalStateException("an embeddings call has no chat request to replace");
    }
    if (providerPhase) {
      throw new IllegalStateException("the request cannot be replaced once the provider phase"
          + " began");
    }
    RequestValidator.validate(replacement, observer != null);
    this.request = replacement;
  }

  @Override
  public Identity identity() {
    return identity;
  }

  @Override
  public ResolvedModel model() {
    return model;
  }

  @Override
  public Deployment deployment() {
    return deployment;
  }

  @Override
  public int attempt() {
    return attempt;
  }

  @Override
  public <T> T attribute(io.pointsman.Key<T> key) {
    Objects.requireNonNull(key, "key");
    Object v = attributes == null ? null : attributes.get(key);
    return v == null ? null : key.cast(v);
  }

  @Override
  public <T> void attribute(io.pointsman.Key<T> key, T value) {
    Objects.requireNonNull(key, "key");
    if (attributes == null) {
      attributes = new IdentityHashMap<>();
    }
    if (value == null) {
      attributes.remove(key);
    } else {
      attributes.put(key, key.cast(value));
    }
  }

  /** The caller side of a stream: its observer and cancellation flag. */
  static final class StreamState implements StreamControl {
    private volatile boolean cancelled;
    Throwable observerFailure;

    @Override
    public void cancel() {
      cancelled = true;
    }

    @Override
    public boolean cancelled() {
      return cancelled;
    }
  }
}
