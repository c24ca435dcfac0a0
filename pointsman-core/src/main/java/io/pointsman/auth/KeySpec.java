package io.pointsman.auth;

import io.pointsman.spi.Grant;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * What a virtual key stands for. Immutable.
 *
 * @param keyId the key's id, safe to log and to store in the ledger
 * @param userId the user, or {@code null}
 * @param teamId the team, or {@code null}
 * @param orgId the organisation, or {@code null}
 * @param tags tags for budgets and reporting
 * @param models the models this key allows
 * @param expiresAt when the key stops working, or {@code null} for never
 */
public record KeySpec(
    String keyId, String userId, String teamId, String orgId, Set<String> tags, Grant models,
    Instant expiresAt) {

  /**
   * Validates the fields.
   *
   * @param keyId the key's id, safe to log and to store in the ledger
   * @param userId the user, or {@code null}
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @param tags tags for budgets and reporting
   * @param models the models this key allows
   * @param expiresAt when the key stops working, or {@code null} for never
   * @throws NullPointerException if keyId, tags or models is null
   * @throws IllegalArgumentException if keyId is blank
   */
  public KeySpec {
    Objects.requireNonNull(keyId, "keyId");
    if (keyId.isBlank()) {
      throw new IllegalArgumentException("keyId must not be blank");
    }
    tags = Set.copyOf(tags);
    Objects.requireNonNull(models, "models");
  }

  /**
   * Starts a spec.
   *
   * @param keyId the key id
   * @return a builder allowing every model, without user, team, org, tags or expiry
   */
  public static Builder builder(String keyId) {
    return new Builder(keyId);
  }

  /** A builder of {@link KeySpec}; not thread-safe. */
  public static final class Builder {
    private final String keyId;
    private String userId;
    private String teamId;
    private String orgId;
    private Set<String> tags = Set.of();
    private Grant models = Grant.all();
    private Instant expiresAt;

    private Builder(String keyId) {
      this.keyId = Objects.requireNonNull(keyId, "keyId");
    }

    /**
     * Sets the user.
     *
     * @param value the user id
     * @return this builder
     */
    public Builder user(String value) {
      this.userId = value;
      return this;
    }

    /**
     * Sets the team.
     *
     * @param value the team id
     * @return this builder
     */
    public Builder team(String value) {
      this.teamId = value;
      return this;
    }

    /**
     * Sets the organisation.
     *
     * @param value the org id
     * @return this builder
     */
    public Builder org(String value) {
      this.orgId = value;
      return this;
    }

    /**
     * Sets the tags.
     *
     * @param values the tags
     * @return this builder
     */
    public Builder tags(String... values) {
      this.tags = Set.of(values);
      return this;
    }

    /**
     * Sets the models the key allows.
     *
     * @param value the grant
     * @return this builder
     */
    public Builder models(Grant value) {
      this.models = Objects.requireNonNull(value, "models");
      return this;
    }

    /**
     * Sets the expiry.
     *
     * @param value when the key stops working
     * @return this builder
     */
    public Builder expiresAt(Instant value) {
      this.expiresAt = Objects.requireNonNull(value, "expiresAt");
      return this;
    }

    /**
     * Builds the spec.
     *
     * @return the spec
     */
    public KeySpec build() {
      return new KeySpec(keyId, userId, teamId, orgId, tags, models, expiresAt);
    }
  }
}
