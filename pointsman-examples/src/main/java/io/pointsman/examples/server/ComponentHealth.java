package io.pointsman.examples.server;

import java.util.Objects;

/**
 * What a {@link HealthCheck} found. Immutable.
 *
 * @param up whether the component works
 * @param detail a short description for an operator (never a secret)
 */
public record ComponentHealth(boolean up, String detail) {
  /**
   * Validates the fields.
   *
   * @param up whether the component works
   * @param detail a short description for an operator (never a secret)
   * @throws NullPointerException if detail is null
   */
  public ComponentHealth {
    Objects.requireNonNull(detail, "detail");
  }

  /**
   * A component that works.
   *
   * @param detail what it does
   * @return the result
   */
  public static ComponentHealth up(String detail) {
    return new ComponentHealth(true, detail);
  }

  /**
   * A component that does not work.
   *
   * @param detail what is wrong
   * @return the result
   */
  public static ComponentHealth down(String detail) {
    return new ComponentHealth(false, detail);
  }
}
