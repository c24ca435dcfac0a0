package io.pointsman.catalog;

import java.util.Objects;

/**
 * The price of a model in integer micro-units (one millionth of the currency unit) per million
 * tokens, with the version that names it on every ledger row charged at it. Immutable.
 *
 * <p>Token classes: uncached input, cached input (a provider's cache read), cache-write input
 * (tokens written to a provider's prompt cache, which Anthropic bills at 1.25× or 2× input),
 * output, and reasoning output (counted inside the output tokens, as OpenAI reports them, and
 * charged at their own price where a model bills them apart). A price built without a
 * cache-write or reasoning price charges those tokens as plain input and plain output.
 *
 * @param inputPerMillion price of one million uncached input tokens
 * @param outputPerMillion price of one million output tokens
 * @param cachedInputPerMillion price of one million cached input tokens
 * @param cacheWritePerMillion price of one million input tokens written to the prompt cache
 * @param reasoningPerMillion price of one million reasoning output tokens
 * @param version the price's version, recorded on every usage record and ledger row charged at
 *     it; when {@code null}, the canonical text of the five prices (see {@link #fingerprint()})
 */
public record Price(long inputPerMillion, long outputPerMillion, long cachedInputPerMillion,
    long cacheWritePerMillion, long reasoningPerMillion, String version) {

  /** The longest version accepted: it is stored in every ledger row. */
  public static final int MAX_VERSION_LENGTH = 200;

  /**
   * Validates the prices and fills in the version.
   *
   * @param inputPerMillion price of one million uncached input tokens
   * @param outputPerMillion price of one million output tokens
   * @param cachedInputPerMillion price of one million cached input tokens
   * @param cacheWritePerMillion price of one million input tokens written to the prompt cache
   * @param reasoningPerMillion price of one million reasoning output tokens
   * @param version the price's version, or {@code null} for the canonical text of the prices
   * @throws IllegalArgumentException if a price is negative or the version is blank or longer
   *     than {@link #MAX_VERSION_LENGTH}
   */
  public Price {
    if (inputPerMillion < 0 || outputPerMillion < 0 || cachedInputPerMillion < 0
        || cacheWritePerMillion < 0 || reasoningPerMillion < 0) {
      throw new IllegalArgumentException("prices must not be negative: input=" + inputPerMillion
          + " output=" + outputPerMillion + " cachedInput=" + cachedInputPerMillion
          + " cacheWrite=" + cacheWritePerMillion + " reasoning=" + reasoningPerMillion);
    }
    if (version == null) {
      version = fingerprint(inputPerMillion, outputPerMillion, cachedInputPerMillion,
          cacheWritePerMillion, reasoningPerMillion);
    } else if (version.isBlank() || version.length() > MAX_VERSION_LENGTH) {
      throw new IllegalArgumentException("a price version must be 1 to " + MAX_VERSION_LENGTH
          + " characters and not blank");
    }
  }

  /**
   * Returns a price with a cached-input price, whose cache writes cost plain input and whose
   * reasoning tokens cost plain output.
   *
   * @param inputPerMillion price of one million uncached input tokens
   * @param outputPerMillion price of one million output tokens
   * @param cachedInputPerMillion price of one million cached input tokens
   * @throws IllegalArgumentException if a price is negative
   */
  public Price(long inputPerMillion, long outputPerMillion, long cachedInputPerMillion) {
    this(inputPerMillion, outputPerMillion, cachedInputPerMillion, inputPerMillion,
        outputPerMillion, null);
  }

  /**
   * Returns a price whose cached input and cache writes cost the same as uncached input.
   *
   * @param inputPerMillion micro-units per million input tokens
   * @param outputPerMillion micro-units per million output tokens
   * @return the price
   * @throws IllegalArgumentException if a price is negative
   */
  public static Price of(long inputPerMillion, long outputPerMillion) {
    return new Price(inputPerMillion, outputPerMillion, inputPerMillion);
  }

  /**
   * Starts a builder: input and output are required; cached input and cache writes default to
   * the input price, reasoning to the output price, the version to {@link #fingerprint()}.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns this price under another version.
   *
   * @param value the version
   * @return the price
   * @throws IllegalArgumentException if the version is invalid
   */
  public Price withVersion(String value) {
    Objects.requireNonNull(value, "version");
    return new Price(inputPerMillion, outputPerMillion, cachedInputPerMillion,
        cacheWritePerMillion, reasoningPerMillion, value);
  }

  /**
   * Returns the canonical text of the five prices, for example
   * {@code in=150000;out=600000;cached=75000;write=150000;reasoning=600000}: the version of a
   * price that was given none, so that two equal prices share a version and a ledger row says
   * what it was charged at.
   *
   * @return the canonical text
   */
  public String fingerprint() {
    return fingerprint(inputPerMillion, outputPerMillion, cachedInputPerMillion,
        cacheWritePerMillion, reasoningPerMillion);
  }

  private static String fingerprint(long in, long out, long cached, long write, long reasoning) {
    return "in=" + in + ";out=" + out + ";cached=" + cached + ";write=" + write + ";reasoning="
        + reasoning;
  }

  /**
   * Returns the component-wise higher of this price and another: the price that covers either.
   * When one of the two is at least as dear in every component, that one is returned with its
   * version; otherwise the result's version is its fingerprint.
   *
   * @param other the other price, or {@code null}
   * @return the higher price; this price when {@code other} is null
   */
  public Price max(Price other) {
    if (other == null || other.dominatedBy(this)) {
      return this;
    }
    if (dominatedBy(other)) {
      return other;
    }
    return new Price(Math.max(inputPerMillion, other.inputPerMillion),
        Math.max(outputPerMillion, other.outputPerMillion),
        Math.max(cachedInputPerMillion, other.cachedInputPerMillion),
        Math.max(cacheWritePerMillion, other.cacheWritePerMillion),
        Math.max(reasoningPerMillion, other.reasoningPerMillion), null);
  }

  private boolean dominatedBy(Price p) {
    return inputPerMillion <= p.inputPerMillion && outputPerMillion <= p.outputPerMillion
        && cachedInputPerMillion <= p.cachedInputPerMillion
        && cacheWritePerMillion <= p.cacheWritePerMillion
        && reasoningPerMillion <= p.reasoningPerMillion;
  }

  /**
   * Returns the most the given tokens can cost at this price: every input token at
   * {@link #worstInputPerMillion()}, every output token at {@link #worstOutputPerMillion()},
   * rounded up. What a hold must cover.
   *
   * @param inputTokens input tokens
   * @param outputTokens output tokens
   * @return the cost in micro-units
   * @throws IllegalArgumentException if a count is negative
   * @throws ArithmeticException if the cost overflows a long
   */
  public long worstCost(long inputTokens, long outputTokens) {
    if (inputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException("token counts must not be negative");
    }
    long scaled = Math.addExact(Math.multiplyExact(inputTokens, worstInputPerMillion()),
        Math.multiplyExact(outputTokens, worstOutputPerMillion()));
    return roundUpToMicros(scaled);
  }

  /**
   * Returns the highest of the input prices (uncached, cached, cache write): what one input
   * token can cost at most.
   *
   * @return micro-units per million tokens
   */
  public long worstInputPerMillion() {
    return Math.max(inputPerMillion, Math.max(cachedInputPerMillion, cacheWritePerMillion));
  }

  /**
   * Returns the higher of the output and reasoning prices: what one output token can cost at
   * most.
   *
   * @return micro-units per million tokens
   */
  public long worstOutputPerMillion() {
    return Math.max(outputPerMillion, reasoningPerMillion);
  }

  /**
   * Returns the cost of the given token counts with no cache writes and no reasoning tokens,
   * rounded up to the next micro-unit.
   *
   * @param uncachedInputTokens uncached input tokens
   * @param cachedInputTokens cached input tokens
   * @param outputTokens output tokens
   * @return the cost in micro-units
   * @throws IllegalArgumentException if a count is negative
   * @throws ArithmeticException if the cost overflows a long
   */
  public long cost(long uncachedInputTokens, long cachedInputTokens, long outputTokens) {
    return cost(uncachedInputTokens, cachedInputTokens, 0, outputTokens, 0);
  }

  /**
   * Returns the cost of the given token counts, rounded up to the next micro-unit so that a
   * charge is never below the true cost. The products are summed exactly and divided once, so
   * the charge exceeds the exact cost by less than one micro-unit.
   *
   * @param plainInputTokens input tokens neither read from nor written to the prompt cache
   * @param cachedInputTokens input tokens read from the prompt cache
   * @param cacheWriteTokens input tokens written to the prompt cache
   * @param plainOutputTokens output tokens that are not reasoning tokens
   * @param reasoningTokens reasoning output tokens
   * @return the cost in micro-units
   * @throws IllegalArgumentException if a count is negative
   * @throws ArithmeticException if the cost overflows a long
   */
  public long cost(long plainInputTokens, long cachedInputTokens, long cacheWriteTokens,
      long plainOutputTokens, long reasoningTokens) {
    if (plainInputTokens < 0 || cachedInputTokens < 0 || cacheWriteTokens < 0
        || plainOutputTokens < 0 || reasoningTokens < 0) {
      throw new IllegalArgumentException("token counts must not be negative");
    }
    // Sum the per-million products first, then round once: rounding each term up would
    // over-charge by up to five micro-units.
    long scaled = Math.multiplyExact(plainInputTokens, inputPerMillion);
    scaled = Math.addExact(scaled, Math.multiplyExact(cachedInputTokens, cachedInputPerMillion));
    scaled = Math.addExact(scaled, Math.multiplyExact(cacheWriteTokens, cacheWritePerMillion));
    scaled = Math.addExact(scaled, Math.multiplyExact(plainOutputTokens, outputPerMillion));
    scaled = Math.addExact(scaled, Math.multiplyExact(reasoningTokens, reasoningPerMillion));
    return roundUpToMicros(scaled);
  }

  /** Micro-units from micro-units per million tokens times tokens, rounded up once. */
  private static long roundUpToMicros(long scaled) {
    return Math.floorDiv(scaled, 1_000_000L) + (Math.floorMod(scaled, 1_000_000L) == 0 ? 0 : 1);
  }

  /** Builds a {@link Price}; not thread-safe. */
  public static final class Builder {
    private Long input;
    private Long output;
    private Long cachedInput;
    private Long cacheWrite;
    private Long reasoning;
    private String version;

    private Builder() {}

    /**
     * Sets the price of uncached input. Required.
     *
     * @param perMillion micro-units per million tokens
     * @return this builder
     */
    public Builder input(long perMillion) {
      this.input = perMillion;
      return this;
    }

    /**
     * Sets the price of output. Required.
     *
     * @param perMillion micro-units per million tokens
     * @return this builder
     */
    public Builder output(long perMillion) {
      this.output = perMillion;
      return this;
    }

    /**
     * Sets the price of cached input (cache reads). Default: the input price.
     *
     * @param perMillion micro-units per million tokens
     * @return this builder
     */
    public Builder cachedInput(long perMillion) {
      this.cachedInput = perMillion;
      return this;
    }

    /**
     * Sets the price of cache-write input. Default: the input price.
     *
     * @param perMillion micro-units per million tokens
     * @return this builder
     */
    public Builder cacheWrite(long perMillion) {
      this.cacheWrite = perMillion;
      return this;
    }

    /**
     * Sets the price of reasoning output. Default: the output price.
     *
     * @param perMillion micro-units per million tokens
     * @return this builder
     */
    public Builder reasoning(long perMillion) {
      this.reasoning = perMillion;
      return this;
    }

    /**
     * Sets the version. Default: the price's {@link Price#fingerprint()}.
     *
     * @param value the version
     * @return this builder
     */
    public Builder version(String value) {
      this.version = Objects.requireNonNull(value, "version");
      return this;
    }

    /**
     * Builds the price.
     *
     * @return the price
     * @throws IllegalStateException if the input or output price is missing
     * @throws IllegalArgumentException if a price is negative or the version invalid
     */
    public Price build() {
      if (input == null || output == null) {
        throw new IllegalStateException("a price needs an input and an output price");
      }
      return new Price(input, output, cachedInput == null ? input : cachedInput,
          cacheWrite == null ? input : cacheWrite, reasoning == null ? output : reasoning,
          version);
    }
  }
}
