package io.pointsman.spi;

import io.pointsman.CacheControl;
import io.pointsman.model.ChatRequest;
import java.util.Objects;

/**
 * What {@code cache.lookup} looks up or stores: the request as it will be sent, within its
 * tenant scope. Immutable.
 *
 * @param identity the caller, whose org and team scope every entry
 * @param model the resolved model
 * @param request the request after the input guardrail (redacted)
 * @param control the call's cache control
 */
public record CacheQuery(
    Identity identity, ResolvedModel model, ChatRequest request, CacheControl control) {

  /**
   * Validates the fields.
   *
   * @param identity the caller, whose org and team scope every entry
   * @param model the resolved model
   * @param request the request after the input guardrail (redacted)
   * @param control the call's cache control
   * @throws NullPointerException if a field is null
   */
  public CacheQuery {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(control, "control");
  }
}
