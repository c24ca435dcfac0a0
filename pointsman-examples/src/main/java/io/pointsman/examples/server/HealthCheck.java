package io.pointsman.examples.server;

/**
 * One component of the facade's health (journal, settler, counters, database, budgets). A
 * {@link HealthMonitor} runs each check on a background thread of its own, never in a request:
 * {@code /healthz} reads the last result. A check may block (a database round trip); the
 * monitor reports it down once it has not answered within its time-out. Implementations need
 * not be thread-safe: one check never runs twice at once.
 */
public interface HealthCheck {
  /**
   * Returns the component's name, a key of the health JSON.
   *
   * @return the name
   */
  String name();

  /**
   * Returns whether the component must be up for the facade to report healthy. The default
   * is true.
   *
   * @return true when required
   */
  default boolean required() {
    return true;
  }

  /**
   * Checks the component now.
   *
   * @return the result
   * @throws Exception when the check itself fails: the component is then reported down with
   *     the failure's message
   */
  ComponentHealth check() throws Exception;
}
