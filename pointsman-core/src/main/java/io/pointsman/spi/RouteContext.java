package io.pointsman.spi;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.EmbeddingRequest;
import java.util.Objects;
import java.util.Set;

/**
 * What {@code router.select} picks a deployment for. Immutable. A chat call carries its
 * {@code request}; an embeddings call carries its {@code embedding} request instead and a
 * {@code null} request.
 *
 * @param identity the caller
 * @param model the resolved model
 * @param request the chat request as it will be sent, or {@code null} for an embeddings call
 * @param attempt the attempt number, from 1
 * @param failed ids of deployments that already failed in this call
 * @param embedding the embeddings request, or {@code null} for a chat call
 */
public record RouteContext(
    Identity identity, ResolvedModel model, ChatRequest request, int attempt, Set<String> failed,
    EmbeddingRequest embedding) {

  /**
   * Validates the fields.
   *
   * @param identity the caller
   * @param model the resolved model
   * @param request the chat request as it will be sent, or {@code null} for an embeddings call
   * @param attempt the attempt number, from 1
   * @param failed ids of deployments that already failed in this call
   * @param embedding the embeddings request, or {@code null} for a chat call
   * @throws NullPointerException if identity, model or failed is null
   * @throws IllegalArgumentException if attempt is below 1, or unless exactly one of request
   *     and embedding is set
   */
  public RouteContext {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(model, "model");
    failed = Set.copyOf(failed);
    if ((request == null) == (embedding == null)) {
      throw new IllegalArgumentException("a route context carries a chat request or an"
          + " embeddings request");
    }
    if (attempt < 1) {
      throw new IllegalArgumentException("attempt starts at 1");
    }
  }

  /**
   * The context of a chat call.
   *
   * @param identity the caller
   * @param model the resolved model
   * @param request the request as it will be sent
   * @param attempt the attempt number, from 1
   * @param failed ids of deployments that already failed in this call
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if attempt is below 1
   */
  public RouteContext(Identity identity, ResolvedModel model, ChatRequest request, int attempt,
      Set<String> failed) {
    this(identity, model, Objects.requireNonNull(request, "request"), attempt, failed, null);
  }

  /**
   * Returns whether this is an embeddings call.
   *
   * @return true when {@link #embedding()} is set
   */
  public boolean isEmbedding() {
    return embedding != null;
  }
}
