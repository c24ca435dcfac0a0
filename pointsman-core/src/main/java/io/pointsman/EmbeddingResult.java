package io.pointsman;

import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.Usage;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.UsageOutcome;
import java.util.List;
import java.util.Objects;

/**
 * The result of one successful embeddings call ({@link Gateway#embed}): the response plus what
 * the gateway did to produce it. Immutable.
 *
 * @param response the response
 * @param usage the usage charged (input tokens only; {@code null} for a cache hit: no provider
 *     work was done)
 * @param costMicros the amount charged, in micro-units
 * @param costEstimated whether the cost is an estimate rather than priced provider usage
 * @param cacheStatus what the cache did
 * @param deploymentId the deployment that answered, or {@code null}
 * @param attempts the number of provider attempts dispatched
 * @param eventId the call's event id (the key of its usage record)
 * @param requestId the call's request id
 * @param outcome how the call ended
 * @param timings the time spent in each stage (the guardrail stages do not run)
 * @param remaining what each matched limit has left (for {@code x-ratelimit-*} headers)
 */
public record EmbeddingResult(
    EmbeddingResponse response, Usage usage, long costMicros, boolean costEstimated,
    CacheStatus cacheStatus, String deploymentId, int attempts, String eventId, String requestId,
    UsageOutcome outcome, StageTimings timings, List<LimitRemaining> remaining) {

  /**
   * Validates the fields.
   *
   * @param response the response
   * @param usage the usage charged, or {@code null} for a cache hit
   * @param costMicros the amount charged, in micro-units
   * @param costEstimated whether the cost is an estimate
   * @param cacheStatus what the cache did
   * @param deploymentId the deployment that answered, or {@code null}
   * @param attempts the number of provider attempts dispatched
   * @param eventId the call's event id
   * @param requestId the call's request id
   * @param outcome how the call ended
   * @param timings the time spent in each stage
   * @param remaining what each matched limit has left
   * @throws NullPointerException if a required field is null
   */
  public EmbeddingResult {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(cacheStatus, "cacheStatus");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(timings, "timings");
    remaining = List.copyOf(remaining);
  }
}
