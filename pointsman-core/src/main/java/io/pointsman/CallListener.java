package io.pointsman;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.spi.UsageRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Observes one call through the lifecycle, as OkHttp's {@code EventListener} observes one HTTP
 * call: the gateway asks its {@link Factory} for a listener when a call starts and reports to
 * it, in order, the call's identity and model, the end of each stage with its time, each
 * provider attempt, the first streamed chunk, the cache and guardrail outcomes, and the call's
 * end with its usage record (usage, cost, outcome, status). Metrics and tracing bridges
 * (Micrometer, OpenTelemetry) are built on it.
 *
 * <p>Every method has a no-op default. Listeners are called synchronously on the calling
 * thread and must be fast and must not block. A listener that throws does not change the call:
 * the gateway catches, counts ({@link Gateway#listenerFailures()}) and logs it, and accounting
 * runs as it would have. With {@link Factory#NONE} (the default) the gateway creates nothing
 * per call. A listener serves one call; it need not be thread-safe, since one call's events
 * come from one thread at a time (a {@code chatAsync} call's from the executor's thread).
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder()
 *     // authenticator, models, provider, deployments ...
 *     .listener(start -> new CallListener() {
 *       @Override
 *       public void callEnd(CallEnd end) {
 *         log.info("{} {} {}", start.requestId(), end.record().outcome(), end.record().costMicros());
 *       }
 *     })
 *     .build();
 * }</pre>
 */
public interface CallListener {
  /** A listener that does nothing. */
  CallListener NONE = new CallListener() {};

  /**
   * Called once the caller's key was authenticated.
   *
   * @param identity who calls
   */
  default void identified(Identity identity) {}

  /**
   * Called once the request's model was resolved.
   *
   * @param model the model, its capabilities and price
   */
  default void modelResolved(ResolvedModel model) {}

  /**
   * Called when a lifecycle stage ended, successfully or not. Stages that run once per attempt
   * ({@code router.select}, {@code provider.attempt}) end once per attempt.
   *
   * @param stage the stage's timer name, one of {@link Stages#ORDER}
   * @param nanos how long it took
   */
  default void stageEnd(String stage, long nanos) {}

  /**
   * Called with what the cache did, once the cache stage decided (also when it was skipped).
   *
   * @param status the cache status
   */
  default void cacheOutcome(CacheStatus status) {}

  /**
   * Called when a guardrail stage ended.
   *
   * @param stage {@link Stages#GUARDRAIL_INPUT} or {@link Stages#GUARDRAIL_OUTPUT}
   * @param denial the refusal, or {@code null} when the guardrail let the call through
   */
  default void guardrailOutcome(String stage, PointsmanException denial) {}

  /**
   * Called before a provider attempt is sent (after its dispatch intent is durable).
   *
   * @param deployment the deployment chosen
   * @param attempt the attempt number, from 1
   */
  default void attemptStart(Deployment deployment, int attempt) {}

  /**
   * Called when a provider attempt ended.
   *
   * @param deployment the deployment used
   * @param attempt the attempt number, from 1
   * @param failure how it failed, or {@code null} when the provider answered
   * @param nanos how long the attempt took
   */
  default void attemptEnd(Deployment deployment, int attempt, ProviderException failure,
      long nanos) {}

  /**
   * Called when a streamed call's first chunk reached the caller.
   *
   * @param nanosSinceStart the time from the call's start
   */
  default void firstChunk(long nanosSinceStart) {}

  /**
   * Called once, when the call ended and its usage record was handed to accounting (whether or
   * not it could be made durable).
   *
   * @param end the record and the outcome
   */
  default void callEnd(CallEnd end) {}

  /**
   * How a call started, given to the {@link Factory}. Immutable. A chat call carries its
   * {@code request}; an embeddings call ({@link Gateway#embed}) carries {@code embedding} and
   * a {@code null} request.
   *
   * @param requestId the request id
   * @param eventId the call's event id (the ledger's key)
   * @param request the chat request as the caller sent it, or {@code null} for embeddings
   * @param streaming whether the call streams
   * @param startedAt when it started
   * @param embedding the embeddings request as the caller sent it, or {@code null} for chat
   */
  record CallStart(String requestId, String eventId, ChatRequest request, boolean streaming,
      Instant startedAt, EmbeddingRequest embedding) {

    /**
     * How a chat call started.
     *
     * @param requestId the request id
     * @param eventId the call's event id (the ledger's key)
     * @param request the request as the caller sent it
     * @param streaming whether the call streams
     * @param startedAt when it started
     */
    public CallStart(String requestId, String eventId, ChatRequest request, boolean streaming,
        Instant startedAt) {
      this(requestId, eventId, request, streaming, startedAt, null);
    }

    /**
     * Returns the model the caller asked for, of either call type.
     *
     * @return the requested model name, or {@code null} when the request names none
     */
    public String requestedModel() {
      return request != null ? request.model() : embedding != null ? embedding.model() : null;
    }
  }

  /**
   * How a call ended. Immutable.
   *
   * @param record the call's usage record: usage, cost, outcome, HTTP status, deciding stage
   *     and rule, cache outcome, duration
   * @param response the response returned, or {@code null} when the call failed or was an
   *     embeddings call (whose record says what it did)
   * @param error the failure thrown to the caller, or {@code null} on success
   * @param firstChunkNanos the time to the first streamed chunk, or -1
   */
  record CallEnd(UsageRecord record, ChatResponse response, PointsmanException error,
      long firstChunkNanos) {}

  /**
   * Creates a listener per call. Must be thread-safe and fast.
   */
  @FunctionalInterface
  interface Factory {
    /** A factory whose calls are not observed; the gateway allocates nothing for them. */
    Factory NONE = start -> CallListener.NONE;

    /**
     * Returns the listener of one call.
     *
     * @param start how the call started
     * @return the listener, {@link CallListener#NONE} to observe nothing
     */
    CallListener create(CallStart start);

    /**
     * Returns a factory whose listener reports to every given factory's listener, in order.
     *
     * @param factories the factories
     * @return the composite
     * @throws NullPointerException if an argument is null
     */
    static Factory composite(Factory... factories) {
      List<Factory> list = List.of(factories);
      for (Factory f : list) {
        Objects.requireNonNull(f, "factory");
      }
      if (list.isEmpty()) {
        return NONE;
      }
      if (list.size() == 1) {
        return list.get(0);
      }
      return start -> {
        List<CallListener> listeners = new ArrayList<>(list.size());
        for (Factory f : list) {
          CallListener l = f.create(start);
          if (l != null && l != CallListener.NONE) {
            listeners.add(l);
          }
        }
        return listeners.isEmpty() ? CallListener.NONE : new CompositeCallListener(listeners);
      };
    }
  }
}
