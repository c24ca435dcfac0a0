package io.pointsman.spi;

import io.pointsman.model.ChatRequest;
import java.util.Objects;
import java.util.Set;

/**
 * What {@code router.select} picks a deployment for. Immutable.
 *
 * @param identity the caller
 * @param model the resolved model
 * @param request the request as it will be sent
 * @param attempt the attempt number, from 1
 * @param failed ids of deployments that already failed in this call
 */
public record RouteContext(
    Identity identity, ResolvedModel model, ChatRequest request, int attempt, Set<String> failed) {

  /**
   * Validates the fields.
   *
   * @param identity the caller
   * @param model the resolved model
   * @param request the request as it will be sent
   * @param attempt the attempt number, from 1
   * @param failed ids of deployments that already failed in this call
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if attempt is below 1
   */
  public RouteContext {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(request, "request");
    failed = Set.copyOf(failed);
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt starts at 1");
    }
  }
}
