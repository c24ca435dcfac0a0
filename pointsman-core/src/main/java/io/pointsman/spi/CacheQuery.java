package io.pointsman.spi;

import io.pointsman.CacheControl;
import io.pointsman.model.ChatRequest;
import java.util.Objects;

/**
 * What {@code cache.lookup} looks up or stores: the request as it will be sent, within its
 * tenant scope. Immutable.
 *
 * <p>Every cache key is built from {@link #tenant()} (org and team, or the key itself when the
 * identity has neither), {@link #keyModel()} (the model whose answer the entry is) and the
 * request.
 *
 * @param identity the caller, whose org and team (or key, when it has neither) scope every entry
 * @param model the resolved model
 * @param request the request after the input guardrail (redacted)
 * @param control the call's cache control
 * @param answeredBy on a store, the deployment that produced the response; {@code null} on a
 *     lookup, or when unknown
 */
public record CacheQuery(
    Identity identity, ResolvedModel model, ChatRequest request, CacheControl control,
    Deployment answeredBy) {

  /**
   * Validates the fields.
   *
   * @param identity the caller, whose org and team scope every entry
   * @param model the resolved model
   * @param request the request after the input guardrail (redacted)
   * @param control the call's cache control
   * @param answeredBy on a store, the deployment that produced the response; {@code null} on a
   *     lookup
   * @throws NullPointerException if a field other than answeredBy is null
   */
  public CacheQuery {
    Objects.requireNonNull(identity, "identity");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(request, "request");
    Objects.requireNonNull(control, "control");
  }

  /**
   * Creates a query without an answering deployment, as a lookup sees it.
   *
   * @param identity the caller
   * @param model the resolved model
   * @param request the request after the input guardrail
   * @param control the call's cache control
   * @throws NullPointerException if a field is null
   */
  public CacheQuery(Identity identity, ResolvedModel model, ChatRequest request,
      CacheControl control) {
    this(identity, model, request, control, null);
  }

  /**
   * Returns a copy naming the deployment that produced the response being stored.
   *
   * @param deployment the deployment, or {@code null} when unknown
   * @return the copy
   */
  public CacheQuery answeredBy(Deployment deployment) {
    return new CacheQuery(identity, model, request, control, deployment);
  }

  /**
   * Returns the tenant part of every cache key: the org and the team, each length-prefixed and
   * marked when absent; when the identity has neither an org nor a team, the key id instead, so
   * that two keys without a team or an org never share an entry.
   *
   * @return an unambiguous text; equal for two queries only when they share a scope
   */
  public String tenant() {
    return tenantOf(identity);
  }

  /**
   * Returns the tenant part of a cache key for an identity, as {@link #tenant()} describes it;
   * shared by the embeddings cache ({@link EmbeddingCacheQuery#tenant()}).
   *
   * @param identity the caller
   * @return an unambiguous text; equal for two identities only when they share a scope
   * @throws NullPointerException if identity is null
   */
  public static String tenantOf(Identity identity) {
    String org = identity.orgId();
    String team = identity.teamId();
    StringBuilder sb = new StringBuilder();
    if (org == null && team == null) {
      return sb.append("key:").append(identity.keyId().length()).append(':')
          .append(identity.keyId()).toString();
    }
    for (String part : new String[] {org, team}) {
      String p = part == null ? "" : part;
      sb.append(p.length()).append(':').append(p).append(part == null ? '!' : ';');
    }
    return sb.toString();
  }

  /**
   * Returns the canonical name of the model whose answer the entry holds: on a store, the
   * catalog model the answering deployment serves (a fallback deployment serves another model
   * than the one resolved, and its answer is that model's); otherwise the resolved model.
   * Deployments serving the same catalog model are interchangeable to the router, so their
   * answers share a key. A deployment naming the resolved model by one of its aliases answers
   * for that model.
   *
   * @return the canonical model name
   */
  public String keyModel() {
    return keyModelOf(model, answeredBy);
  }

  /**
   * Returns the canonical name of the model whose answer an entry holds, as
   * {@link #keyModel()} describes it; shared by the embeddings cache.
   *
   * @param model the resolved model
   * @param answeredBy the deployment that answered, or {@code null} on a lookup
   * @return the canonical model name
   * @throws NullPointerException if model is null
   */
  public static String keyModelOf(ResolvedModel model, Deployment answeredBy) {
    if (answeredBy == null || answeredBy.servesModel().equals(model.name())
        || model.spec().aliases().contains(answeredBy.servesModel())) {
      return model.name();
    }
    return answeredBy.servesModel();
  }
}
