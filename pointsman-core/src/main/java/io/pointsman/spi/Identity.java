package io.pointsman.spi;

import java.util.Objects;
import java.util.Set;

/**
 * Who is calling, as resolved from a virtual key by {@link Authenticator}. Carries no secret.
 * Immutable.
 *
 * @param keyId the virtual key's id (never the key itself)
 * @param userId the user, or {@code null}
 * @param teamId the team, or {@code null}
 * @param orgId the organisation, or {@code null}
 * @param tags the key's tags
 * @param keyGrant models the key allows
 * @param teamGrant models the team allows
 * @param orgGrant models the organisation allows
 */
public record Identity(
    String keyId, String userId, String teamId, String orgId, Set<String> tags,
    Grant keyGrant, Grant teamGrant, Grant orgGrant) {

  /**
   * Validates the fields.
   *
   * @param keyId the virtual key's id (never the key itself)
   * @param userId the user, or {@code null}
   * @param teamId the team, or {@code null}
   * @param orgId the organisation, or {@code null}
   * @param tags the key's tags
   * @param keyGrant models the key allows
   * @param teamGrant models the team allows
   * @param orgGrant models the organisation allows
   * @throws NullPointerException if keyId, tags or a grant is null
   */
  public Identity {
    Objects.requireNonNull(keyId, "keyId");
    tags = Set.copyOf(tags);
    Objects.requireNonNull(keyGrant, "keyGrant");
    Objects.requireNonNull(teamGrant, "teamGrant");
    Objects.requireNonNull(orgGrant, "orgGrant");
  }

  /**
   * Returns whether the key, its team and its organisation all allow a model.
   *
   * @param canonical the canonical model name
   * @param aliases the model's aliases
   * @return true if every level allows it
   */
  public boolean allows(String canonical, Set<String> aliases) {
    return keyGrant.allows(canonical, aliases) && teamGrant.allows(canonical, aliases)
        && orgGrant.allows(canonical, aliases);
  }
}
