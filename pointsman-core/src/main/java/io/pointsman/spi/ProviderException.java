package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;

/**
 * A failed provider attempt. Says whether the provider may have done (and billed) the work, so
 * that an unknown outcome is never turned into zero cost, and whether a retry may help, and
 * what {@link Kind kind} of failure it was, so that a host can tell a context-length refusal
 * from an authentication failure without reading the message. Immutable and thread-safe.
 */
public final class ProviderException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  /** Whether the provider may have done the work. */
  public enum Billing {
    /**
     * The failure proves the provider did no work: the request was refused before it was
     * processed (a validation, authentication, permission or not-found refusal, a rate limit,
     * an overload refusal) or was never sent. Costs nothing.
     */
    NOT_BILLED,
    /**
     * The request may have been processed: a timeout or a broken connection after the send, a
     * server error or gateway timeout the provider answered after it may have started the work,
     * an answer cut short by the adapter. The gateway charges the attempt's worst case.
     */
    UNKNOWN
  }

  /**
   * What kind of failure an attempt ended with. The bundled adapters set it on every exception
   * they create; a custom provider sets it through the factories that take a kind, and the
   * factories without one derive it from the HTTP status ({@link #kindOf(int)}) or, where
   * there is none, report {@link #UNKNOWN}. New constants may be added: a host's {@code switch}
   * over it should have a default branch.
   */
  public enum Kind {
    /** The prompt does not fit the model's context window (HTTP 400 or 413). Not retryable. */
    CONTEXT_LENGTH,
    /** The provider rejected the adapter's credential (HTTP 401). Not retryable. */
    AUTHENTICATION,
    /** The credential may not use this model or resource (HTTP 403). Not retryable. */
    PERMISSION,
    /** The provider rate-limited the attempt (HTTP 429). Retryable, often with retry-after. */
    RATE_LIMITED,
    /**
     * The provider account's quota is exhausted (OpenAI sends it with 429). Waiting does not
     * end it; another deployment may get past it.
     */
    QUOTA_EXHAUSTED,
    /** The provider is overloaded (HTTP 503, Anthropic 529). Retryable. */
    OVERLOADED,
    /** Any other 5xx. Retryable; the outcome is unknown (the work may have been done). */
    SERVER_ERROR,
    /**
     * The provider timed out the request (HTTP 408) or reports a conflict (409). Retryable; the
     * outcome is unknown.
     */
    TRANSIENT,
    /** The model or path does not exist at the provider (HTTP 404). Not retryable. */
    NOT_FOUND,
    /** Any other 4xx: the request is invalid for this provider. Not retryable. */
    INVALID_REQUEST,
    /** No connection could be made, or the request could not be built: nothing was sent. */
    NOT_SENT,
    /** The provider did not start answering within the first-byte timeout or the deadline. */
    NO_RESPONSE,
    /** The response body stopped (reset, cut, silence beyond the between-chunk timeout). */
    INTERRUPTED,
    /** The provider answered 2xx with a body that cannot be decoded. */
    UNDECODABLE_RESPONSE,
    /** A stream reported an error event after it started. */
    STREAM_ERROR,
    /**
     * A stream's assembled content went over the adapter's limit: the stream was cut and its
     * connection closed. Not retryable; the outcome is unknown.
     */
    STREAM_TOO_LARGE,
    /**
     * The provider does not serve this call type (a chat-only adapter asked for embeddings).
     * Nothing was sent; another deployment may serve it.
     */
    UNSUPPORTED,
    /** The provider that threw did not say what kind of failure it was. */
    UNKNOWN;

    /**
     * Returns the code the bundled adapters put in square brackets into their messages, for
     * the host's logs.
     *
     * @return the lower-case code, for example {@code "context_length"}
     */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The rule of a refusal because the provider account's quota is exhausted. */
  public static final String QUOTA_EXHAUSTED_RULE = "upstream.insufficient_quota";

  /** Whether the provider may have billed the attempt. */
  private final Billing billing;
  /** Whether another attempt may succeed. */
  private final boolean retryable;
  /** Whether another attempt on the same deployment may succeed. */
  private final boolean retryableOnSameDeployment;
  private final transient Duration retryAfter;
  private final transient UpstreamError upstream;
  /** What kind of failure it was. */
  private final Kind kind;

  private ProviderException(
      Status status, Kind kind, String message, Billing billing, boolean retryable,
      Duration retryAfter, Throwable cause) {
    this(status, kind, null, message, billing, retryable, retryable, retryAfter, null, cause);
  }

  private ProviderException(
      Status status, Kind kind, String rule, String message, Billing billing, boolean retryable,
      boolean retryableOnSameDeployment, Duration retryAfter, UpstreamError upstream,
      Throwable cause) {
    super(status, Stages.PROVIDER_ATTEMPT, rule, message, cause, true);
    this.kind = Objects.requireNonNull(kind, "kind");
    this.billing = Objects.requireNonNull(billing, "billing");
    this.retryable = retryable;
    this.retryableOnSameDeployment = retryable && retryableOnSameDeployment;
    this.retryAfter = retryAfter;
    this.upstream = upstream;
  }

  /**
   * The provider answered with an error status. Its billing follows {@link #billingOf}: a
   * refusal before processing is not billed, any other status is an unknown outcome.
   *
   * @param httpStatus the provider's HTTP status
   * @param message what the provider said (sanitized)
   * @param retryAfter the provider's retry-after, or {@code null}
   * @return the exception; retryable for 408, 409, 429 and 5xx
   */
  public static ProviderException answered(int httpStatus, String message, Duration retryAfter) {
    return answered(httpStatus, message, retryAfter, null);
  }

  /**
   * The provider answered with an error status, classified by a rule name (for example
   * {@code "context_length"}) that {@link #rule()} reports. Its billing follows
   * {@link #billingOf}.
   *
   * @param httpStatus the provider's HTTP status
   * @param message what the provider said (sanitized)
   * @param retryAfter the provider's retry-after, or {@code null}
   * @param rule the error's kind, or {@code null}
   * @return the exception; retryable for 408, 409, 429 and 5xx
   */
  public static ProviderException answered(int httpStatus, String message, Duration retryAfter,
      String rule) {
    return answered(httpStatus, message, retryAfter, rule, null);
  }

  /**
   * The provider answered with an error status and said what it was in OpenAI's terms
   * ({@link UpstreamError}: its type, code, param and retry headers), which {@link #upstream()}
   * returns for a host to pass on. Its billing follows {@link #billingOf}.
   *
   * <p>An exhausted quota ({@link UpstreamError#quotaExhausted()}, whatever the status, OpenAI
   * sends it with 429) is not a rate limit: waiting does not end it. It is reported with
   * {@link Status#PAYMENT_REQUIRED} and rule {@value #QUOTA_EXHAUSTED_RULE}, is never retried
   * on the deployment that sent it ({@link #retryableOnSameDeployment()} is false), and may be
   * retried on another deployment, which may bill another account.
   *
   * @param httpStatus the provider's HTTP status
   * @param message what the provider said (sanitized and scrubbed of credentials and prompt)
   * @param retryAfter the provider's retry-after, or {@code null}
   * @param rule the error's kind, or {@code null}
   * @param upstream what the provider said in OpenAI's terms, or {@code null}
   * @return the exception; retryable for 408, 409, 429 and 5xx
   */
  public static ProviderException answered(int httpStatus, String message, Duration retryAfter,
      String rule, UpstreamError upstream) {
    return answered(httpStatus, message, retryAfter, rule, upstream, null);
  }

  /**
   * The provider answered with an error status of a kind the adapter has classified (for
   * example {@link Kind#CONTEXT_LENGTH} from the provider's error code), otherwise as
   * {@link #answered(int, String, Duration, String, UpstreamError)}.
   *
   * @param httpStatus the provider's HTTP status
   * @param message what the provider said (sanitized and scrubbed of credentials and prompt)
   * @param retryAfter the provider's retry-after, or {@code null}
   * @param rule the error's kind as a rule name, or {@code null}
   * @param upstream what the provider said in OpenAI's terms, or {@code null}
   * @param kind the failure's kind, or {@code null} to derive it from the status; an
   *     exhausted quota ({@link UpstreamError#quotaExhausted()}) is always
   *     {@link Kind#QUOTA_EXHAUSTED}
   * @return the exception; retryable for 408, 409, 429 and 5xx
   */
  public static ProviderException answered(int httpStatus, String message, Duration retryAfter,
      String rule, UpstreamError upstream, Kind kind) {
    boolean retryable = httpStatus == 408 || httpStatus == 409 || httpStatus == 429
        || httpStatus >= 500;
    String text = "provider answered " + httpStatus + ": " + message;
    if (upstream != null && upstream.quotaExhausted()) {
      return new ProviderException(Status.PAYMENT_REQUIRED, Kind.QUOTA_EXHAUSTED,
          QUOTA_EXHAUSTED_RULE, text,
          billingOf(httpStatus), true, false, retryAfter, upstream, null);
    }
    Status status = httpStatus == 429 ? Status.TOO_MANY_REQUESTS
        : httpStatus == 400 ? Status.BAD_REQUEST : Status.BAD_GATEWAY;
    return new ProviderException(status, kind == null ? kindOf(httpStatus) : kind, rule, text,
        billingOf(httpStatus), retryable, retryable, retryAfter, upstream, null);
  }

  /**
   * Says what kind of failure an error status is when nothing else is known: 401
   * authentication, 403 permission, 404 not found, 408 and 409 transient, 413 context length,
   * 429 rate limited, 503 and 529 overloaded, any other 5xx a server error, anything else an
   * invalid request.
   *
   * @param httpStatus the provider's HTTP status
   * @return the kind, never null
   */
  public static Kind kindOf(int httpStatus) {
    switch (httpStatus) {
      case 401:
        return Kind.AUTHENTICATION;
      case 403:
        return Kind.PERMISSION;
      case 404:
        return Kind.NOT_FOUND;
      case 408:
      case 409:
        return Kind.TRANSIENT;
      case 413:
        return Kind.CONTEXT_LENGTH;
      case 429:
        return Kind.RATE_LIMITED;
      case 503:
      case 529:
        return Kind.OVERLOADED;
      default:
        return httpStatus >= 500 ? Kind.SERVER_ERROR : Kind.INVALID_REQUEST;
    }
  }

  /**
   * Says whether an error status proves that the provider did no work. Only refusals before
   * processing do: 400, 401, 403, 404, 413 and 422 (validation and authentication refusals),
   * 429 (rate limit), 503 and 529 (overload refusals). Every other status, 408, 409, 500, 502,
   * 504 and 520 to 524 included, may come after the provider started the work (a proxy or the
   * provider's own front end timing out, a server failing half-way), so its outcome is
   * unknown.
   *
   * @param httpStatus the provider's HTTP status
   * @return {@link Billing#NOT_BILLED} for a refusal before processing, else
   *     {@link Billing#UNKNOWN}
   */
  public static Billing billingOf(int httpStatus) {
    switch (httpStatus) {
      case 400:
      case 401:
      case 403:
      case 404:
      case 413:
      case 422:
      case 429:
      case 503:
      case 529:
        return Billing.NOT_BILLED;
      default:
        return Billing.UNKNOWN;
    }
  }

  /**
   * The adapter stopped reading an answer the provider was still sending, for example a stream
   * over the adapter's size limit, and closed its connection. The provider may bill what it
   * generated, so the outcome is unknown (the gateway charges the attempt's worst case); a
   * retry would most likely end the same way, so it is not retryable.
   *
   * @param rule the reason, for example {@code "stream.too_large"}, reported by {@link #rule()}
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; status 502, not retryable, billing unknown
   * @throws NullPointerException if rule is null
   */
  public static ProviderException abandoned(String rule, String message, Throwable cause) {
    return abandoned(Kind.UNKNOWN, rule, message, cause);
  }

  /**
   * As {@link #abandoned(String, String, Throwable)}, of a given kind (the bundled adapters
   * use {@link Kind#STREAM_TOO_LARGE}).
   *
   * @param kind the failure's kind
   * @param rule the reason, reported by {@link #rule()}
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; status 502, not retryable, billing unknown
   * @throws NullPointerException if kind or rule is null
   */
  public static ProviderException abandoned(Kind kind, String rule, String message,
      Throwable cause) {
    return new ProviderException(Status.BAD_GATEWAY, kind, Objects.requireNonNull(rule, "rule"),
        message, Billing.UNKNOWN, false, false, null, null, cause);
  }

  /**
   * The attempt timed out or lost its connection after the request was sent.
   *
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; retryable, billing unknown
   */
  public static ProviderException unknownOutcome(String message, Throwable cause) {
    return unknownOutcome(Kind.UNKNOWN, message, cause);
  }

  /**
   * As {@link #unknownOutcome(String, Throwable)}, of a given kind (for example
   * {@link Kind#NO_RESPONSE} or {@link Kind#INTERRUPTED}).
   *
   * @param kind the failure's kind
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; retryable, billing unknown
   * @throws NullPointerException if kind is null
   */
  public static ProviderException unknownOutcome(Kind kind, String message, Throwable cause) {
    return new ProviderException(Status.GATEWAY_TIMEOUT, kind, message, Billing.UNKNOWN, true,
        null, cause);
  }

  /**
   * The provider does not serve the call type: nothing was sent. Another deployment may serve
   * it; this one never will.
   *
   * @param message what happened
   * @return the exception; status 502, kind {@link Kind#UNSUPPORTED}, rule
   *     {@code provider.unsupported}, not billed, retryable on another deployment only
   */
  public static ProviderException unsupported(String message) {
    return new ProviderException(Status.BAD_GATEWAY, Kind.UNSUPPORTED, "provider.unsupported",
        message, Billing.NOT_BILLED, true, false, null, null, null);
  }

  /**
   * The request could not be sent (connection refused, bad credentials configuration).
   *
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; retryable, not billed
   */
  public static ProviderException notSent(String message, Throwable cause) {
    return new ProviderException(Status.BAD_GATEWAY, Kind.NOT_SENT, message, Billing.NOT_BILLED,
        true, null, cause);
  }

  /**
   * Returns what kind of failure this was.
   *
   * @return the kind, {@link Kind#UNKNOWN} when the provider did not say
   */
  public Kind kind() {
    return kind;
  }

  /**
   * Returns whether the provider may have billed the attempt.
   *
   * @return the billing outcome
   */
  public Billing billing() {
    return billing;
  }

  /**
   * Returns whether another attempt may succeed.
   *
   * @return true for rate limits, server errors and timeouts
   */
  public boolean retryable() {
    return retryable;
  }

  /**
   * Returns whether another attempt on the deployment that failed may succeed. False when the
   * failure is not retryable at all, and for a failure that only another deployment may get
   * past, such as an exhausted quota: the gateway then retries elsewhere or fails the call.
   *
   * @return true when a retry on the same deployment may help
   */
  public boolean retryableOnSameDeployment() {
    return retryableOnSameDeployment;
  }

  /**
   * Returns what the provider said in OpenAI's terms: its error type, code, param and retry
   * headers.
   *
   * @return the provider's error, or {@code null} when the failure was not an error answer
   */
  public UpstreamError upstream() {
    return upstream;
  }

  /**
   * Returns the provider's retry-after hint.
   *
   * @return the hint, or {@code null}
   */
  public Duration retryAfter() {
    return retryAfter;
  }

  /**
   * Returns this failure as another deployment sees it: the same status, message, billing and
   * retryability without the provider's retry-after, which only concerns the deployment that
   * sent it. Returns this exception when it carries no hint.
   *
   * @return the failure without its retry-after
   */
  public ProviderException withoutRetryAfter() {
    if (retryAfter == null) {
      return this;
    }
    ProviderException copy = new ProviderException(status(), kind, rule(), getMessage(), billing,
        retryable, retryableOnSameDeployment, null, upstream, this);
    return copy;
  }
}
