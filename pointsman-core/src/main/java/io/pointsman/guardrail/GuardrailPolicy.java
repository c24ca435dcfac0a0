package io.pointsman.guardrail;

import io.pointsman.spi.Identity;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Which action a rule takes for a caller: overrides by key, team and organisation over the
 * chain's defaults. An override names a rule ({@code secret.jwt}) or a whole family
 * ({@code secret}).
 *
 * <p>Resolution, first match wins: the caller's key (rule, then family), its team, its
 * organisation, the policy's global overrides, then the default the rule was added to the chain
 * with.
 *
 * <pre>{@code
 * GuardrailPolicy policy = GuardrailPolicy.builder()
 *     .forOrg("acme", "pii", GuardrailAction.REDACT)
 *     .forTeam("research", "injection", GuardrailAction.FLAG)
 *     .forKey("ci-bot", "secret.jwt", GuardrailAction.OFF)
 *     .build();
 * }</pre>
 *
 * <p>Immutable and thread-safe.
 */
public final class GuardrailPolicy {
  private static final GuardrailPolicy NONE = new GuardrailPolicy(new Builder());

  private final Map<String, Map<String, GuardrailAction>> keys;
  private final Map<String, Map<String, GuardrailAction>> teams;
  private final Map<String, Map<String, GuardrailAction>> orgs;
  private final Map<String, GuardrailAction> global;

  private GuardrailPolicy(Builder b) {
    this.keys = copy(b.keys);
    this.teams = copy(b.teams);
    this.orgs = copy(b.orgs);
    this.global = Map.copyOf(b.global);
  }

  private static Map<String, Map<String, GuardrailAction>> copy(
      Map<String, Map<String, GuardrailAction>> m) {
    Map<String, Map<String, GuardrailAction>> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k, Map.copyOf(v)));
    return Map.copyOf(out);
  }

  /**
   * Returns the policy without overrides: every rule takes its chain default.
   *
   * @return the empty policy
   */
  public static GuardrailPolicy none() {
    return NONE;
  }

  /**
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Resolves the action of a rule for a caller.
   *
   * @param identity the caller
   * @param rule the rule name
   * @param fallback the chain's default for the rule
   * @return the action
   * @throws NullPointerException if an argument is null
   */
  public GuardrailAction resolve(Identity identity, String rule, GuardrailAction fallback) {
    Objects.requireNonNull(fallback, "fallback");
    if (keys.isEmpty() && teams.isEmpty() && orgs.isEmpty() && global.isEmpty()) {
      return fallback;
    }
    int dot = rule.indexOf('.');
    String family = dot < 0 ? rule : rule.substring(0, dot);
    GuardrailAction a = lookup(keys.get(identity.keyId()), rule, family);
    if (a == null && identity.teamId() != null) {
      a = lookup(teams.get(identity.teamId()), rule, family);
    }
    if (a == null && identity.orgId() != null) {
      a = lookup(orgs.get(identity.orgId()), rule, family);
    }
    if (a == null) {
      a = lookup(global, rule, family);
    }
    return a == null ? fallback : a;
  }

  private static GuardrailAction lookup(Map<String, GuardrailAction> m, String rule,
      String family) {
    if (m == null) {
      return null;
    }
    GuardrailAction a = m.get(rule);
    return a != null ? a : m.get(family);
  }

  /** Collects overrides; not thread-safe. */
  public static final class Builder {
    private final Map<String, Map<String, GuardrailAction>> keys = new HashMap<>();
    private final Map<String, Map<String, GuardrailAction>> teams = new HashMap<>();
    private final Map<String, Map<String, GuardrailAction>> orgs = new HashMap<>();
    private final Map<String, GuardrailAction> global = new HashMap<>();

    private Builder() {}

    /**
     * Sets a rule's or family's action for every caller (below key, team and org overrides).
     *
     * @param ruleOrFamily a rule name or family name
     * @param action the action
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder forAll(String ruleOrFamily, GuardrailAction action) {
      global.put(Objects.requireNonNull(ruleOrFamily, "ruleOrFamily"),
          Objects.requireNonNull(action, "action"));
      return this;
    }

    /**
     * Sets a rule's or family's action for one virtual key.
     *
     * @param keyId the key's id ({@link Identity#keyId()})
     * @param ruleOrFamily a rule name or family name
     * @param action the action
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder forKey(String keyId, String ruleOrFamily, GuardrailAction action) {
      put(keys, keyId, ruleOrFamily, action);
      return this;
    }

    /**
     * Sets a rule's or family's action for one team.
     *
     * @param teamId the team
     * @param ruleOrFamily a rule name or family name
     * @param action the action
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder forTeam(String teamId, String ruleOrFamily, GuardrailAction action) {
      put(teams, teamId, ruleOrFamily, action);
      return this;
    }

    /**
     * Sets a rule's or family's action for one organisation.
     *
     * @param orgId the organisation
     * @param ruleOrFamily a rule name or family name
     * @param action the action
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder forOrg(String orgId, String ruleOrFamily, GuardrailAction action) {
      put(orgs, orgId, ruleOrFamily, action);
      return this;
    }

    private static void put(Map<String, Map<String, GuardrailAction>> m, String id,
        String ruleOrFamily, GuardrailAction action) {
      Objects.requireNonNull(id, "id");
      Objects.requireNonNull(ruleOrFamily, "ruleOrFamily");
      Objects.requireNonNull(action, "action");
      m.computeIfAbsent(id, k -> new HashMap<>()).put(ruleOrFamily, action);
    }

    /**
     * Builds the policy.
     *
     * @return the policy
     */
    public GuardrailPolicy build() {
      return new GuardrailPolicy(this);
    }
  }
}
