package io.pointsman.limits;

import io.pointsman.spi.Admission;
import java.util.Objects;

/**
 * What a rule applies to: one key, team, org, tag or model, or every call. Immutable.
 *
 * @param kind the kind of scope
 * @param id the key id, team id, org id, tag or canonical model name; empty for
 *     {@link Kind#GLOBAL}
 */
public record Scope(Kind kind, String id) {
  /** The kinds of scope. */
  public enum Kind {
    /** Every call. */
    GLOBAL,
    /** Calls with one virtual key. */
    KEY,
    /** Calls of one team. */
    TEAM,
    /** Calls of one organisation. */
    ORG,
    /** Calls carrying one tag (the key's or the call's). */
    TAG,
    /** Calls to one model. */
    MODEL
  }

  /**
   * Validates the fields.
   *
   * @param kind the kind of scope
   * @param id the key id, team id, org id, tag or canonical model name; empty for
   *     {@link Kind#GLOBAL}
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if id is blank for a non-global scope
   */
  public Scope {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(id, "id");
    if (kind != Kind.GLOBAL && id.isBlank()) {
      throw new IllegalArgumentException(kind + " scope needs an id");
    }
  }

  /**
   * Returns the global scope.
   *
   * @return the scope
   */
  public static Scope global() {
    return new Scope(Kind.GLOBAL, "");
  }

  /**
   * Reads a scope as {@link #toString()} writes it: {@code global}, or {@code kind:id} with kind
   * {@code key}, {@code team}, {@code org}, {@code tag} or {@code model}.
   *
   * @param text the scope's text
   * @return the scope
   * @throws IllegalArgumentException if the text is null or not a scope
   */
  public static Scope parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("a scope is needed: kind:id or global");
    }
    if ("global".equals(text)) {
      return global();
    }
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("scope must be kind:id or global: " + text);
    }
    String id = text.substring(colon + 1);
    return switch (text.substring(0, colon)) {
      case "key" -> key(id);
      case "team" -> team(id);
      case "org" -> org(id);
      case "tag" -> tag(id);
      case "model" -> model(id);
      default -> throw new IllegalArgumentException("unknown scope kind: " + text);
    };
  }

  /**
   * Returns a key scope.
   *
   * @param keyId the key id
   * @return the scope
   */
  public static Scope key(String keyId) {
    return new Scope(Kind.KEY, keyId);
  }

  /**
   * Returns a team scope.
   *
   * @param teamId the team id
   * @return the scope
   */
  public static Scope team(String teamId) {
    return new Scope(Kind.TEAM, teamId);
  }

  /**
   * Returns an org scope.
   *
   * @param orgId the org id
   * @return the scope
   */
  public static Scope org(String orgId) {
    return new Scope(Kind.ORG, orgId);
  }

  /**
   * Returns a tag scope.
   *
   * @param tag the tag
   * @return the scope
   */
  public static Scope tag(String tag) {
    return new Scope(Kind.TAG, tag);
  }

  /**
   * Returns a model scope.
   *
   * @param model the canonical model name
   * @return the scope
   */
  public static Scope model(String model) {
    return new Scope(Kind.MODEL, model);
  }

  /**
   * Returns whether a call falls in this scope.
   *
   * @param admission the call
   * @return true if it matches
   */
  public boolean matches(Admission admission) {
    switch (kind) {
      case GLOBAL: return true;
      case KEY: return id.equals(admission.identity().keyId());
      case TEAM: return id.equals(admission.identity().teamId());
      case ORG: return id.equals(admission.identity().orgId());
      case TAG: return admission.tags().contains(id);
      case MODEL: return id.equals(admission.model().name());
      default: throw new AssertionError(kind);
    }
  }

  /**
   * Returns whether a call with these attributes falls in this scope: used when rebuilding from
   * journaled dispatch intents, which carry the attributes but no admission.
   *
   * @param keyId the key id
   * @param teamId the team id, or {@code null}
   * @param orgId the org id, or {@code null}
   * @param tags the call's tags
   * @param model the canonical model name
   * @return true if it matches
   */
  public boolean matches(String keyId, String teamId, String orgId,
      java.util.Set<String> tags, String model) {
    switch (kind) {
      case GLOBAL: return true;
      case KEY: return id.equals(keyId);
      case TEAM: return id.equals(teamId);
      case ORG: return id.equals(orgId);
      case TAG: return tags.contains(id);
      case MODEL: return id.equals(model);
      default: throw new AssertionError(kind);
    }
  }

  @Override
  public String toString() {
    return kind == Kind.GLOBAL ? "global" : kind.name().toLowerCase(java.util.Locale.ROOT) + ":"
        + id;
  }
}
