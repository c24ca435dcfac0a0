package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;

/**
 * Stage 8, {@code guardrail.output}: checks a complete response. A blocked response is still
 * accounted: the provider was paid. Implementations must be thread-safe and fast.
 */
@FunctionalInterface
public interface OutputGuardrail {
  /**
   * Checks a response.
   *
   * @param identity the caller
   * @param request the request as sent
   * @param response the response
   * @return the response to return: the same one or a redacted copy
   * @throws PointsmanException with status 400 and the rule's name when the response is blocked
   */
  ChatResponse check(Identity identity, ChatRequest request, ChatResponse response);

  /**
   * Returns a guardrail that lets everything through.
   *
   * @return the guardrail
   */
  static OutputGuardrail none() {
    return (identity, request, response) -> response;
  }
}
