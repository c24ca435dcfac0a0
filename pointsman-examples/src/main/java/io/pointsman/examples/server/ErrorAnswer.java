package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.Json;
import io.pointsman.model.anthropic.AnthropicException;
import io.pointsman.provider.ProviderErrorKind;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UpstreamError;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A refusal or failure as the facade answers it, in OpenAI's error contract: the HTTP status,
 * the body {@code {"error": {"message", "type", "param", "code"}}} and the headers that go with
 * it. Any server layer writes it as it is: {@link #status()}, every entry of {@link #headers()},
 * and {@link #body()} (or, once a stream has started, {@link #streamEvent()}).
 *
 * <table>
 *   <caption>status, type and code</caption>
 *   <tr><th>status</th><th>type</th><th>code (param)</th></tr>
 *   <tr><td>400</td><td>{@code invalid_request_error}</td><td>{@code invalid_json},
 *       {@code invalid_value}, {@code context_length_exceeded} ({@code messages}),
 *       {@code unsupported_value} for a capability the model lacks, {@code content_filter}
 *       for a guardrail; {@code param} names the field</td></tr>
 *   <tr><td>401</td><td>{@code authentication_error}</td><td>{@code invalid_api_key}</td></tr>
 *   <tr><td>402</td><td>{@code insufficient_quota}</td><td>{@code insufficient_quota}: a
 *       budget, or the upstream account's quota; never retried by the OpenAI, LangChain4j and
 *       Spring AI clients' defaults</td></tr>
 *   <tr><td>403</td><td>{@code permission_error}</td><td>{@code model_not_allowed}
 *       ({@code model})</td></tr>
 *   <tr><td>404</td><td>{@code invalid_request_error}</td><td>{@code model_not_found}
 *       ({@code model}); for an unknown route, the code the server layer gives</td></tr>
 *   <tr><td>429</td><td>{@code requests}</td><td>{@code rate_limit_exceeded}</td></tr>
 *   <tr><td>5xx</td><td>{@code server_error}</td><td>{@code upstream_error},
 *       {@code service_unavailable}, {@code timeout}, {@code internal_error}</td></tr>
 * </table>
 *
 * <p>An upstream's own {@code type}, {@code code} and {@code param} replace these when it sent
 * them, except when the upstream refused the gateway's own credential (401, 403: its
 * {@code invalid_api_key} would blame the client's key; it goes to
 * {@code x-pointsman-upstream-code} instead); its message is the scrubbed one of {@link ProviderException} (no credential, no run of
 * the prompt), never its body. Pointsman's own detail goes in headers:
 * {@code x-pointsman-stage}, {@code x-pointsman-rule}, {@code x-pointsman-status} and, for an
 * upstream failure, {@code x-pointsman-upstream-status} and {@code x-pointsman-error-kind}.
 * Every answer carries {@code x-request-id}; an upstream's {@code retry-after},
 * {@code retry-after-ms} and {@code x-ratelimit-*} headers are passed on, and
 * {@code x-should-retry: false} (which OpenAI's SDKs obey) marks a refusal a retry cannot
 * change.
 *
 * <p>Immutable and thread-safe.
 *
 * @param status the HTTP status
 * @param type the error type
 * @param code the error code, or null
 * @param param the request parameter at fault, or null
 * @param message what went wrong, safe to show the caller
 * @param headers the headers to send, names in lower case
 */
public record ErrorAnswer(int status, String type, String code, String param, String message,
    Map<String, String> headers) {
  private static final Pattern JAVA_TYPE = Pattern.compile("`([a-z][a-z0-9_]*\\.)+([A-Za-z0-9_$]+)`"
      + "|\\b(?:java|io|com|org)\\.[a-z0-9_.]+\\.([A-Z][A-Za-z0-9_$]*)");
  private static final Pattern PATH_STEP = Pattern.compile("\\[(?:\"([^\"]*)\"|(\\d+))\\]");
  private static final Pattern HTTP_STATUS = Pattern.compile("provider answered (\\d{3})");
  private static final Pattern FIELD = Pattern.compile(
      "^(model|messages|temperature|top_p|max_tokens|max_completion_tokens|n|stream|tools"
      + "|response_format|input(?:\\[\\d+\\])*|encoding_format|dimensions)(?![\\w\\[])");
  private static final Pattern MESSAGE_N = Pattern.compile("^message (\\d+)\\b");
  private static final Pattern EMBEDDING_INPUT = Pattern.compile(
      "^context length exceeded: (input\\[\\d+\\])");
  private static final Pattern TOOL_N = Pattern.compile("^tool (\\d+)\\b");

  /**
   * Copies the headers.
   *
   * @param status the HTTP status
   * @param type the error type
   * @param code the error code, or null
   * @param param the request parameter at fault, or null
   * @param message what went wrong, safe to show the caller
   * @param headers the headers to send, names in lower case
   * @throws NullPointerException if type, message or headers is null
   */
  public ErrorAnswer {
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(message, "message");
    headers = Map.copyOf(headers);
  }

  /**
   * The answer to a refusal or failure of the gateway.
   *
   * @param e the failure
   * @param requestId the call's request id, sent as {@code x-request-id}
   * @return the answer
   * @throws NullPointerException if an argument is null
   */
  public static ErrorAnswer of(PointsmanException e, String requestId) {
    Objects.requireNonNull(requestId, "requestId");
    Status s = e.status();
    String stage = e.stage();
    String rule = e.rule();
    String message = publicMessage(e.getMessage());
    Map<String, String> h = new LinkedHashMap<>();
    h.put("x-request-id", requestId);
    h.put("x-pointsman-status", s.name().toLowerCase(Locale.ROOT));
    h.put("x-pointsman-stage", stage);
    if (rule != null) {
      h.put("x-pointsman-rule", rule);
    }
    String type = typeOf(s);
    String code = codeOf(s);
    String param = null;
    boolean noRetry = s == Status.PAYMENT_REQUIRED || s.httpStatus() < 429;
    switch (s) {
      case BAD_REQUEST -> {
        if ("context_window".equals(rule)) {
          code = "context_length_exceeded";
          // An embeddings input names itself: "context length exceeded: input[2] ...".
          Matcher input = EMBEDDING_INPUT.matcher(e.getMessage());
          param = input.find() ? input.group(1) : "messages";
        } else if (rule != null && rule.startsWith("capability:")) {
          code = "unsupported_value";
          param = switch (rule) {
            case "capability:tools" -> "tools";
            case "capability:streaming" -> "stream";
            case "capability:json_schema" -> "response_format";
            case "capability:embeddings", "capability:chat" -> "model";
            default -> "messages";
          };
        } else if (Stages.GUARDRAIL_INPUT.equals(stage)) {
          code = "content_filter";
          param = "messages";
        } else if (PointsmanException.INVALID_JSON_RULE.equals(rule)) {
          code = "invalid_json";
          param = jsonParam(e.getMessage());
          message = jsonMessage(e.getMessage(), param);
        } else {
          param = fieldParam(e.getMessage());
        }
      }
      case FORBIDDEN, NOT_FOUND -> param = Stages.MODEL_RESOLVE.equals(stage) ? "model" : null;
      default -> { }
    }
    if (e instanceof ProviderException pe) {
      ProviderErrorKind kind = ProviderErrorKind.of(pe);
      if (kind != null) {
        h.put("x-pointsman-error-kind", kind.code());
      }
      Matcher m = HTTP_STATUS.matcher(e.getMessage());
      if (m.find()) {
        h.put("x-pointsman-upstream-status", m.group(1));
      }
      UpstreamError up = pe.upstream();
      if (up != null && (kind == ProviderErrorKind.AUTHENTICATION
          || kind == ProviderErrorKind.PERMISSION)) {
        // The upstream refused the gateway's own credential: its code (invalid_api_key) would
        // tell the client that the client's key is wrong. The operator's detail stays here.
        if (up.code() != null) {
          h.put("x-pointsman-upstream-code", up.code());
        }
        h.putAll(up.headers());
      } else if (up != null) {
        if (up.type() != null && s != Status.PAYMENT_REQUIRED) {
          type = up.type();
        }
        if (up.code() != null) {
          code = up.code();
        }
        if (up.param() != null) {
          param = up.param();
        }
        h.putAll(up.headers());
      }
      if (!h.containsKey("retry-after") && pe.retryAfter() != null) {
        h.put("retry-after", seconds(pe.retryAfter()));
      }
      noRetry = noRetry || !pe.retryable();
    }
    if (noRetry) {
      h.put("x-should-retry", "false");
    }
    if (s == Status.UNAUTHORIZED) {
      h.put("www-authenticate", "Bearer");
    }
    return new ErrorAnswer(s.httpStatus(), type, code, param, message, h);
  }

  /**
   * An answer the server layer makes itself (no route, no key, a body too large).
   *
   * @param status the status
   * @param code the error code, or null
   * @param message what went wrong
   * @param requestId the request id, sent as {@code x-request-id}
   * @return the answer
   * @throws NullPointerException if status, message or requestId is null
   */
  public static ErrorAnswer of(Status status, String code, String message, String requestId) {
    Map<String, String> h = new LinkedHashMap<>();
    h.put("x-request-id", Objects.requireNonNull(requestId, "requestId"));
    h.put("x-pointsman-status", status.name().toLowerCase(Locale.ROOT));
    if (status == Status.UNAUTHORIZED) {
      h.put("www-authenticate", "Bearer");
    }
    if (status.httpStatus() < 429 || status == Status.PAYMENT_REQUIRED) {
      h.put("x-should-retry", "false");
    }
    return new ErrorAnswer(status.httpStatus(), typeOf(status), code,
        null, Objects.requireNonNull(message, "message"), h);
  }

  /**
   * Returns the JSON body, {@code {"error": {"message", "type", "param", "code"}}}.
   *
   * @return UTF-8 JSON
   */
  public byte[] body() {
    return Json.writeBytes(tree());
  }

  /**
   * Returns the Server-Sent Event that ends a stream that failed after it started:
   * {@code event: error} and the body as its data. OpenAI's SDKs raise on the {@code error}
   * object; LangChain4j raises on the {@code error} event name. The server then aborts the
   * response (no terminating chunk), which every HTTP client reports as an I/O error, so a
   * client that reads neither still does not take the truncated stream as complete.
   *
   * @return the event's bytes
   */
  public byte[] streamEvent() {
    return ("event: error\ndata: " + Json.write(tree()) + "\n\n")
        .getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Returns the body in Anthropic's error shape, for the Messages API's routes:
   * {@code {"type": "error", "error": {"type", "message"}}}, the type from the status as
   * {@link AnthropicException#errorTypeOf(int)} gives it (402 is {@code billing_error}).
   *
   * @return UTF-8 JSON
   */
  public byte[] anthropicBody() {
    return AnthropicException.errorBody(AnthropicException.errorTypeOf(status), message);
  }

  /**
   * Returns the Server-Sent Event that ends a Messages stream that failed after it started:
   * {@code event: error} and {@link #anthropicBody()} as its data, as Anthropic's streams end
   * with an error.
   *
   * @return the event's bytes
   */
  public byte[] anthropicStreamEvent() {
    return ("event: error\ndata: " + new String(anthropicBody(), StandardCharsets.UTF_8)
        + "\n\n").getBytes(StandardCharsets.UTF_8);
  }

  private ObjectNode tree() {
    ObjectNode root = Json.mapper().createObjectNode();
    ObjectNode error = root.putObject("error").put("message", message).put("type", type);
    if (param == null) {
      error.putNull("param");
    } else {
      error.put("param", param);
    }
    if (code == null) {
      error.putNull("code");
    } else {
      error.put("code", code);
    }
    return root;
  }

  private static String typeOf(Status s) {
    return switch (s) {
      case BAD_REQUEST, NOT_FOUND -> "invalid_request_error";
      case UNAUTHORIZED -> "authentication_error";
      case PAYMENT_REQUIRED -> "insufficient_quota";
      case FORBIDDEN -> "permission_error";
      case TOO_MANY_REQUESTS -> "requests";
      default -> "server_error";
    };
  }

  private static String codeOf(Status s) {
    return switch (s) {
      case BAD_REQUEST -> "invalid_value";
      case UNAUTHORIZED -> "invalid_api_key";
      case PAYMENT_REQUIRED -> "insufficient_quota";
      case FORBIDDEN -> "model_not_allowed";
      case NOT_FOUND -> "model_not_found";
      case TOO_MANY_REQUESTS -> "rate_limit_exceeded";
      case BAD_GATEWAY -> "upstream_error";
      case UNAVAILABLE -> "service_unavailable";
      case GATEWAY_TIMEOUT -> "timeout";
      default -> "internal_error";
    };
  }

  private static String seconds(Duration d) {
    long s = d.toSeconds() + (d.toNanosPart() > 0 ? 1 : 0);
    return Long.toString(Math.max(0, s));
  }

  /** A message with Java's type names turned into JSON's. */
  static String publicMessage(String message) {
    Matcher m = JAVA_TYPE.matcher(message);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String simple = m.group(2) != null ? m.group(2) : m.group(3);
      m.appendReplacement(out, Matcher.quoteReplacement(jsonType(simple)));
    }
    m.appendTail(out);
    return out.toString().replace("->", "");
  }

  private static String jsonType(String javaType) {
    return switch (javaType) {
      case "String", "Character", "char" -> "string";
      case "Integer", "Long", "int", "long", "Short", "BigInteger" -> "integer";
      case "Double", "Float", "double", "float", "BigDecimal", "Number" -> "number";
      case "Boolean", "boolean" -> "boolean";
      case "List", "ArrayList", "Collection", "Set" -> "array";
      case "Content" -> "string or array of content parts";
      default -> "object";
    };
  }

  /** A decoding message with its Java path replaced by the JSON path and no class names. */
  static String jsonMessage(String message, String param) {
    String m = message;
    int open = m.indexOf(" (");
    int close = m.indexOf("):", open);
    if (open >= 0 && close >= 0) {
      m = m.substring(0, open) + (param == null ? "" : " (" + param + ")")
          + m.substring(close + 1);
    }
    m = m.replaceAll("\\s*\\(class [^)]*\\)", "")
        .replaceAll("\\s*\\(for Object starting at [^)]*\\)", "")
        .replaceAll("\\s*\\(token `[^`]*`\\)", "");
    return publicMessage(m);
  }

  /** The JSON path a decoding message names, as OpenAI's {@code param}. */
  static String jsonParam(String message) {
    int open = message.indexOf('(');
    int close = message.indexOf("):", open);
    if (open < 0 || close < 0) {
      return null;
    }
    Matcher m = PATH_STEP.matcher(message.substring(open, close));
    StringBuilder p = new StringBuilder();
    while (m.find()) {
      if (m.group(1) != null) {
        if (p.length() > 0) {
          p.append('.');
        }
        p.append(m.group(1));
      } else {
        p.append('[').append(m.group(2)).append(']');
      }
    }
    return p.length() == 0 ? null : p.toString();
  }

  private static String fieldParam(String message) {
    Matcher m = MESSAGE_N.matcher(message);
    if (m.find()) {
      return "messages[" + m.group(1) + "]";
    }
    m = TOOL_N.matcher(message);
    if (m.find()) {
      return "tools[" + m.group(1) + "]";
    }
    m = FIELD.matcher(message);
    return m.find() ? m.group(1) : null;
  }
}
