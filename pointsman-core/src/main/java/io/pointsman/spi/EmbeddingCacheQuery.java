package io.pointsman.spi;

import io.pointsman.CacheControl;
import io.pointsman.model.EmbeddingRequest;
import java.util.Objects;

/**
 * What the embeddings cache looks up or stores: the request within its tenant scope, as
 * {@link CacheQuery} is for chat. Immutable.
 *
 * @param identity the caller, whose org and team (or key, when it has neither) scope every entry
 * @param model the resolved model
 * @param request the request as the caller sent it
 * @param control the call's cache control
 * @param answeredBy on a store, the deployment that produced the response; {@code null} on a
 *     lookup, or when unknown
 */
public record EmbeddingCacheQuery(
    Identity identity, ResolvedModel model, EmbeddingRequest request, CacheControl control,
    Deployment answeredBy) {

  /**
   * Validates the fields.
   *
   * @param identity the caller
   * @param model the resolved model
   * @param request the request
   * @param control the call's cache control
   * @param answeredBy on a store, the deployment that produced the response, else {@code null}
   * @throws NullPointerException if a field other than answeredBy is null
   */
  public EmbeddingCacheQuery {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(control, "control");
  }

  /**
   * Returns a copy naming the deployment that produced the response being stored.
   *
   * @param deployment the deployment, or {@code null} when unknown
   * @return the copy
   */
  public EmbeddingCacheQuery answeredBy(Deployment deployment) {
    return new EmbeddingCacheQuery(identity, model, request, control, deployment);
  }

  /**
   * Returns the tenant part of every key ({@link CacheQuery#tenantOf}).
   *
   * @return an unambiguous text; equal for two queries only when they share a scope
   */
  public String tenant() {
    return CacheQuery.tenantOf(identity);
  }

  /**
   * Returns the canonical name of the model whose vectors the entry holds
   * ({@link CacheQuery#keyModelOf}): vectors of two models are never interchangeable.
   *
   * @return the canonical model name
   */
  public String keyModel() {
    return CacheQuery.keyModelOf(model, answeredBy);
  }
}
