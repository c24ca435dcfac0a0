package io.pointsman.spi;

import io.pointsman.CacheOutcome;
import io.pointsman.model.Usage;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * The settled record of one call: what it used, what it cost and how it ended. Every
 * authenticated call produces exactly one, recorded by {@link Accounting#settled} before the
 * caller gets an answer. Carries no prompt and no secret. Immutable.
 *
 * @param eventId the call's event id
 * @param requestId the call's request id
 * @param keyId the virtual key's id
 * @param userId the user, or {@code null}
 * @param teamId the team, or {@code null}
 * @param orgId the organisation, or {@code null}
 * @param tags the key's and the call's tags
 * @param model the canonical model, or {@code null} when the call ended before resolving it
 * @param deploymentId the deployment that answered, or {@code null}
 * @param attempts the number of provider attempts dispatched
 * @param outcome how the call ended
 * @param httpStatus the status returned to the caller
 * @param decidedBy the stage that decided a failure, or {@code null} on success
 * @param rule the rule that decided, or {@code null}
 * @param usage token usage charged, or {@code null} when no provider work was done
 * @param costMicros the amount charged, in micro-units
 * @param costEstimated whether the cost is an estimate (unknown outcome, missing usage,
 *     unpriced model, cancelled stream) rather than priced provider usage
 * @param reservationId the reservation, or {@code null} when none was taken
 * @param heldMicros the amount the reservation held
 * @param cacheOutcome what the cache did
 * @param startedAt when the call entered the gateway
 * @param durationNanos how long the call took until this record
 */
public record UsageRecord(
    String eventId, String requestId, String keyId, String userId, String teamId, String orgId,
    Set<String> tags, String model, String deploymentId, int attempts, UsageOutcome outcome,
    int httpStatus, String decidedBy, String rule, Usage usage, long costMicros,
    boolean costEstimated, String reservationId, long heldMicros, CacheOutcome cacheOutcome,
    Instant startedAt, long durationNanos) {

  /**
   * Validates the fields.
   *
   * @param eventId the call's event id
   * @param requestId the call's request id
   * @param keyId the virtual key's id
   * @param userId the user, or {@code null}
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @param tags the key's and the call's tags
   * @param model the canonical model, or {@code null} when the call ended before resolving it
   * @param deploymentId the deployment that answered, or {@code null}
   * @param attempts the number of provider attempts dispatched
   * @param outcome how the call ended
   * @param httpStatus the status returned to the caller
   * @param decidedBy the stage that decided a failure, or {@code null} on success
   * @param rule the rule that decided, or {@code null}
   * @param usage token usage charged, or {@code null} when no provider work was done
   * @param costMicros the amount charged, in micro-units
   * @param costEstimated whether the cost is an estimate (unknown outcome, missing usage,
   *     unpriced model, cancelled stream) rather than priced provider usage
   * @param reservationId the reservation, or {@code null} when none was taken
   * @param heldMicros the amount the reservation held
   * @param cacheOutcome what the cache did
   * @param startedAt when the call entered the gateway
   * @param durationNanos how long the call took until this record
   * @throws NullPointerException if a required field is null
   * @throws IllegalArgumentException if a count or amount is negative
   */
  public UsageRecord {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(keyId, "keyId");
    tags = Set.copyOf(tags);
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(cacheOutcome, "cacheOutcome");
    Objects.requireNonNull(startedAt, "startedAt");
    if (attempts < 0 || costMicros < 0 || heldMicros < 0 || durationNanos < 0) {
      throw new IllegalArgumentException("usage record amounts must not be negative");
    }
  }
}
