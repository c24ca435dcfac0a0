package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.EmbeddingRequest;

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

  /**
   * Resolves the model of an embeddings request: the name or alias, the identity's grants, the
   * {@link io.pointsman.catalog.ModelSpec#EMBEDDINGS} capability and each input against the
   * context window. The returned model's {@code inputTokens} bounds every input together and
   * its {@code maxOutputTokens} is 0. The default refuses: a resolver that knows only chat
   * models serves no embeddings.
   *
   * @param identity the caller
   * @param request the request, already validated
   * @return the model and the inputs' token bound
   * @throws PointsmanException 404 for an unknown model, 403 when a grant forbids it, 400 when
   *     the model does not serve embeddings or an input exceeds its context window
   */
  default ResolvedModel resolveEmbedding(Identity identity, EmbeddingRequest request) {
    throw PointsmanException.denied(io.pointsman.Status.BAD_REQUEST,
        io.pointsman.Stages.MODEL_RESOLVE, "capability:embeddings", "the model resolver "
            + getClass().getSimpleName() + " does not resolve embedding models");
  }
}
