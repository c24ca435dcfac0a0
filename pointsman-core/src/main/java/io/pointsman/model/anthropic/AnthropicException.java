package io.pointsman.model.anthropic;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.Json;
import java.util.Objects;

/**
 * A Messages API request or response that the translation refuses: the gateway's model cannot
 * express it, or the request is not a valid Messages request. It carries Anthropic's error
 * shape: {@link #errorType()} (for example {@code invalid_request_error}) and {@link #body()},
 * {@code {"type": "error", "error": {"type", "message"}}}, besides the gateway's
 * {@link #status()}, stage ({@link Stages#REQUEST}) and {@link #rule()}, one of this class's
 * rule constants. Created without a stack trace, like every denial. Immutable and thread-safe.
 */
public final class AnthropicException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  /** The rule of a request without {@code max_tokens}, which the Messages API requires. */
  public static final String MAX_TOKENS_MISSING = "anthropic.max_tokens_missing";
  /** The rule of a request field the gateway cannot carry ({@code top_k}, {@code thinking}…). */
  public static final String UNSUPPORTED_FIELD = "anthropic.unsupported_field";
  /** The rule of a content block the gateway cannot carry ({@code document}, thinking…). */
  public static final String UNSUPPORTED_BLOCK = "anthropic.unsupported_block";
  /** The rule of a server tool (a tool whose {@code type} is not a client tool's). */
  public static final String UNSUPPORTED_TOOL = "anthropic.unsupported_tool";
  /** The rule of a {@code tool_result} that answers no earlier {@code tool_use}. */
  public static final String UNKNOWN_TOOL_USE = "anthropic.unknown_tool_use";
  /** The rule of a request that is not a valid Messages request. */
  public static final String INVALID_REQUEST = "anthropic.invalid_request";
  /** The rule of a gateway response that has no Messages form. */
  public static final String UNTRANSLATABLE_RESPONSE = "anthropic.untranslatable_response";

  /** Anthropic's error type. */
  private final String errorType;

  private AnthropicException(Status status, String errorType, String rule, String message) {
    super(status, Stages.REQUEST, rule, message, null, false);
    this.errorType = Objects.requireNonNull(errorType, "errorType");
  }

  /**
   * A refused request: status 400, type {@code invalid_request_error}.
   *
   * @param rule the rule, one of this class's constants
   * @param message what was refused and why (names fields, never echoes the prompt)
   * @return the exception, to be thrown by the caller
   */
  public static AnthropicException invalidRequest(String rule, String message) {
    return new AnthropicException(Status.BAD_REQUEST, "invalid_request_error", rule, message);
  }

  /**
   * A gateway response that has no Messages form: status 502, type {@code api_error}.
   *
   * @param message what cannot be translated
   * @return the exception, to be thrown by the caller
   */
  public static AnthropicException untranslatable(String message) {
    return new AnthropicException(Status.BAD_GATEWAY, "api_error", UNTRANSLATABLE_RESPONSE,
        message);
  }

  /**
   * Returns Anthropic's error type.
   *
   * @return the type, for example {@code invalid_request_error}
   */
  public String errorType() {
    return errorType;
  }

  /**
   * Returns Anthropic's error body, {@code {"type": "error", "error": {"type", "message"}}}.
   *
   * @return UTF-8 JSON
   */
  public byte[] body() {
    return errorBody(errorType, getMessage());
  }

  /**
   * Returns Anthropic's error type for an HTTP status, as its API documents them:
   * 400 {@code invalid_request_error}, 401 {@code authentication_error}, 402
   * {@code billing_error}, 403 {@code permission_error}, 404 {@code not_found_error}, 413
   * {@code request_too_large}, 429 {@code rate_limit_error}, 503 and 529
   * {@code overloaded_error}, 504 {@code timeout_error}, every other status
   * {@code api_error} (other 4xx: {@code invalid_request_error}).
   *
   * @param httpStatus the status
   * @return the type
   */
  public static String errorTypeOf(int httpStatus) {
    return switch (httpStatus) {
      case 400 -> "invalid_request_error";
      case 401 -> "authentication_error";
      case 402 -> "billing_error";
      case 403 -> "permission_error";
      case 404 -> "not_found_error";
      case 413 -> "request_too_large";
      case 429 -> "rate_limit_error";
      case 503, 529 -> "overloaded_error";
      case 504 -> "timeout_error";
      default -> httpStatus >= 400 && httpStatus < 500 ? "invalid_request_error" : "api_error";
    };
  }

  /**
   * Returns an error body in Anthropic's shape.
   *
   * @param type the error type
   * @param message the message
   * @return UTF-8 JSON, {@code {"type": "error", "error": {"type", "message"}}}
   * @throws NullPointerException if an argument is null
   */
  public static byte[] errorBody(String type, String message) {
    ObjectNode root = Json.mapper().createObjectNode().put("type", "error");
    root.putObject("error").put("type", Objects.requireNonNull(type, "type"))
        .put("message", Objects.requireNonNull(message, "message"));
    return Json.writeBytes(root);
  }
}
