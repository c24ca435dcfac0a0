package io.pointsman;

import io.pointsman.model.ChatResponse;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.LimitRemaining;
import java.util.List;
import java.util.Objects;

/**
 * The result of one successful call: the response plus what the gateway did to produce it.
 * Immutable.
 *
 * @param response the response
 * @param usage the usage charged for this call ({@code null} for a cache hit or a stage reply:
 *     no provider work was done)
 * @param costMicros the amount charged, in micro-units
 * @param costEstimated whether the cost is an estimate rather than priced provider usage
 * @param cacheStatus what the cache did
 * @param deploymentId the deployment that answered, or {@code null}
 * @param attempts the number of provider attempts dispatched
 * @param eventId the call's event id (the key of its usage record)
 * @param requestId the call's request id
 * @param outcome how the call ended
 * @param timings the time spent in each stage
 * @param timeToFirstTokenNanos for a stream, nanoseconds from entry to the first chunk
 *     delivered to the observer; -1 when not streamed or no chunk arrived
 * @param remaining what each matched limit has left (for {@code x-ratelimit-*} headers)
 */
public record ChatResult(
    ChatResponse response, Usage usage, long costMicros, boolean costEstimated,
    CacheStatus cacheStatus, String deploymentId, int attempts, String eventId, String requestId,
    UsageOutcome outcome, StageTimings timings, long timeToFirstTokenNanos,
    List<LimitRemaining> remaining) {

  /**
   * Validates the fields.
   *
   * @param response the response
   * @param usage the usage charged for this call ({@code null} for a cache hit or a stage reply:
   *     no provider work was done)
   * @param costMicros the amount charged, in micro-units
   * @param costEstimated whether the cost is an estimate rather than priced provider usage
   * @param cacheStatus what the cache did
   * @param deploymentId the deployment that answered, or {@code null}
   * @param attempts the number of provider attempts dispatched
   * @param eventId the call's event id (the key of its usage record)
   * @param requestId the call's request id
   * @param outcome how the call ended
   * @param timings the time spent in each stage
   * @param timeToFirstTokenNanos for a stream, nanoseconds from entry to the first chunk
   *     delivered to the observer; -1 when not streamed or no chunk arrived
   * @param remaining what each matched limit has left (for {@code x-ratelimit-*} headers)
   * @throws NullPointerException if a required field is null
   */
  public ChatResult {
    Objects.requireNonNull(response, "response");
    Objects.requireNonNull(cacheStatus, "cacheStatus");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(timings, "timings");
    remaining = List.copyOf(remaining);
  }
}
