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
  final String requestId;
  final String eventId;
  final CallOptions options;
  final Instant startedAt;
  final long startNanos;
  final Instant deadline;
  final StreamObserver observer;
  final long[] nanos = new long[Stages.ORDER.size() + 1];

  ChatRequest request;
  Identity identity;
  Set<String> tags = Set.of();
  ResolvedModel model;
  long worstCaseMicros;
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
  boolean servedFromCache;
  String servedByStage;
  String contractViolation;
  int chunksDelivered;
  long firstChunkNanos = -1;
  StreamState stream;
  private Map<io.pointsman.Key<?>, Object> attributes;

  Call(String requestId, String eventId, CallOptions options, ChatRequest request,
      Instant startedAt, long startNanos, StreamObserver observer) {
    this.requestId = requestId;
    this.eventId = eventId;
    this.options = options;
    this.request = request;
    this.startedAt = startedAt;
    this.startNanos = startNanos;
    this.deadline = options.timeout() == null ? null : startedAt.plus(options.timeout());
    this.observer = observer;
    Arrays.fill(nanos, -1);
  }

  void addNanos(String stage, long amount) {
    int i = Stages.ORDER.indexOf(stage);
    nanos[i] = (nanos[i] < 0 ? 0 : nanos[i]) + amount;
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
    RuntimeException observerFailure;

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
