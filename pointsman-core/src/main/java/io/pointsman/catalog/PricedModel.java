package io.pointsman.catalog;

import java.util.Objects;
import java.util.Set;

/**
 * One row of a {@link PriceTable}: a model's price, limits and capabilities, and where the
 * price came from. Immutable.
 *
 * @param name the model's name as the table spells it
 * @param provider the provider the table names (for example {@code openai}, {@code anthropic}),
 *     or {@code null}
 * @param mode what the model does ({@link #CHAT}, {@link #EMBEDDING}, or the table's own word)
 * @param price the price, or {@code null} when the table prices it in no unit the gateway
 *     charges (per character, per second, per image) or gives no input or output price: such a
 *     model's cost is unknown, never zero
 * @param contextWindow the most input tokens, or 0 when the table does not say
 * @param maxOutputTokens the most output tokens, or 0 when the table does not say
 * @param capabilities capabilities in {@link ModelSpec}'s words ({@link ModelSpec#TOOLS},
 *     {@link ModelSpec#VISION}, {@link ModelSpec#JSON_SCHEMA}, {@link ModelSpec#STREAMING})
 * @param source where the price was read (a URL or a file), or {@code null}
 * @param asOf the date the price is known to hold from ({@code yyyy-mm-dd}), or {@code null}
 * @param notes what the loader changed or left out, for example a context window capped below
 *     a price tier it does not model; empty when nothing
 */
public record PricedModel(String name, String provider, String mode, Price price,
    long contextWindow, long maxOutputTokens, Set<String> capabilities, String source,
    String asOf, String notes) {

  /** The mode of chat and completion models. */
  public static final String CHAT = "chat";
  /** The mode of embedding models. */
  public static final String EMBEDDING = "embedding";

  /**
   * Validates the fields.
   *
   * @param name the model's name
   * @param provider the provider, or {@code null}
   * @param mode what the model does
   * @param price the price, or {@code null} when unknown
   * @param contextWindow the most input tokens, or 0
   * @param maxOutputTokens the most output tokens, or 0
   * @param capabilities capabilities
   * @param source where the price was read, or {@code null}
   * @param asOf the date the price holds from, or {@code null}
   * @param notes what the loader changed, or empty
   * @throws NullPointerException if name, mode, capabilities or notes is null
   * @throws IllegalArgumentException if a limit is negative
   */
  public PricedModel {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(mode, "mode");
    capabilities = Set.copyOf(capabilities);
    Objects.requireNonNull(notes, "notes");
    if (contextWindow < 0 || maxOutputTokens < 0) {
      throw new IllegalArgumentException("model " + name + ": limits must not be negative");
    }
  }

  /**
   * Returns this row with another price, for a per-model override.
   *
   * @param value the price
   * @return the row
   */
  public PricedModel withPrice(Price value) {
    return new PricedModel(name, provider, mode, Objects.requireNonNull(value, "price"),
        contextWindow, maxOutputTokens, capabilities, source, asOf, notes);
  }

  /**
   * Returns a {@link ModelSpec} for a chat or embedding model: this row's price, limits and
   * capabilities. A spec's context window counts input and output together; the table's input
   * limit is used as that window, which is the stricter reading. An embedding model's spec has
   * the capability {@link ModelSpec#EMBEDDINGS} only, and an output cap of 1 (the gateway holds
   * no output for embeddings).
   *
   * @return a builder holding the spec, for aliases or other changes
   * @throws IllegalStateException if the row is neither a chat nor an embedding model, or
   *     lacks a limit
   */
  public ModelSpec.Builder toSpec() {
    if (EMBEDDING.equals(mode)) {
      if (contextWindow <= 0) {
        throw new IllegalStateException("model " + name + ": the table gives no input limit;"
            + " set the context window on the spec");
      }
      // An embedding model produces no tokens: the output cap is the smallest a spec allows,
      // and the gateway holds no output for embeddings calls.
      ModelSpec.Builder b = ModelSpec.builder(name).contextWindow(contextWindow)
          .maxOutputTokens(1).capabilities(ModelSpec.EMBEDDINGS);
      if (price != null) {
        b.price(price);
      }
      return b;
    }
    if (!CHAT.equals(mode)) {
      throw new IllegalStateException("model " + name + " is a " + mode + " model, not chat"
          + " or embedding");
    }
    if (contextWindow <= 0 || maxOutputTokens <= 0) {
      throw new IllegalStateException("model " + name + ": the table gives no context window"
          + " or output cap; set them on the spec");
    }
    ModelSpec.Builder b = ModelSpec.builder(name).contextWindow(contextWindow)
        .maxOutputTokens(Math.min(maxOutputTokens, contextWindow)).capabilities(capabilities);
    if (price != null) {
      b.price(price);
    }
    return b;
  }
}
