package io.pointsman;

import java.util.Objects;

/**
 * Thrown by {@link Gateway.Builder#build()} when the settings do not fit together: the message
 * names what is wrong and what to add or remove, and {@link #problem()} says which rule was
 * broken, so a host can tell a misspelt model from a missing provider without parsing text.
 * An {@link IllegalStateException}, as every rule across builder settings is. Immutable.
 */
public final class ConfigurationException extends IllegalStateException {
  private static final long serialVersionUID = 1L;

  /** Which rule across builder settings a configuration broke. */
  public enum Problem {
    /** A required setting is missing (an authenticator, models, a deployment, a provider). */
    MISSING_SETTING,
    /** A deployment, given to the builder or to the router, names an unregistered provider. */
    UNREGISTERED_PROVIDER,
    /** A deployment serves a model the catalog does not have. */
    UNKNOWN_MODEL,
    /** Two settings that exclude each other were both given. */
    CONFLICTING_SETTINGS
  }

  /** What is wrong with the configuration. */
  private final Problem problem;

  /**
   * Creates the exception.
   *
   * @param problem which rule was broken
   * @param message what is wrong and what to do
   * @throws NullPointerException if problem is null
   */
  public ConfigurationException(Problem problem, String message) {
    super(message);
    this.problem = Objects.requireNonNull(problem, "problem");
  }

  /**
   * Returns which rule was broken.
   *
   * @return the problem
   */
  public Problem problem() {
    return problem;
  }
}
