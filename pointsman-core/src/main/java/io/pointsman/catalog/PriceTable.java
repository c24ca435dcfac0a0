package io.pointsman.catalog;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A table of model prices, limits and capabilities: read from a file in LiteLLM's
 * {@code model_prices_and_context_window.json} format that the host supplies, or the table
 * bundled with Pointsman ({@link #bundled()}), with per-model overrides. Immutable.
 *
 * <p><b>Conversion.</b> LiteLLM gives prices per token in currency units, as decimal numbers
 * ({@code 2.5e-06}). Each is read as its exact decimal text, never as a binary floating-point
 * value, multiplied by 10<sup>12</sup> (10<sup>6</sup> micro-units per unit, 10<sup>6</sup>
 * tokens per million) and rounded up to a whole micro-unit per million tokens: {@code 2.5e-06}
 * becomes exactly 2,500,000, and a price finer than one micro-unit per million tokens is
 * charged at the next one, never below.
 *
 * <p><b>Fields read</b> per model: {@code input_cost_per_token}, {@code output_cost_per_token},
 * {@code cache_read_input_token_cost} (cached input; default the input price),
 * {@code cache_creation_input_token_cost} and {@code cache_creation_input_token_cost_above_1hr}
 * (cache writes: the dearer of the two, since usage does not say which cache a write went to;
 * default the input price), {@code output_cost_per_reasoning_token} (default the output price),
 * {@code max_input_tokens} (else {@code max_tokens}), {@code max_output_tokens} (else
 * {@code max_tokens}), {@code mode}, {@code litellm_provider}, {@code supports_function_calling},
 * {@code supports_vision}, {@code supports_response_schema}, {@code source}, and the bundled
 * table's {@code as_of}. The {@code sample_spec} entry is skipped.
 *
 * <p><b>What is refused rather than guessed.</b> A model without an input or an output price
 * per token (a chat model priced per character, per second or per image), or with a negative
 * price, gets no price: its cost is unknown, which the gateway never charges as zero. A model
 * with prices that rise above a prompt size ({@code input_cost_per_token_above_200k_tokens}
 * and the like) gets its context window capped at that size, so that no call can reach the
 * tier the base price does not cover; {@link PricedModel#notes()} says so.
 */
public final class PriceTable {
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS);
  private static final BigDecimal MICROS_PER_MILLION_TOKENS = BigDecimal.TEN.pow(12);
  private static final BigDecimal MAX_PRICE = BigDecimal.valueOf(Long.MAX_VALUE);
  private static final Pattern TIER = Pattern.compile("_above_(\\d+)k_tokens$");
  private static final String BUNDLED = "prices.json";

  private final String version;
  private final Map<String, PricedModel> models;

  private PriceTable(String version, Map<String, PricedModel> models) {
    this.version = version;
    this.models = Collections.unmodifiableMap(models);
  }

  /**
   * Reads a table in LiteLLM's price file format.
   *
   * @param in the JSON file; read to its end, not closed
   * @param version the version every price of the table carries (for example the file's date
   *     or commit), recorded on every ledger row charged at one of its prices
   * @return the table
   * @throws IOException if the stream cannot be read
   * @throws IllegalArgumentException if the text is not a JSON object of objects, or the
   *     version is blank or too long
   */
  public static PriceTable readLiteLlm(InputStream in, String version) throws IOException {
    Objects.requireNonNull(in, "in");
    Objects.requireNonNull(version, "version");
    if (version.isBlank() || version.length() > Price.MAX_VERSION_LENGTH) {
      throw new IllegalArgumentException("a table version must be 1 to "
          + Price.MAX_VERSION_LENGTH + " characters and not blank");
    }
    JsonNode root;
    try {
      root = MAPPER.readTree(in);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IllegalArgumentException("not a JSON price file: " + e.getOriginalMessage(), e);
    }
    return fromTree(root, version);
  }

  private static PriceTable fromTree(JsonNode root, String version) {
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("a price file is a JSON object of models");
    }
    Map<String, PricedModel> models = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> e : root.properties()) {
      if ("sample_spec".equals(e.getKey())) {
        continue;
      }
      if (!e.getValue().isObject()) {
        throw new IllegalArgumentException("model " + e.getKey() + " is not a JSON object");
      }
      models.put(e.getKey(), row(e.getKey(), e.getValue(), version));
    }
    return new PriceTable(version, models);
  }

  /**
   * Returns the table bundled with Pointsman: current OpenAI and Anthropic chat and embedding
   * models, each with the source and date of its price. Its version is
   * {@code pointsman-bundled-} and the date the table was last revised. Prices change: check
   * {@link PricedModel#asOf()} against the vendor's page, and override what has moved.
   *
   * @return the bundled table
   */
  public static PriceTable bundled() {
    try (InputStream in = PriceTable.class.getResourceAsStream(BUNDLED)) {
      if (in == null) {
        throw new IllegalStateException("the bundled price table is missing: " + BUNDLED);
      }
      JsonNode root = MAPPER.readTree(in);
      String version = root.path("sample_spec").path("pointsman_table_version").asText(null);
      if (version == null) {
        throw new IllegalStateException("the bundled price table has no version");
      }
      return fromTree(root, version);
    } catch (IOException e) {
      throw new UncheckedIOException("the bundled price table cannot be read", e);
    }
  }

  /**
   * Converts a price per token, as decimal text in currency units, to micro-units per million
   * tokens, rounding up.
   *
   * @param perToken the price per token, for example {@code new BigDecimal("2.5e-06")}
   * @return micro-units per million tokens
   * @throws IllegalArgumentException if the price is negative or too large for a long
   */
  public static long microsPerMillion(BigDecimal perToken) {
    Objects.requireNonNull(perToken, "perToken");
    if (perToken.signum() < 0) {
      throw new IllegalArgumentException("a price must not be negative: " + perToken);
    }
    BigDecimal scaled = perToken.multiply(MICROS_PER_MILLION_TOKENS)
        .setScale(0, RoundingMode.CEILING);
    if (scaled.compareTo(MAX_PRICE) > 0) {
      throw new IllegalArgumentException("a price is too large: " + perToken);
    }
    return scaled.longValueExact();
  }

  /**
   * Returns the table's version.
   *
   * @return the version
   */
  public String version() {
    return version;
  }

  /**
   * Returns a model's row.
   *
   * @param name the model's name as the table spells it
   * @return the row, or empty
   */
  public Optional<PricedModel> model(String name) {
    return Optional.ofNullable(models.get(name));
  }

  /**
   * Returns every row, in the file's order.
   *
   * @return the rows
   */
  public Collection<PricedModel> models() {
    return models.values();
  }

  /**
   * Returns a chat or embedding model's spec builder from its row (see
   * {@link PricedModel#toSpec()}).
   *
   * @param name the model's name
   * @return a builder holding the spec
   * @throws IllegalArgumentException if the table has no such model
   * @throws IllegalStateException if the row is neither a chat nor an embedding model, or
   *     lacks a limit
   */
  public ModelSpec.Builder spec(String name) {
    PricedModel m = models.get(name);
    if (m == null) {
      throw new IllegalArgumentException("the price table " + version + " has no model " + name);
    }
    return m.toSpec();
  }

  /**
   * Returns this table with one model's price replaced, for a price the host negotiated or
   * corrected. The override keeps its own version, so ledger rows tell it apart.
   *
   * @param name the model's name
   * @param price the price
   * @return the new table
   * @throws IllegalArgumentException if the table has no such model
   */
  public PriceTable withOverride(String name, Price price) {
    Objects.requireNonNull(price, "price");
    PricedModel m = models.get(name);
    if (m == null) {
      throw new IllegalArgumentException("the price table " + version + " has no model " + name);
    }
    Map<String, PricedModel> copy = new LinkedHashMap<>(models);
    copy.put(name, m.withPrice(price));
    return new PriceTable(version, copy);
  }

  private static PricedModel row(String name, JsonNode n, String version) {
    List<String> notes = new ArrayList<>();
    String mode = n.path("mode").asText(PricedModel.CHAT);
    if ("completion".equals(mode)) {
      mode = PricedModel.CHAT;
    }
    long window = limit(n, "max_input_tokens", "max_tokens");
    long output = limit(n, "max_output_tokens", "max_tokens");
    Price price = price(name, n, mode, notes);
    long tier = lowestTier(n);
    if (tier > 0 && (window == 0 || window > tier)) {
      notes.add("prices rise above " + tier + " prompt tokens; the context window is capped at "
          + tier + " so that the base price covers every call");
      window = tier;
    }
    if (price != null) {
      price = price.withVersion(version);
    }
    Set<String> caps = new LinkedHashSet<>();
    if (PricedModel.CHAT.equals(mode)) {
      caps.add(ModelSpec.STREAMING);
    }
    if (n.path("supports_function_calling").asBoolean(false)) {
      caps.add(ModelSpec.TOOLS);
    }
    if (n.path("supports_vision").asBoolean(false)) {
      caps.add(ModelSpec.VISION);
    }
    if (n.path("supports_response_schema").asBoolean(false)) {
      caps.add(ModelSpec.JSON_SCHEMA);
    }
    return new PricedModel(name, text(n, "litellm_provider"), mode, price, window, output, caps,
        text(n, "source"), text(n, "as_of"), String.join("; ", notes));
  }

  private static Price price(String name, JsonNode n, String mode, List<String> notes) {
    try {
      Long input = perMillion(n, "input_cost_per_token");
      Long output = perMillion(n, "output_cost_per_token");
      if (output == null && PricedModel.EMBEDDING.equals(mode)) {
        output = 0L;
      }
      if (input == null || output == null) {
        notes.add("no input or output price per token: cost unknown");
        return null;
      }
      Long cached = perMillion(n, "cache_read_input_token_cost");
      Long write = perMillion(n, "cache_creation_input_token_cost");
      Long writeHour = perMillion(n, "cache_creation_input_token_cost_above_1hr");
      if (writeHour != null) {
        write = write == null ? writeHour : Math.max(write, writeHour);
        notes.add("cache writes at the one-hour cache's price, the dearer one");
      }
      Long reasoning = perMillion(n, "output_cost_per_reasoning_token");
      return new Price(input, output, cached == null ? input : cached,
          write == null ? input : write, reasoning == null ? output : reasoning, null);
    } catch (IllegalArgumentException e) {
      notes.add("an unusable price (" + e.getMessage() + "): cost unknown");
      return null;
    }
  }

  private static Long perMillion(JsonNode n, String field) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isNumber()) {
      throw new IllegalArgumentException(field + " is not a number");
    }
    return microsPerMillion(v.decimalValue());
  }

  private static long limit(JsonNode n, String field, String fallback) {
    JsonNode v = n.hasNonNull(field) ? n.get(field) : n.get(fallback);
    if (v == null || !v.isIntegralNumber() || !v.canConvertToLong() || v.asLong() <= 0) {
      return 0;
    }
    return v.asLong();
  }

  /** The lowest prompt size above which the row names a dearer price, or 0. */
  private static long lowestTier(JsonNode n) {
    long lowest = 0;
    for (Map.Entry<String, JsonNode> field : n.properties()) {
      Matcher m = TIER.matcher(field.getKey());
      if (m.find()) {
        long tokens = Long.parseLong(m.group(1)) * 1_000;
        lowest = lowest == 0 ? tokens : Math.min(lowest, tokens);
      }
    }
    return lowest;
  }

  private static String text(JsonNode n, String field) {
    JsonNode v = n.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
