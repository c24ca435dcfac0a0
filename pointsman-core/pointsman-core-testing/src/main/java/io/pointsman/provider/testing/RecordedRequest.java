package io.pointsman.provider.testing;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A request {@link HttpFixtureServer} received. Immutable.
 *
 * @param method the method
 * @param target the request target (path and query)
 * @param headers the headers, names in lower case (the last value of a repeated header)
 * @param body the body bytes
 */
public record RecordedRequest(String method, String target, Map<String, String> headers,
    byte[] body) {

  /**
   * Copies the fields.
   *
   * @param method the method
   * @param target the request target (path and query)
   * @param headers the headers, names in lower case (the last value of a repeated header)
   * @param body the body bytes
   */
  public RecordedRequest {
    headers = Map.copyOf(headers);
    body = body.clone();
  }

  /**
   * Returns the body bytes.
   *
   * @return a copy of the body
   */
  @Override
  public byte[] body() {
    return body.clone();
  }

  /**
   * Returns the body decoded as UTF-8.
   *
   * @return the body text
   */
  public String bodyText() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /**
   * Returns a header.
   *
   * @param name the name, any case
   * @return the value, or {@code null}
   */
  public String header(String name) {
    return headers.get(name.toLowerCase(java.util.Locale.ROOT));
  }
}
