package io.pointsman.catalog;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.EmbeddingInput;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.ContentPart;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ModelResolver;
import io.pointsman.spi.ResolvedModel;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The default {@link ModelResolver}: an immutable catalog of models with aliases, context
 * windows, output caps and prices. Resolution checks the key ∩ team ∩ org grants, the model's
 * capabilities and the context window, using {@link TokenBounds#upperBound} and counting
 * exactly only when the bound does not fit. Thread-safe.
 *
 * <pre>{@code
 * ModelCatalog catalog = ModelCatalog.builder()
 *     .model(ModelSpec.builder("gpt-4o-mini").aliases("mini")
 *         .price(Price.of(150_000, 600_000)).build())
 *     .build();
 * }</pre>
 */
public final class ModelCatalog implements ModelResolver {
  /**
   * The byte bound past which a prompt is refused without an exact count: more than this many
   * bytes per token of the context window would be needed for it to fit.
   */
  public static final long MAX_BYTES_PER_TOKEN = 16;
  private final Map<String, ModelSpec> models;
  private final Map<String, ModelSpec> byName;
  private final Price unpricedFallback;

  private ModelCatalog(Builder b) {
    this.models = Map.copyOf(b.models);
    Map<String, ModelSpec> names = new HashMap<>();
    for (ModelSpec spec : b.models.values()) {
      names.put(spec.name(), spec);
    }
    for (ModelSpec spec : b.models.values()) {
      for (String alias : spec.aliases()) {
        ModelSpec previous = names.putIfAbsent(alias, spec);
        if (previous != null && previous != spec) {
          throw new IllegalStateException("alias '" + alias + "' names both " + previous.name()
              + " and " + spec.name());
        }
      }
    }
    this.byName = Map.copyOf(names);
    this.unpricedFallback = b.unpricedFallback;
  }

  /**
   * Returns a builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns every model.
   *
   * @return the models
   */
  public Collection<ModelSpec> models() {
    return models.values();
  }

  /**
   * Looks a model up by canonical name or alias.
   *
   * @param name the name
   * @return the model, or {@code null}
   */
  public ModelSpec find(String name) {
    return name == null ? null : byName.get(name);
  }

  /**
   * Returns the price used to size reservations of unpriced models.
   *
   * @return the fallback price, or {@code null} when every model is priced
   */
  public Price unpricedFallback() {
    return unpricedFallback;
  }

  @Override
  public ResolvedModel resolve(Identity identity, ChatRequest request) {
    ModelSpec spec = byName.get(request.model());
    if (spec == null) {
      throw PointsmanException.denied(Status.NOT_FOUND, Stages.MODEL_RESOLVE, null,
          "unknown model " + Json.quoteForMessage(request.model()));
    }
    authorize(identity, spec);
    checkCapabilities(spec, request);

    Integer requestedCap = request.outputTokenCap();
    if (requestedCap != null && requestedCap > spec.maxOutputTokens()) {
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
          "max_output_tokens", "max output tokens " + requestedCap + " exceed " + spec.name()
              + "'s maximum of " + spec.maxOutputTokens());
    }
    long input = TokenBounds.upperBound(request, spec.imageTokens());
    boolean exact = false;
    if (!fits(spec, input, requestedCap)) {
      if (input > MAX_BYTES_PER_TOKEN * spec.contextWindow()) {
        // Counting is linear in the prompt; a prompt this large cannot fit at any plausible
        // density, so refuse it without spending seconds tokenizing.
        throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
            "context_window", "context length exceeded: a prompt bounded at " + input
                + " tokens by its bytes cannot fit " + spec.name() + "'s window of "
                + spec.contextWindow() + " tokens");
      }
      input = TokenBounds.exact(request, spec.imageTokens());
      exact = true;
      if (!fits(spec, input, requestedCap)) {
        throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
            "context_window", "context length exceeded: " + input + " input tokens + "
                + (requestedCap == null ? 1 : requestedCap) + " output tokens exceed "
                + spec.name() + "'s window of " + spec.contextWindow());
      }
    }
    long maxOut = requestedCap != null ? requestedCap
        : Math.min(spec.maxOutputTokens(), spec.contextWindow() - input);
    return new ResolvedModel(spec, input, exact, maxOut);
  }

  /**
   * Resolves an embeddings request: the model (404), the key ∩ team ∩ org grants (403), the
   * {@link ModelSpec#EMBEDDINGS} capability (400, rule {@code capability:embeddings}), and each
   * input against the context window: a text is bounded by its UTF-8 bytes and counted with
   * the o200k BPE only when the bound does not fit, token ids are counted as given.
   *
   * @param identity the caller
   * @param request the request, already validated
   * @return the model, the bound of every input together and an output cap of 0
   * @throws PointsmanException as described
   */
  @Override
  public ResolvedModel resolveEmbedding(Identity identity, EmbeddingRequest request) {
    ModelSpec spec = byName.get(request.model());
    if (spec == null) {
      throw PointsmanException.denied(Status.NOT_FOUND, Stages.MODEL_RESOLVE, null,
          "unknown model " + Json.quoteForMessage(request.model()));
    }
    authorize(identity, spec);
    if (!spec.supports(ModelSpec.EMBEDDINGS)) {
      throw capability(spec, ModelSpec.EMBEDDINGS);
    }
    List<EmbeddingInput> inputs = request.inputs();
    long total = 0;
    boolean exact = true;
    for (int i = 0; i < inputs.size(); i++) {
      EmbeddingInput in = inputs.get(i);
      long tokens;
      if (in.tokenized()) {
        tokens = in.tokens().size();
      } else {
        tokens = TokenBounds.utf8Length(in.text());
        exact = false;
        if (tokens > spec.contextWindow()) {
          if (tokens > MAX_BYTES_PER_TOKEN * spec.contextWindow()) {
            throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
                "context_window", "context length exceeded: input[" + i + "], bounded at "
                    + tokens + " tokens by its bytes, cannot fit " + spec.name()
                    + "'s window of " + spec.contextWindow() + " tokens");
          }
          tokens = TokenBounds.count(in.text());
        }
      }
      if (tokens > spec.contextWindow()) {
        throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
            "context_window", "context length exceeded: input[" + i + "] has " + tokens
                + " tokens, " + spec.name() + " takes at most " + spec.contextWindow());
      }
      total += tokens;
    }
    return new ResolvedModel(spec, total, exact, 0);
  }

  private static void authorize(Identity identity, ModelSpec spec) {
    if (!identity.keyGrant().allows(spec.name(), spec.aliases())) {
      throw forbidden("grant:key", "key " + identity.keyId(), spec);
    }
    if (!identity.teamGrant().allows(spec.name(), spec.aliases())) {
      throw forbidden("grant:team", "team " + identity.teamId(), spec);
    }
    if (!identity.orgGrant().allows(spec.name(), spec.aliases())) {
      throw forbidden("grant:org", "org " + identity.orgId(), spec);
    }
  }

  private static boolean fits(ModelSpec spec, long input, Integer requestedCap) {
    long out = requestedCap == null ? 1 : requestedCap;
    return input + out <= spec.contextWindow();
  }

  private static void checkCapabilities(ModelSpec spec, ChatRequest request) {
    if (spec.supports(ModelSpec.EMBEDDINGS)) {
      // An embedding model answers no chat completion: refused here rather than by the
      // provider after a send.
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
          "capability:chat", spec.name() + " is an embedding model: it serves embeddings"
              + " only");
    }
    if (request.tools() != null && !request.tools().isEmpty() && !spec.supports(ModelSpec.TOOLS)) {
      throw capability(spec, ModelSpec.TOOLS);
    }
    if (request.isStream() && !spec.supports(ModelSpec.STREAMING)) {
      throw capability(spec, ModelSpec.STREAMING);
    }
    if (!spec.supports(ModelSpec.VISION)) {
      for (Message m : request.messages()) {
        if (m.content() instanceof Content.Parts parts) {
          for (ContentPart part : parts.parts()) {
            if ("image_url".equals(part.type())) {
              throw capability(spec, ModelSpec.VISION);
            }
          }
        }
      }
    }
  }

  private static PointsmanException capability(ModelSpec spec, String capability) {
    return PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
        "capability:" + capability, spec.name() + " does not support " + capability);
  }

  private static PointsmanException forbidden(String rule, String who, ModelSpec spec) {
    return PointsmanException.denied(Status.FORBIDDEN, Stages.MODEL_RESOLVE, rule,
        who + " may not use model " + spec.name());
  }

  /** A builder of {@link ModelCatalog}; not thread-safe. */
  public static final class Builder {
    private final Map<String, ModelSpec> models = new LinkedHashMap<>();
    private Price unpricedFallback;

    private Builder() {}

    /**
     * Adds a model.
     *
     * @param spec the model
     * @return this builder
     * @throws NullPointerException if spec is null
     * @throws IllegalStateException if a model of that name was already added
     */
    public Builder model(ModelSpec spec) {
      Objects.requireNonNull(spec, "spec");
      if (models.putIfAbsent(spec.name(), spec) != null) {
        throw new IllegalStateException("model " + spec.name() + " was already added");
      }
      return this;
    }

    /**
     * Sets the price that sizes reservations of models without a price. Such calls are charged
     * their full reservation, never zero.
     *
     * @param price the fallback price
     * @return this builder
     * @throws NullPointerException if price is null
     * @throws IllegalStateException if already set
     */
    public Builder unpricedFallback(Price price) {
      Objects.requireNonNull(price, "price");
      if (unpricedFallback != null) {
        throw new IllegalStateException("unpricedFallback was already set to " + unpricedFallback);
      }
      this.unpricedFallback = price;
      return this;
    }

    /**
     * Builds the catalog.
     *
     * @return the catalog
     * @throws IllegalStateException if there is no model, if an alias names two models, or if a
     *     model has no price and no fallback price is set
     */
    public ModelCatalog build() {
      if (models.isEmpty()) {
        throw new IllegalStateException("a catalog needs at least one model: add model(...)");
      }
      for (ModelSpec spec : models.values()) {
        if (spec.price() == null && unpricedFallback == null) {
          throw new IllegalStateException("model " + spec.name() + " has no price: give it one,"
              + " or set unpricedFallback(...) to size its reservations (it is then charged its"
              + " full reservation, never zero)");
        }
      }
      return new ModelCatalog(this);
    }
  }
}
