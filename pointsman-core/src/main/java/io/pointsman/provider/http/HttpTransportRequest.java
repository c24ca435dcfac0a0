package io.pointsman.provider.http;

import java.net.URI;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.util.Objects;

/**
 * One request for an {@link HttpTransport}. Immutable by convention: the body array is not
 * copied and must not be changed while the request is sent.
 *
 * @param method the HTTP method ({@code POST}, {@code GET})
 * @param uri the absolute URI
 * @param headers the request's headers (the transport adds {@code Content-Length} and
 *     {@code Host} itself)
 * @param body the body's bytes, empty for none
 * @param firstByteTimeout how long the response's status and headers may take from the send,
 *     connect included
 * @param stream true when the answer is read as a stream (the transport should not gather
 *     the body ahead of the reader)
 */
public record HttpTransportRequest(String method, URI uri, HttpHeaders headers, byte[] body,
    Duration firstByteTimeout, boolean stream) {

  /**
   * Checks the fields.
   *
   * @param method the HTTP method
   * @param uri the absolute URI
   * @param headers the request's headers
   * @param body the body's bytes, empty for none
   * @param firstByteTimeout how long the status and headers may take
   * @param stream true when the answer is read as a stream
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if the timeout is not positive
   */
  public HttpTransportRequest {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(headers, "headers");
    Objects.requireNonNull(body, "body");
    Objects.requireNonNull(firstByteTimeout, "firstByteTimeout");
    if (firstByteTimeout.isZero() || firstByteTimeout.isNegative()) {
      throw new IllegalArgumentException("firstByteTimeout must be positive: "
          + firstByteTimeout);
    }
  }
}
