package io.pointsman.catalog;

import java.util.Objects;
import java.util.Set;

/**
 * A model the gateway can serve: its canonical name, aliases, limits, price and capabilities.
 * Immutable.
 *
 * @param name the canonical model name
 * @param aliases other names callers may use
 * @param contextWindow the most tokens (input plus output) the model accepts
 * @param maxOutputTokens the most output tokens one completion may produce
 * @param price the price, or {@code null} when unknown (then every call is charged its full
 *     reservation, never zero)
 * @param capabilities what the model supports, for example {@link #TOOLS}, {@link #STREAMING}
 * @param imageTokens the most input tokens one image part can cost with this model, as its
 *     provider bills it (the bound admission counts per image; default
 *     {@link #DEFAULT_IMAGE_TOKENS})
 */
public record ModelSpec(
    String name, Set<String> aliases, long contextWindow, long maxOutputTokens, Price price,
    Set<String> capabilities, long imageTokens) {
  /** Capability: tool calling. */
  public static final String TOOLS = "tools";
  /** Capability: streaming. */
  public static final String STREAMING = "streaming";
  /**
   * Serves embeddings ({@link io.pointsman.Gateway#embed}), and only embeddings: a model
   * without it is refused by {@code embed} with rule {@code capability:embeddings}, a model
   * with it by {@code chat} and {@code stream} with rule {@code capability:chat}.
   */
  public static final String EMBEDDINGS = "embeddings";
  /** Capability: image input. */
  public static final String VISION = "vision";
  /**
   * Capability: a JSON schema response format. Recorded from price tables; the gateway
   * enforces {@link #TOOLS}, {@link #STREAMING} and {@link #VISION} only.
   */
  public static final String JSON_SCHEMA = "json_schema";
  /**
   * The default bound of one image part's input tokens: 4,096. It covers the published worst
   * cases of OpenAI's tile-based high detail (gpt-4o: 85 + 8 tiles × 170 = 1,445), of its
   * patch-based models (at most 1,536 patches × a multiplier of at most 2.46 = 3,779) and of
   * Anthropic's images (about 1,600). Models that bill images above it must set their own, for
   * example gpt-4o-mini (2,833 + 8 × 5,667 = 48,169).
   */
  public static final long DEFAULT_IMAGE_TOKENS = 4_096;

  /**
   * Validates the fields.
   *
   * @param name the canonical model name
   * @param aliases other names callers may use
   * @param contextWindow the most tokens (input plus output) the model accepts
   * @param maxOutputTokens the most output tokens one completion may produce
   * @param price the price, or {@code null} when unknown (then every call is charged its full
   *     reservation, never zero)
   * @param capabilities what the model supports, for example {@link #TOOLS}, {@link #STREAMING}
   * @param imageTokens the most input tokens one image part can cost with this model, as its
   *     provider bills it (the bound admission counts per image; default
   *     {@link #DEFAULT_IMAGE_TOKENS})
   * @throws NullPointerException if name, aliases or capabilities is null
   * @throws IllegalArgumentException if a limit is not positive or the output cap exceeds the
   *     context window
   */
  public ModelSpec {
    Objects.requireNonNull(name, "name");
    if (name.isBlank()) {
      throw new IllegalArgumentException("model name must not be blank");
    }
    aliases = Set.copyOf(aliases);
    capabilities = Set.copyOf(capabilities);
    if (contextWindow <= 0 || maxOutputTokens <= 0) {
      throw new IllegalArgumentException("model " + name
          + ": contextWindow and maxOutputTokens must be positive");
    }
    if (maxOutputTokens > contextWindow) {
      throw new IllegalArgumentException("model " + name
          + ": maxOutputTokens exceeds contextWindow");
    }
    if (imageTokens <= 0) {
      throw new IllegalArgumentException("model " + name + ": imageTokens must be positive");
    }
  }

  /**
   * Creates a spec whose images are bounded at {@link #DEFAULT_IMAGE_TOKENS}.
   *
   * @param name the canonical model name
   * @param aliases other names callers may use
   * @param contextWindow the most tokens (input plus output) the model accepts
   * @param maxOutputTokens the most output tokens one completion may produce
   * @param price the price, or {@code null} when unknown
   * @param capabilities what the model supports
   * @throws IllegalArgumentException as the canonical constructor
   */
  public ModelSpec(String name, Set<String> aliases, long contextWindow, long maxOutputTokens,
      Price price, Set<String> capabilities) {
    this(name, aliases, contextWindow, maxOutputTokens, price, capabilities,
        DEFAULT_IMAGE_TOKENS);
  }

  /**
   * Starts a spec with the given name, a 128k context, 16k output, no price, tools and
   * streaming, and images bounded at {@link #DEFAULT_IMAGE_TOKENS}.
   *
   * @param name the canonical name
   * @return a builder
   */
  public static Builder builder(String name) {
    return new Builder(name);
  }

  /**
   * Returns whether the model supports a capability.
   *
   * @param capability the capability name
   * @return true if supported
   */
  public boolean supports(String capability) {
    return capabilities.contains(capability);
  }

  /** A builder of {@link ModelSpec}; not thread-safe. */
  public static final class Builder {
    private final String name;
    private Set<String> aliases = Set.of();
    private long contextWindow = 128_000;
    private long maxOutputTokens = 16_384;
    private Price price;
    private Set<String> capabilities = Set.of(TOOLS, STREAMING);
    private long imageTokens = DEFAULT_IMAGE_TOKENS;

    private Builder(String name) {
      this.name = Objects.requireNonNull(name, "name");
    }

    /**
     * Sets the aliases.
     *
     * @param values the aliases
     * @return this builder
     */
    public Builder aliases(String... values) {
      this.aliases = Set.of(values);
      return this;
    }

    /**
     * Sets the context window.
     *
     * @param tokens the window in tokens
     * @return this builder
     */
    public Builder contextWindow(long tokens) {
      this.contextWindow = tokens;
      return this;
    }

    /**
     * Sets the output cap.
     *
     * @param tokens the cap in tokens
     * @return this builder
     */
    public Builder maxOutputTokens(long tokens) {
      this.maxOutputTokens = tokens;
      return this;
    }

    /**
     * Sets the price.
     *
     * @param value the price
     * @return this builder
     */
    public Builder price(Price value) {
      this.price = Objects.requireNonNull(value, "price");
      return this;
    }

    /**
     * Sets the capabilities.
     *
     * @param values the capabilities
     * @return this builder
     */
    public Builder capabilities(String... values) {
      this.capabilities = Set.of(values);
      return this;
    }

    /**
     * Sets the capabilities.
     *
     * @param values the capabilities
     * @return this builder
     */
    public Builder capabilities(java.util.Collection<String> values) {
      this.capabilities = Set.copyOf(values);
      return this;
    }

    /**
     * Sets the most input tokens one image part can cost (the provider's worst case for the
     * largest image it accepts at the highest detail). Default {@link #DEFAULT_IMAGE_TOKENS}.
     *
     * @param tokens the bound in tokens
     * @return this builder
     */
    public Builder imageTokens(long tokens) {
      this.imageTokens = tokens;
      return this;
    }

    /**
     * Builds the spec.
     *
     * @return the spec
     * @throws IllegalArgumentException if a limit is invalid
     */
    public ModelSpec build() {
      return new ModelSpec(name, aliases, contextWindow, maxOutputTokens, price, capabilities,
          imageTokens);
    }
  }
}
