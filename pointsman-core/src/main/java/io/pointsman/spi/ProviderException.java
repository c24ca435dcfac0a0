package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.time.Duration;
import java.util.Objects;

/**
 * A failed provider attempt. Says whether the provider may have done (and billed) the work, so
 * that an unknown outcome is never turned into zero cost, and whether a retry may help.
 * Immutable and thread-safe.
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

  private ProviderException(
      Status status, String message, Billing billing, boolean retryable, Duration retryAfter,
      Throwable cause) {
    this(status, null, message, billing, retryable, retryable, retryAfter, null, cause);
  }

  private ProviderException(
      Status status, String rule, String message, Billing billing, boolean retryable,
      boolean retryableOnSameDeployment, Duration retryAfter, UpstreamError upstream,
      Throwable cause) {
    super(status, Stages.PROVIDER_ATTEMPT, rule, message, cause, true);
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
    boolean retryable = httpStatus == 408 || httpStatus == 409 || httpStatus == 429
        || httpStatus >= 500;
    String text = "provider answered " + httpStatus + ": " + message;
    if (upstream != null && upstream.quotaExhausted()) {
      return new ProviderException(Status.PAYMENT_REQUIRED, QUOTA_EXHAUSTED_RULE, text,
          billingOf(httpStatus), true, false, retryAfter, upstream, null);
    }
    Status status = httpStatus == 429 ? Status.TOO_MANY_REQUESTS
        : httpStatus == 400 ? Status.BAD_REQUEST : Status.BAD_GATEWAY;
    return new ProviderException(status, rule, text, billingOf(httpStatus), retryable,
        retryable, retryAfter, upstream, null);
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
    return new ProviderException(Status.BAD_GATEWAY, Objects.requireNonNull(rule, "rule"),
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
    return new ProviderException(Status.GATEWAY_TIMEOUT, message, Billing.UNKNOWN, true, null,
        cause);
  }

  /**
   * The request could not be sent (connection refused, bad credentials configuration).
   *
   * @param message what happened
   * @param cause the underlying failure, or {@code null}
   * @return the exception; retryable, not billed
   */
  public static ProviderException notSent(String message, Throwable cause) {
    return new ProviderException(Status.BAD_GATEWAY, message, Billing.NOT_BILLED, true, null,
        cause);
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
    ProviderException copy = new ProviderException(status(), rule(), getMessage(), billing,
        retryable, retryableOnSameDeployment, null, upstream, this);
    return copy;
  }
}
