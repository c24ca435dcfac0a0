package io.pointsman.provider;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.Json;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UpstreamError;
import java.io.IOException;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/** Maps HTTP outcomes of both adapters onto {@link ProviderException}. Stateless. */
final class ProviderErrors {
  /** Provider messages are cut to this length: they are for logs, and may echo input. */
  static final int MAX_MESSAGE_CHARS = 200;
  /** The rule of a stream cut at the adapter's content limit. */
  static final String STREAM_TOO_LARGE_RULE = "stream.too_large";

  private static final Pattern TOKEN = Pattern.compile("[A-Za-z0-9_.:\\[\\]-]+");
  private static final Pattern HEADER_VALUE = Pattern.compile("[A-Za-z0-9 .:,;=/_+-]+");

  private ProviderErrors() {}

  /**
   * Maps an error status and its body, knowing neither the credential nor the prompt (only
   * credential shapes are scrubbed from the provider's message).
   *
   * @param status the HTTP status, 300 or above
   * @param headers the response headers
   * @param body the response body (possibly partial)
   * @param now the current time, for HTTP-date retry-after values
   */
  static ProviderException fromStatus(int status, HttpHeaders headers, byte[] body, Instant now) {
    return fromStatus(status, headers, body, now, ErrorScrubber.shapesOnly());
  }

  /**
   * Maps an error status and its body. The provider's type, code and param are kept (in
   * {@link UpstreamError}) with its retry and rate-limit headers; its message is cut and
   * scrubbed of the credential, of credential shapes and of any run of the prompt.
   *
   * @param status the HTTP status, 300 or above
   * @param headers the response headers
   * @param body the response body (possibly partial)
   * @param now the current time, for HTTP-date retry-after values
   * @param scrubber what to remove from the provider's message
   */
  static ProviderException fromStatus(int status, HttpHeaders headers, byte[] body, Instant now,
      ErrorScrubber scrubber) {
    String type = null;
    String code = null;
    String param = null;
    String message = null;
    try {
      JsonNode root = Json.mapper().readTree(body);
      JsonNode error = root == null ? null : root.get("error");
      if (error != null && error.isObject()) {
        type = text(error.get("type"));
        code = text(error.get("code"));
        param = text(error.get("param"));
        message = text(error.get("message"));
      } else if (error != null && error.isTextual()) {
        message = error.asText();
      }
    } catch (IOException | RuntimeException e) {
      // Not JSON (a proxy's HTML page, for example): the status alone decides.
    }
    type = token(type);
    code = token(code);
    param = token(param);
    ProviderException.Kind kind = kindOf(status, type, code, message);
    String detail = "[" + kind.code() + "]" + (code != null ? " " + code : "")
        + (type != null && !type.equals(code) ? " " + type : "")
        + (message != null ? ": " + scrubber.scrub(sanitize(message)) : "");
    // A context-length refusal is the caller's request not fitting, whatever the status says.
    int reported = kind == ProviderException.Kind.CONTEXT_LENGTH ? 400 : status;
    if (reported != status) {
      detail = detail + " (HTTP " + status + ")";
    }
    UpstreamError upstream = new UpstreamError(type, code, param, passedHeaders(headers));
    return ProviderException.answered(reported, detail, retryAfter(headers, now), null,
        upstream, kind);
  }

