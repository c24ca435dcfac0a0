package io.pointsman.spi;

import io.pointsman.model.ChatResponse;
import java.util.Objects;

/**
 * What the rest of the chain produced for a custom stage, or what a custom stage produces
 * itself. Immutable.
 *
 * @param response the response
 */
public record Reply(ChatResponse response) {

  /**
   * Validates the response.
   *
   * @param response the response
   * @throws NullPointerException if response is null
   */
  public Reply {
    Objects.requireNonNull(response, "response");
  }

  /**
   * Returns a reply.
   *
   * @param response the response
   * @return the reply
   */
  public static Reply of(ChatResponse response) {
    return new Reply(response);
  }
}
