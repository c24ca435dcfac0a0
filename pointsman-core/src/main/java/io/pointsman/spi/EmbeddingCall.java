package io.pointsman.spi;

import io.pointsman.model.EmbeddingRequest;
import java.time.Instant;
import java.util.Objects;

/**
 * One provider attempt of an embeddings call. Immutable.
 *
 * @param requestId the call's request id
 * @param eventId the call's event id
 * @param deployment where to send
 * @param request the request to send, with the deployment's provider model name
 * @param attempt the attempt number, from 1
 * @param deadline when the call's time runs out, or {@code null}; as in {@link ProviderCall},
 *     anchored to the wall clock when the attempt starts
 */
public record EmbeddingCall(
    String requestId, String eventId, Deployment deployment, EmbeddingRequest request,
    int attempt, Instant deadline) {

  /**
   * Validates the fields.
   *
   * @param requestId the call's request id
   * @param eventId the call's event id
   * @param deployment where to send
   * @param request the request to send, with the deployment's provider model name
   * @param attempt the attempt number, from 1
   * @param deadline when the call's time runs out, or {@code null}
   * @throws NullPointerException if a required field is null
   */
  public EmbeddingCall {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(request, "request");
  }
}
