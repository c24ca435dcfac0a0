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
 * @param priceVersion the version of the price the cost was computed at (see
 *     {@link io.pointsman.catalog.Price#version()}), or {@code null} when no price applied
 */
public record UsageRecord(
    String eventId, String requestId, String keyId, String userId, String teamId, String orgId,
    Set<String> tags, String model, String deploymentId, int attempts, UsageOutcome outcome,
    int httpStatus, String decidedBy, String rule, Usage usage, long costMicros,
    boolean costEstimated, String reservationId, long heldMicros, CacheOutcome cacheOutcome,
    Instant startedAt, long durationNanos, String priceVersion) {

  /**
   * Validates the fields. This positional form gains a parameter whenever the record gains a
   * component; prefer {@link #builder()}.
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
   * @param priceVersion the version of the price the cost was computed at, or {@code null}
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

  /**
   * Creates a record with no price version (the form before the record had one). Prefer
   * {@link #builder()}.
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
  public UsageRecord(
      String eventId, String requestId, String keyId, String userId, String teamId, String orgId,
      Set<String> tags, String model, String deploymentId, int attempts, UsageOutcome outcome,
      int httpStatus, String decidedBy, String rule, Usage usage, long costMicros,
      boolean costEstimated, String reservationId, long heldMicros, CacheOutcome cacheOutcome,
      Instant startedAt, long durationNanos) {
    this(eventId, requestId, keyId, userId, teamId, orgId, tags, model, deploymentId, attempts,
        outcome, httpStatus, decidedBy, rule, usage, costMicros, costEstimated, reservationId,
        heldMicros, cacheOutcome, startedAt, durationNanos, null);
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
    b.keyId = keyId;
    b.userId = userId;
    b.teamId = teamId;
    b.orgId = orgId;
    b.tags = tags;
    b.model = model;
    b.deploymentId = deploymentId;
    b.attempts = attempts;
    b.outcome = outcome;
    b.httpStatus = httpStatus;
    b.decidedBy = decidedBy;
    b.rule = rule;
    b.usage = usage;
    b.costMicros = costMicros;
    b.costEstimated = costEstimated;
    b.reservationId = reservationId;
    b.heldMicros = heldMicros;
    b.cacheOutcome = cacheOutcome;
    b.startedAt = startedAt;
    b.durationNanos = durationNanos;
    b.priceVersion = priceVersion;
    return b;
  }

  /**
   * Builds a {@link UsageRecord} by named fields. Setters accept what the record's component
   * accepts (null where the component is nullable); {@link #build()} validates, with the same
   * exceptions as the canonical constructor. Not thread-safe; reusable after build.
   */
  public static final class Builder {
    private String eventId;
    private String requestId;
    private String keyId;
    private String userId;
    private String teamId;
    private String orgId;
    private Set<String> tags = Set.of();
    private String model;
    private String deploymentId;
    private int attempts;
    private UsageOutcome outcome;
    private int httpStatus;
    private String decidedBy;
    private String rule;
    private Usage usage;
    private long costMicros;
    private boolean costEstimated;
    private String reservationId;
    private long heldMicros;
    private CacheOutcome cacheOutcome;
    private Instant startedAt;
    private long durationNanos;
    private String priceVersion;

    private Builder() {}

    /**
     * Sets the call's event id.
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
     * Sets the canonical model, or {@code null} when the call ended before resolving it.
     *
     * @param model the value
     * @return this builder
     */
    public Builder model(String model) {
      this.model = model;
      return this;
    }

    /**
     * Sets the deployment that answered, or {@code null}.
     *
     * @param deploymentId the value
     * @return this builder
     */
    public Builder deploymentId(String deploymentId) {
      this.deploymentId = deploymentId;
      return this;
    }

    /**
     * Sets the number of provider attempts dispatched.
     *
     * @param attempts the value
     * @return this builder
     */
    public Builder attempts(int attempts) {
      this.attempts = attempts;
      return this;
    }

    /**
     * Sets how the call ended.
     *
     * @param outcome the value
     * @return this builder
     */
    public Builder outcome(UsageOutcome outcome) {
      this.outcome = outcome;
      return this;
    }

    /**
     * Sets the status returned to the caller.
     *
     * @param httpStatus the value
     * @return this builder
     */
    public Builder httpStatus(int httpStatus) {
      this.httpStatus = httpStatus;
      return this;
    }

    /**
     * Sets the stage that decided a failure, or {@code null} on success.
     *
     * @param decidedBy the value
     * @return this builder
     */
    public Builder decidedBy(String decidedBy) {
      this.decidedBy = decidedBy;
      return this;
    }

    /**
     * Sets the rule that decided, or {@code null}.
     *
     * @param rule the value
     * @return this builder
     */
    public Builder rule(String rule) {
      this.rule = rule;
      return this;
    }

    /**
     * Sets token usage charged, or {@code null} when no provider work was done.
     *
     * @param usage the value
     * @return this builder
     */
    public Builder usage(Usage usage) {
      this.usage = usage;
      return this;
    }

    /**
     * Sets the amount charged, in micro-units.
     *
     * @param costMicros the value
     * @return this builder
     */
    public Builder costMicros(long costMicros) {
      this.costMicros = costMicros;
      return this;
    }

    /**
     * Sets whether the cost is an estimate (unknown outcome, missing usage, unpriced
     * model, cancelled stream) rather than priced provider usage.
     *
     * @param costEstimated the value
     * @return this builder
     */
    public Builder costEstimated(boolean costEstimated) {
      this.costEstimated = costEstimated;
      return this;
    }

    /**
     * Sets the reservation, or {@code null} when none was taken.
     *
     * @param reservationId the value
     * @return this builder
     */
    public Builder reservationId(String reservationId) {
      this.reservationId = reservationId;
      return this;
    }

    /**
     * Sets the amount the reservation held.
     *
     * @param heldMicros the value
     * @return this builder
     */
    public Builder heldMicros(long heldMicros) {
      this.heldMicros = heldMicros;
      return this;
    }

    /**
     * Sets what the cache did.
     *
     * @param cacheOutcome the value
     * @return this builder
     */
    public Builder cacheOutcome(CacheOutcome cacheOutcome) {
      this.cacheOutcome = cacheOutcome;
      return this;
    }

    /**
     * Sets when the call entered the gateway.
     *
     * @param startedAt the value
     * @return this builder
     */
    public Builder startedAt(Instant startedAt) {
      this.startedAt = startedAt;
      return this;
    }

    /**
     * Sets how long the call took until this record.
     *
     * @param durationNanos the value
     * @return this builder
     */
    public Builder durationNanos(long durationNanos) {
      this.durationNanos = durationNanos;
      return this;
    }

    /**
     * Sets the version of the price the cost was computed at.
     *
     * @param priceVersion the value, or {@code null} when no price applied
     * @return this builder
     */
    public Builder priceVersion(String priceVersion) {
      this.priceVersion = priceVersion;
      return this;
    }

    /**
     * Builds the record.
     *
     * @return the record
     * @throws NullPointerException if a required field is missing
     * @throws IllegalArgumentException if a field is out of range
     */
    public UsageRecord build() {
      return new UsageRecord(eventId, requestId, keyId, userId, teamId, orgId, tags, model,
          deploymentId, attempts, outcome, httpStatus, decidedBy, rule, usage, costMicros,
          costEstimated, reservationId, heldMicros, cacheOutcome, startedAt, durationNanos,
          priceVersion);
    }
  }
}
