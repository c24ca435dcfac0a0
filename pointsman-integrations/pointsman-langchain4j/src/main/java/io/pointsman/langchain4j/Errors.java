package io.pointsman.langchain4j;

import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.TimeoutException;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;

/**
 * The gateway's failures as LangChain4j's exception types: 429 and the provider's and gateway's
 * transient failures (500, 502, 503, 504) are {@code RetriableException}s, refusals (400, 401,
 * 402, 403, 404) are {@code NonRetriableException}s. The {@link PointsmanException} is always
 * the cause.
 */
final class Errors {
  private Errors() {}

  static LangChain4jException toLangChain4j(PointsmanException e) {
    String message = describe(e);
    switch (e.status()) {
      case BAD_REQUEST:
        if (Stages.GUARDRAIL_INPUT.equals(e.stage()) || Stages.GUARDRAIL_OUTPUT.equals(e.stage())) {
          return new ContentFilteredException(message, e);
        }
        return new InvalidRequestException(message, e);
      case UNAUTHORIZED:
      case FORBIDDEN:
        return new AuthenticationException(message, e);
      case PAYMENT_REQUIRED:
        return new BudgetExceededException("budget exceeded: " + message, e);
      case NOT_FOUND:
        return new ModelNotFoundException(message, e);
      case TOO_MANY_REQUESTS:
        return new RateLimitException(message, e);
      case GATEWAY_TIMEOUT:
        return new TimeoutException(message, e);
      case INTERNAL:
      case BAD_GATEWAY:
      case UNAVAILABLE:
      default:
        return new InternalServerException(message, e);
    }
  }

  /** The gateway's own summary: status, stage, rule and message (never a key or a prompt). */
  static String describe(PointsmanException e) {
    return e.status().httpStatus() + " " + e.status() + " [" + e.stage()
        + (e.rule() == null ? "" : "/" + e.rule()) + "] " + e.getMessage();
  }
}
