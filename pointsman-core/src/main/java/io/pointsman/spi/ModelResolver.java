package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;

/**
 * Stage 2, {@code model.resolve}: resolves the requested name or alias to a model, checks that
 * the identity may use it (key ∩ team ∩ org), that it supports what the request needs, and
 * that the request fits its context window. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface ModelResolver {
  /**
   * Resolves the model of a request.
   *
   * @param identity the caller
   * @param request the request
   * @return the model and the request's token bounds
   * @throws PointsmanException 404 for an unknown model, 403 when a grant forbids it, 400 when
   *     the request exceeds the context window or needs a missing capability
   */
  ResolvedModel resolve(Identity identity, ChatRequest request);
}
