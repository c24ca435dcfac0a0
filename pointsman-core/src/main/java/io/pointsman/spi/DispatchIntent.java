package io.pointsman.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * The intent to send one provider attempt, recorded durably by {@link Accounting#dispatched}
 * before the provider is called. The first attempt's intent also carries the request intent
 * (identity, model, reservation), so an accounting implementation can write both as one unit.
 * Carries no prompt and no secret. Immutable.
 *
 * @param eventId the call's event id (one per call; settlement is idempotent on it)
 * @param requestId the call's request id
 * @param attempt the attempt number, from 1
 * @param keyId the virtual key's id
 * @param userId the user, or {@code null}
 * @param teamId the team, or {@code null}
 * @param orgId the organisation, or {@code null}
 * @param tags the key's and the call's tags
 * @param model the canonical model
 * @param deploymentId the deployment this attempt goes to
 * @param provider the provider name
 * @param reservationId the reservation held for the call
 * @param heldMicros the amount the reservation holds against budgets
 * @param worstCaseMicros the call's worst-case cost, charged if its outcome stays unknown
 * @param at when the intent was recorded
 * @param callStartedAt when the call entered the gateway (the time its budget period is judged
 *     by, also for an attempt dispatched after a period boundary)
 */
public record DispatchIntent(
    String eventId, String requestId, int attempt, String keyId, String userId, String teamId,
    String orgId, Set<String> tags, String model, String deploymentId, String provider,
    String reservationId, long heldMicros, long worstCaseMicros, Instant at,
    Instant callStartedAt) {

  /**
   * Validates the fields.
   *
   * @param eventId the call's event id (one per call; settlement is idempotent on it)
   * @param requestId the call's request id
   * @param attempt the attempt number, from 1
   * @param keyId the virtual key's id
   * @param userId the user, or {@code null}
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @param tags the key's and the call's tags
   * @param model the canonical model
   * @param deploymentId the deployment this attempt goes to
   * @param provider the provider name
   * @param reservationId the reservation held for the call
   * @param heldMicros the amount the reservation holds against budgets
   * @param worstCaseMicros the call's worst-case cost, charged if its outcome stays unknown
   * @param at when the intent was recorded
   * @param callStartedAt when the call entered the gateway (the time its budget period is judged
   *     by, also for an attempt dispatched after a period boundary)
   * @throws NullPointerException if a required field is null
   * @throws IllegalArgumentException if attempt is below 1 or an amount is negative
   */
  public DispatchIntent {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(keyId, "keyId");
    tags = Set.copyOf(tags);
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(deploymentId, "deploymentId");
    Objects.requireNonNull(provider, "provider");
    Objects.requireNonNull(reservationId, "reservationId");
    Objects.requireNonNull(at, "at");
    Objects.requireNonNull(callStartedAt, "callStartedAt");
    if (attempt < 1 || heldMicros < 0 || worstCaseMicros < 0) {
      throw new IllegalArgumentException("invalid dispatch intent amounts");
    }
  }

  /**
   * Creates an intent whose call started when it was recorded.
   *
   * @param eventId the call's event id
   * @param requestId the call's request id
   * @param attempt the attempt number, from 1
   * @param keyId the virtual key's id
   * @param userId the user, or {@code null}
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @param tags the key's and the call's tags
   * @param model the canonical model
   * @param deploymentId the deployment this attempt goes to
   * @param provider the provider name
   * @param reservationId the reservation held for the call
   * @param heldMicros the amount the reservation holds against budgets
   * @param worstCaseMicros the call's worst-case cost
   * @param at when the intent was recorded, also taken as the call's start
   */
  public DispatchIntent(
      String eventId, String requestId, int attempt, String keyId, String userId, String teamId,
      String orgId, Set<String> tags, String model, String deploymentId, String provider,
      String reservationId, long heldMicros, long worstCaseMicros, Instant at) {
    this(eventId, requestId, attempt, keyId, userId, teamId, orgId, tags, model, deploymentId,
        provider, reservationId, heldMicros, worstCaseMicros, at, at);
  }
}
