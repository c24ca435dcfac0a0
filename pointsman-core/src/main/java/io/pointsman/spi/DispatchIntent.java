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
 * <p>Construct it with {@link #builder()} (or derive a copy with {@link #toBuilder()}): the
 * record may gain components in a later version, which changes the canonical constructor but
 * not the builder's setters.
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
   * Validates the fields. This positional form gains a parameter whenever the record gains a
   * component; prefer {@link #builder()}.
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
   * Creates an intent whose call started when it was recorded. Like the canonical
   * constructor it may gain parameters; prefer {@link #builder()}.
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

  /**
   * Starts a builder with no field set (tags empty). Implementers and hosts should construct
   * this record through the builder: the canonical constructor is positional and gains a
   * component whenever the record does, while a builder's setters stay put.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts a builder holding this record's fields, to derive a changed copy.
   *
   * @return a new builder
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.eventId = eventId;
    b.requestId = requestId;
    b.attempt = attempt;
    b.keyId = keyId;
    b.userId = userId;
    b.teamId = teamId;
    b.orgId = orgId;
    b.tags = tags;
    b.model = model;
    b.deploymentId = deploymentId;
    b.provider = provider;
    b.reservationId = reservationId;
    b.heldMicros = heldMicros;
    b.worstCaseMicros = worstCaseMicros;
    b.at = at;
    b.callStartedAt = callStartedAt;
    return b;
  }

  /**
   * Builds a {@link DispatchIntent} by named fields. Setters accept what the record's component
   * accepts (null where the component is nullable); {@link #build()} validates, with the same
   * exceptions as the canonical constructor. Not thread-safe; reusable after build.
   */
  public static final class Builder {
    private String eventId;
    private String requestId;
    private int attempt;
    private String keyId;
    private String userId;
    private String teamId;
    private String orgId;
    private Set<String> tags = Set.of();
    private String model;
    private String deploymentId;
    private String provider;
    private String reservationId;
    private long heldMicros;
    private long worstCaseMicros;
    private Instant at;
    private Instant callStartedAt;

    private Builder() {}

    /**
     * Sets the call's event id (one per call; settlement is idempotent on it).
     *
     * @param eventId the value
     * @return this builder
     */
    public Builder eventId(String eventId) {
      this.eventId = eventId;
      return this;
    }

    /**
     * Sets the call's request id.
     *
     * @param requestId the value
     * @return this builder
     */
    public Builder requestId(String requestId) {
      this.requestId = requestId;
      return this;
    }

    /**
     * Sets the attempt number, from 1.
     *
     * @param attempt the value
     * @return this builder
     */
    public Builder attempt(int attempt) {
      this.attempt = attempt;
      return this;
    }

    /**
     * Sets the virtual key's id.
     *
     * @param keyId the value
     * @return this builder
     */
    public Builder keyId(String keyId) {
      this.keyId = keyId;
      return this;
    }

    /**
     * Sets the user, or {@code null}.
     *
     * @param userId the value
     * @return this builder
     */
    public Builder userId(String userId) {
      this.userId = userId;
      return this;
    }

    /**
     * Sets the team, or {@code null}.
     *
     * @param teamId the value
     * @return this builder
     */
    public Builder teamId(String teamId) {
      this.teamId = teamId;
      return this;
    }

    /**
     * Sets the organisation, or {@code null}.
     *
     * @param orgId the value
     * @return this builder
     */
    public Builder orgId(String orgId) {
      this.orgId = orgId;
      return this;
    }

    /**
     * Sets the key's and the call's tags.
     *
     * @param tags the value
     * @return this builder
     */
    public Builder tags(Set<String> tags) {
      this.tags = tags;
      return this;
    }

    /**
     * Sets the canonical model.
     *
     * @param model the value
     * @return this builder
     */
    public Builder model(String model) {
      this.model = model;
      return this;
    }

    /**
     * Sets the deployment this attempt goes to.
     *
     * @param deploymentId the value
     * @return this builder
     */
    public Builder deploymentId(String deploymentId) {
      this.deploymentId = deploymentId;
      return this;
    }

    /**
     * Sets the provider name.
     *
     * @param provider the value
     * @return this builder
     */
    public Builder provider(String provider) {
      this.provider = provider;
      return this;
    }

    /**
     * Sets the reservation held for the call.
     *
     * @param reservationId the value
     * @return this builder
     */
    public Builder reservationId(String reservationId) {
      this.reservationId = reservationId;
      return this;
    }

    /**
     * Sets the amount the reservation holds against budgets.
     *
     * @param heldMicros the value
     * @return this builder
     */
    public Builder heldMicros(long heldMicros) {
      this.heldMicros = heldMicros;
      return this;
    }

    /**
     * Sets the call's worst-case cost, charged if its outcome stays unknown.
     *
     * @param worstCaseMicros the value
     * @return this builder
     */
    public Builder worstCaseMicros(long worstCaseMicros) {
      this.worstCaseMicros = worstCaseMicros;
      return this;
    }

    /**
     * Sets when the intent was recorded.
     *
     * @param at the value
     * @return this builder
     */
    public Builder at(Instant at) {
      this.at = at;
      return this;
    }

    /**
     * Sets when the call entered the gateway (the time its budget period is judged by, also
     * for an attempt dispatched after a period boundary). When not set, {@code at} is taken.
     *
     * @param callStartedAt the value
     * @return this builder
     */
    public Builder callStartedAt(Instant callStartedAt) {
      this.callStartedAt = callStartedAt;
      return this;
    }

    /**
     * Builds the record.
     *
     * @return the record
     * @throws NullPointerException if a required field is missing
     * @throws IllegalArgumentException if a field is out of range
     */
    public DispatchIntent build() {
      // An intent whose call start is not given started when it was recorded, as with the
      // shorter constructor.
      Instant callStartedAt = this.callStartedAt == null ? at : this.callStartedAt;
      return new DispatchIntent(eventId, requestId, attempt, keyId, userId, teamId, orgId, tags,
          model, deploymentId, provider, reservationId, heldMicros, worstCaseMicros, at,
          callStartedAt);
    }
  }
}
