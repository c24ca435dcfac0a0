package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;

/**
 * Stage 4, {@code guardrail.input}: checks a request before it can reach a cache or a provider,
 * and may return a redacted copy. Implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface InputGuardrail {
  /**
   * Checks a request.
   *
   * @param identity the caller
   * @param request the request
   * @return the request to go on with: the same one, or a redacted copy
   * @throws PointsmanException with status 400 and the rule's name when the request is blocked
   */
  ChatRequest check(Identity identity, ChatRequest request);

  /**
   * Returns a guardrail that lets everything through.
   *
   * @return the guardrail
   */
  static InputGuardrail none() {
    return (identity, request) -> request;
  }
}
