package io.pointsman.spi;

import io.pointsman.model.ChatRequest;
import java.time.Instant;
import java.util.Objects;

/**
 * One provider attempt. Immutable.
 *
 * <p>From a gateway, the request always carries the output cap the call's hold assumed (on
 * {@code max_completion_tokens}, or on {@code max_tokens} when that is the field the caller
 * used; never above the hold's cap) and no more choices ({@code n}) than the hold covers. A
 * provider must send that cap: a provider default above it would let the provider bill more
 * than was held.
 *
 * @param requestId the call's request id
 * @param eventId the call's event id
 * @param deployment where to send
 * @param request the request to send, with the deployment's provider model name and the output
 *     cap the hold covers
 * @param attempt the attempt number, from 1
 * @param deadline when the call's time runs out, or {@code null}; from a gateway it is anchored
 *     to the wall clock when the attempt starts, from the time left on the gateway's monotonic
 *     clock, so a provider should turn it into a duration at once
 *     ({@code Duration.between(now, deadline)}) and measure that on a monotonic clock
 */
public record ProviderCall(
    String requestId, String eventId, Deployment deployment, ChatRequest request, int attempt,
    Instant deadline) {

  /**
   * Validates the fields.
   *
   * @param requestId the call's request id
   * @param eventId the call's event id
   * @param deployment where to send
   * @param request the request to send, with the deployment's provider model name and the output
   *     cap the hold covers
   * @param attempt the attempt number, from 1
   * @param deadline when the call's time runs out, or {@code null}; from a gateway it is anchored
   *     to the wall clock when the attempt starts, from the time left on the gateway's monotonic
   *     clock, so a provider should turn it into a duration at once
   *     ({@code Duration.between(now, deadline)}) and measure that on a monotonic clock
   * @throws NullPointerException if a required field is null
   */
  public ProviderCall {
    Objects.requireNonNull(requestId, "requestId");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(deployment, "deployment");
    Objects.requireNonNull(request, "request");
  }
}
