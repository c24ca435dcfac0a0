package io.pointsman.spi;

import io.pointsman.catalog.ModelSpec;
import java.util.Objects;

/**
 * The outcome of {@code model.resolve}: the model a call will use and the token bounds the
 * reservation is sized from. Immutable.
 *
 * @param spec the model
 * @param inputTokens an upper bound of the prompt's tokens (exact when {@code inputExact})
 * @param inputExact whether {@code inputTokens} is an exact count rather than a bound
 * @param maxOutputTokens the output cap: the request's, else the model's
 */
public record ResolvedModel(
    ModelSpec spec, long inputTokens, boolean inputExact, long maxOutputTokens) {

  /**
   * Validates the fields.
   *
   * @param spec the model
   * @param inputTokens an upper bound of the prompt's tokens (exact when {@code inputExact})
   * @param inputExact whether {@code inputTokens} is an exact count rather than a bound
   * @param maxOutputTokens the output cap: the request's, else the model's
   * @throws NullPointerException if spec is null
   * @throws IllegalArgumentException if a count is negative
   */
  public ResolvedModel {
    Objects.requireNonNull(spec, "spec");
    if (inputTokens < 0 || maxOutputTokens < 0) {
      throw new IllegalArgumentException("token bounds must not be negative");
    }
  }

  /**
   * Returns the canonical model name.
   *
   * @return the name
   */
  public String name() {
    return spec.name();
  }
}
