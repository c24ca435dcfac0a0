package io.pointsman.provider.http;

import java.io.IOException;

/**
 * Sends one HTTP request and hands back its response as an {@link HttpExchange}, for the
 * provider adapters ({@code OpenAiProvider.Builder#transport}, {@code
 * AnthropicProvider.Builder#transport}). An implementation keeps connections alive and reuses
 * them across exchanges, and must be thread-safe: many calling threads send at once.
 *
 * <p>The adapter enforces the between-chunk and total timeouts and the body caps through
 * {@link HttpExchange#read}; the implementation enforces the first-byte timeout of
 * {@link HttpTransportRequest#firstByteTimeout()} (connect included) and its own connect
 * timeout, and must stop waiting when the calling thread is interrupted, even when it blocks
 * in a socket read that an interrupt does not wake.
 */
@FunctionalInterface
public interface HttpTransport {
  /**
   * Sends the request and waits for the response's status and headers.
   *
   * @param request what to send
   * @return the exchange, its body unread; the caller ends it with {@link HttpExchange#close}
   *     or {@link HttpExchange#abort}
   * @throws java.net.http.HttpConnectTimeoutException when no connection was made within the
   *     connect timeout ({@link java.net.ConnectException} and
   *     {@link java.net.UnknownHostException} likewise mean nothing was sent)
   * @throws java.net.http.HttpTimeoutException when no response began within the first-byte
   *     timeout
   * @throws IOException when the exchange failed otherwise
   * @throws InterruptedException when the calling thread was interrupted (the exchange is then
   *     aborted)
   * @throws IllegalArgumentException when the request cannot be sent by this transport
   */
  HttpExchange send(HttpTransportRequest request) throws IOException, InterruptedException;
}