  /** The headers a client of the gateway may act on: retry hints and rate-limit state. */
  static Map<String, String> passedHeaders(HttpHeaders headers) {
    Map<String, String> out = new TreeMap<>();
    for (Map.Entry<String, List<String>> e : headers.map().entrySet()) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
      if ((name.equals("retry-after") || name.equals("retry-after-ms")
          || name.startsWith("x-ratelimit-")) && !e.getValue().isEmpty()) {
        String value = e.getValue().get(0);
        if (value.length() <= 64 && HEADER_VALUE.matcher(value).matches()) {
          out.put(name, value);
        }
      }
    }
    return out;
  }

  /**
   * An error type, code or param as a provider sent it, kept only when it is a short
   * identifier-like token (anything else could carry input or markup).
   */
  static String token(String value) {
    if (value == null || value.isEmpty() || value.length() > 128
        || !TOKEN.matcher(value).matches()) {
      return null;
    }
    return value;
  }

  static ProviderException.Kind kindOf(int status, String type, String code, String message) {
    String all = ((type == null ? "" : type) + " " + (code == null ? "" : code) + " "
        + (message == null ? "" : message)).toLowerCase(Locale.ROOT);
    if (status == 413 || ((status == 400 || status == 422)
        && (all.contains("context_length") || all.contains("context length")
            || all.contains("context window") || all.contains("prompt is too long")
            || all.contains("too many tokens") || all.contains("maximum context")))) {
      return ProviderException.Kind.CONTEXT_LENGTH;
    }
    return ProviderException.kindOf(status);
  }

  /**
   * Reads the provider's retry hint: OpenAI's {@code retry-after-ms} first (milliseconds,
   * possibly fractional), then {@code retry-after} as delta-seconds (possibly fractional) or
   * as an HTTP-date.
   *
   * @return the pause, never negative, or {@code null} when absent or unreadable
   */
  static Duration retryAfter(HttpHeaders headers, Instant now) {
    String ms = headers.firstValue("retry-after-ms").orElse(null);
    if (ms != null) {
      Duration d = decimal(ms.trim(), 1_000_000L);
      if (d != null) {
        return d;
      }
    }
    String value = headers.firstValue("retry-after").orElse(null);
    if (value == null) {
      return null;
    }
    return parseRetryAfter(value, now);
  }

  static Duration parseRetryAfter(String value, Instant now) {
    String v = value.trim();
    if (v.isEmpty()) {
      return null;
    }
    if (Character.isDigit(v.charAt(0)) || v.charAt(0) == '.') {
      return decimal(v, 1_000_000_000L);
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration d = Duration.between(now, at);
      return d.isNegative() ? Duration.ZERO : d;
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration decimal(String v, long nanosPerUnit) {
    try {
      BigDecimal amount = new BigDecimal(v);
      if (amount.signum() < 0) {
        return null;
      }
      // A day is far beyond any sensible hint; capping keeps the arithmetic exact.
      BigDecimal nanos = amount.multiply(BigDecimal.valueOf(nanosPerUnit))
          .min(BigDecimal.valueOf(86_400_000_000_000L));
      return Duration.ofNanos(nanos.longValue());
    } catch (NumberFormatException | ArithmeticException e) {
      return null;
    }
  }

  /**
   * Maps a failure to get response headers. A connect failure means nothing was sent; any
   * other failure may have happened after the provider received the request.
   */
  static ProviderException fromSendFailure(String provider, Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpConnectTimeoutException || t instanceof ConnectException
          || t instanceof UnresolvedAddressException || t instanceof UnknownHostException
          || t instanceof NoRouteToHostException) {
        return ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] "
            + provider + ": could not connect (" + t.getClass().getSimpleName() + ")", failure);
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof HttpTimeoutException) {
        return ProviderException.unknownOutcome(ProviderException.Kind.NO_RESPONSE, "["
            + ProviderException.Kind.NO_RESPONSE.code()
            + "] " + provider + ": no response within the first-byte timeout", failure);
      }
    }
    return ProviderException.unknownOutcome(ProviderException.Kind.INTERRUPTED,
        "[" + ProviderException.Kind.INTERRUPTED.code() + "] "
        + provider + ": the connection failed after the send ("
        + failure.getClass().getSimpleName() + ")", failure);
  }

  static ProviderException interrupted(String provider, String what, Throwable cause) {
    return ProviderException.unknownOutcome(ProviderException.Kind.INTERRUPTED,
        "[" + ProviderException.Kind.INTERRUPTED.code() + "] "
        + provider + ": " + what, cause);
  }

  /**
   * A stream whose assembled content would go over the adapter's limit; the caller has cut it
   * (the transport cancels the body, which closes the connection).
   */
  static ProviderException streamTooLarge(String provider, long limit) {
    return ProviderException.abandoned(ProviderException.Kind.STREAM_TOO_LARGE,
        STREAM_TOO_LARGE_RULE, "[" + ProviderException.Kind.STREAM_TOO_LARGE.code() + "] " + provider + ": the stream's"
        + " assembled content would exceed " + limit + " characters; the stream was cut and"
        + " its connection closed", null);
  }

  static ProviderException undecodable(String provider, String what, Throwable cause) {
    return ProviderException.unknownOutcome(ProviderException.Kind.UNDECODABLE_RESPONSE, "["
        + ProviderException.Kind.UNDECODABLE_RESPONSE.code() + "] " + provider + ": " + what, cause);
  }

  static String sanitize(String s) {
    StringBuilder out = new StringBuilder(Math.min(s.length(), MAX_MESSAGE_CHARS + 1));
    for (int i = 0; i < s.length() && out.length() < MAX_MESSAGE_CHARS; i++) {
      char c = s.charAt(i);
      out.append(Character.isISOControl(c) ? ' ' : c);
    }
    if (s.length() > MAX_MESSAGE_CHARS) {
      out.append('…');
    }
    return out.toString();
  }

  private static String text(JsonNode node) {
    return node == null || node.isNull() ? null : node.asText();
  }
}
