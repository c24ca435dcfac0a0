package io.pointsman.spi;

import java.util.Map;
import java.util.Objects;

/**
 * What a provider said about a failed attempt, in the terms of OpenAI's error contract, so that
 * a host serving an OpenAI-compatible API can pass it on: the error's {@code type},
 * {@code code} and {@code param} as the provider sent them, and the provider's retry and
 * rate-limit headers ({@code retry-after}, {@code retry-after-ms}, {@code x-ratelimit-*}).
 * The provider's message is not here: it can echo a credential or the prompt, and travels only
 * scrubbed, in the exception's message.
 *
 * <p>Immutable and thread-safe.
 *
 * @param type the provider's error type, for example {@code "invalid_request_error"}, or null
 * @param code the provider's error code, for example {@code "insufficient_quota"}, or null
 * @param param the request parameter the provider blamed, for example {@code "messages"}, or
 *     null
 * @param headers the provider's retry and rate-limit headers, names in lower case
 */
public record UpstreamError(String type, String code, String param,
    Map<String, String> headers) {
  /** The code of a provider account whose quota or credit is exhausted. */
  public static final String INSUFFICIENT_QUOTA = "insufficient_quota";

  /**
   * Copies the headers.
   *
   * @param type the provider's error type, for example {@code "invalid_request_error"}, or null
   * @param code the provider's error code, for example {@code "insufficient_quota"}, or null
   * @param param the request parameter the provider blamed, for example {@code "messages"}, or
   *     null
   * @param headers the provider's retry and rate-limit headers, names in lower case
   * @throws NullPointerException if headers is null
   */
  public UpstreamError {
    headers = Map.copyOf(Objects.requireNonNull(headers, "headers"));
  }

  /**
   * Returns whether the provider says the account's quota is exhausted: its {@code code} or
   * {@code type} is {@value #INSUFFICIENT_QUOTA}. Retrying the same account does not help until
   * someone pays; another account may still answer.
   *
   * @return true for an exhausted quota
   */
  public boolean quotaExhausted() {
    return INSUFFICIENT_QUOTA.equals(code) || INSUFFICIENT_QUOTA.equals(type);
  }
}
