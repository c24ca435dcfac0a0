package io.pointsman.provider;

import io.pointsman.spi.ProviderException;
import java.util.Locale;

/**
 * What kind of failure a provider adapter reported, as this package named it before
 * {@link ProviderException#kind()} carried it. {@link #of(ProviderException)} reads the typed
 * kind; new code should use {@link ProviderException.Kind} directly, which also tells an
 * exhausted quota from a rate limit. Immutable.
 */
public enum ProviderErrorKind {
  /** The prompt does not fit the model's context window (HTTP 400 or 413). Not retryable. */
  CONTEXT_LENGTH,
  /** The provider rejected the adapter's credential (HTTP 401). Not retryable. */
  AUTHENTICATION,
  /** The credential may not use this model or resource (HTTP 403). Not retryable. */
  PERMISSION,
  /** The provider rate-limited the attempt (HTTP 429). Retryable, often with retry-after. */
  RATE_LIMITED,
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
  STREAM_TOO_LARGE;

  /**
   * Returns the code used in exception messages.
   *
   * @return the lower-case code, for example {@code "context_length"}
   */
  public String code() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Returns the kind of a provider failure, read from {@link ProviderException#kind()} (not
   * from its message). An exhausted quota reads as {@link #RATE_LIMITED}, the status OpenAI
   * sends it with, and an unsupported call type as {@link #NOT_SENT};
   * {@link ProviderException#kind()} tells them apart.
   *
   * @param failure the exception
   * @return the kind, or {@code null} when the provider that threw did not say
   *     ({@link ProviderException.Kind#UNKNOWN})
   * @throws NullPointerException if failure is null
   */
  public static ProviderErrorKind of(ProviderException failure) {
    ProviderException.Kind kind = failure.kind();
    switch (kind) {
      case UNKNOWN:
        return null;
      case QUOTA_EXHAUSTED:
        return RATE_LIMITED;
      case UNSUPPORTED:
        // An adapter that does not serve the call type sent nothing.
        return NOT_SENT;
      default:
        return valueOf(kind.name());
    }
  }
}
