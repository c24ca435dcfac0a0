package io.pointsman.spi;

import io.pointsman.model.ChatRequest;
import java.time.Instant;
import java.util.Objects;

/**
 * One provider attempt. Immutable.
 *
 * @param requestId the call's request id
 * @param eventId the call's event id
 * @param deployment where to send
 * @param request the request to send, with the deployment's provider model name
 * @param attempt the attempt number, from 1
 * @param deadline when the call's time runs out, or {@code null}
 */
public record ProviderCall(
    String requestId, String eventId, Deployment deployment, ChatRequest request, int attempt,
    Instant deadline) {

  /**
   * Validates the fields.
   *
   * @throws NullPointerException if a required field is null
   */
  public ProviderCall {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(request, "request");
  }
}
