package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.TextNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * An embeddings request, as in the OpenAI API ({@code POST /v1/embeddings}). Immutable; build
 * one with {@link #builder()} or read one with {@code Json.read(bytes, EmbeddingRequest.class)}.
 *
 * <p>{@code input} is kept as the caller wrote it: a string, an array of strings, an array of
 * token ids, or an array of arrays of token ids. {@link #inputs()} reads it and refuses, with a
 * 400 at stage {@code request}, what OpenAI refuses: an empty string or array, more than
 * {@value #MAX_INPUTS} inputs, an empty token array, a token id that is not a non-negative
 * 32-bit integer, and arrays that mix strings, numbers and arrays.
 *
 * <pre>{@code
 * EmbeddingRequest request = EmbeddingRequest.builder()
 *     .model("text-embedding-3-small")
 *     .input("first text", "second text")
 *     .build();
 * }</pre>
 *
 * @param model the model name or alias
 * @param input the input: a string, an array of strings, an array of token ids, or an array of
 *     arrays of token ids
 * @param encodingFormat {@code "float"} or {@code "base64"}, or {@code null} for float
 * @param dimensions the number of dimensions of each vector, or {@code null} for the model's
 * @param user an end-user identifier, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EmbeddingRequest(
    @JsonProperty("model") String model,
    @JsonProperty("input") JsonNode input,
    @JsonProperty("encoding_format") String encodingFormat,
    @JsonProperty("dimensions") Integer dimensions,
    @JsonProperty("user") String user,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /** The most inputs one request may carry (OpenAI's limit). */
  public static final int MAX_INPUTS = 2048;
  /** The encoding format of float arrays. */
  public static final String FLOAT = "float";
  /** The encoding format of base64 strings of little-endian 32-bit floats. */
  public static final String BASE64 = "base64";

  /**
   * Normalizes the extra map.
   *
   * @param model the model name or alias
   * @param input the input
   * @param encodingFormat {@code "float"} or {@code "base64"}, or {@code null}
   * @param dimensions the number of dimensions, or {@code null}
   * @param user an end-user identifier, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public EmbeddingRequest {
    extra = Json.extras(extra);
  }

  /**
   * Checks the request as a gateway receives it and returns its inputs.
   *
   * @return the inputs, in order
   * @throws PointsmanException 400 at stage {@code request} naming what is wrong
   */
  public List<EmbeddingInput> validate() {
    if (model == null || model.isBlank()) {
      throw bad("model is required");
    }
    if (model.length() > 256) {
      throw bad("model name is longer than 256 characters");
    }
    if (encodingFormat != null && !FLOAT.equals(encodingFormat)
        && !BASE64.equals(encodingFormat)) {
      throw bad("encoding_format must be 'float' or 'base64'");
    }
    if (dimensions != null && dimensions < 1) {
      throw bad("dimensions must be at least 1");
    }
    return inputs();
  }

  /**
   * Reads the inputs.
   *
   * @return the inputs, in order
   * @throws PointsmanException 400 at stage {@code request} when {@code input} is missing,
   *     empty, too long, mixed, or holds a token id that is not a non-negative 32-bit integer
   */
  public List<EmbeddingInput> inputs() {
    if (input == null || input.isNull()) {
      throw bad("input is required");
    }
    if (input.isTextual()) {
      return List.of(text(input.textValue(), "input"));
    }
    if (!input.isArray()) {
      throw bad("input must be a string, an array of strings, an array of token ids or an"
          + " array of token-id arrays");
    }
    int size = input.size();
    if (size == 0) {
      throw bad("input must not be an empty array");
    }
    JsonNode first = input.get(0);
    if (first.isNumber()) {
      // One tokenized input.
      return List.of(EmbeddingInput.ofTokens(tokens(input, "input")));
    }
    if (size > MAX_INPUTS) {
      throw bad("input holds " + size + " items; at most " + MAX_INPUTS + " are allowed");
    }
    List<EmbeddingInput> out = new ArrayList<>(size);
    boolean texts = first.isTextual();
    if (!texts && !first.isArray()) {
      throw bad("input[0] must be a string, a token id or an array of token ids");
    }
    for (int i = 0; i < size; i++) {
      JsonNode item = input.get(i);
      String path = "input[" + i + "]";
      if (texts) {
        if (!item.isTextual()) {
          throw bad(path + " must be a string like input[0]");
        }
        out.add(text(item.textValue(), path));
      } else {
        if (!item.isArray()) {
          throw bad(path + " must be an array of token ids like input[0]");
        }
        out.add(EmbeddingInput.ofTokens(tokens(item, path)));
      }
    }
    return List.copyOf(out);
  }

  private static EmbeddingInput text(String text, String path) {
    if (text.isEmpty()) {
      throw bad(path + " must not be an empty string");
    }
    return EmbeddingInput.ofText(text);
  }

  private static List<Integer> tokens(JsonNode array, String path) {
    if (array.isEmpty()) {
      throw bad(path + " must not be an empty array of token ids");
    }
    List<Integer> out = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode t = array.get(i);
      if (!t.isIntegralNumber() || !t.canConvertToInt() || t.intValue() < 0) {
        throw bad(path + "[" + i + "] must be a token id: a non-negative 32-bit integer");
      }
      out.add(t.intValue());
    }
    return out;
  }

  private static PointsmanException bad(String message) {
    return PointsmanException.badRequest(Stages.REQUEST, message);
  }

  /**
   * Returns the encoding format the response will use: {@code encoding_format}, or float.
   *
   * @return {@link #FLOAT} or {@link #BASE64}
   */
  public String effectiveEncodingFormat() {
    return encodingFormat == null ? FLOAT : encodingFormat;
  }

  /**
   * Returns a copy with another model name.
   *
   * @param newModel the model name
   * @return the copy
   */
  public EmbeddingRequest withModel(String newModel) {
    return new EmbeddingRequest(newModel, input, encodingFormat, dimensions, user, extra);
  }

  /**
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A mutable builder of {@link EmbeddingRequest}; not thread-safe. */
  public static final class Builder {
    private String model;
    private JsonNode input;
    private String encodingFormat;
    private Integer dimensions;
    private String user;
    private final Map<String, JsonNode> extra = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets the model name or alias.
     *
     * @param value the model
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder model(String value) {
      this.model = Objects.requireNonNull(value, "model");
      return this;
    }

    /**
     * Sets the input to one string (one text), or to an array of strings (several).
     *
     * @param texts one or more texts
     * @return this builder
     * @throws NullPointerException if texts or a text is null
     */
    public Builder input(String... texts) {
      Objects.requireNonNull(texts, "texts");
      if (texts.length == 1) {
        this.input = TextNode.valueOf(Objects.requireNonNull(texts[0], "text"));
        return this;
      }
      ArrayNode a = JsonNodeFactory.instance.arrayNode(texts.length);
      for (String t : texts) {
        a.add(Objects.requireNonNull(t, "text"));
      }
      this.input = a;
      return this;
    }

    /**
     * Sets the input to an array of strings, even of one.
     *
     * @param texts the texts
     * @return this builder
     * @throws NullPointerException if texts or a text is null
     */
    public Builder inputs(List<String> texts) {
      ArrayNode a = JsonNodeFactory.instance.arrayNode(texts.size());
      for (String t : texts) {
        a.add(Objects.requireNonNull(t, "text"));
      }
      this.input = a;
      return this;
    }

    /**
     * Sets the input to one or more arrays of token ids: one array is sent as an array of
     * token ids, several as an array of arrays.
     *
     * @param arrays the token ids of each input
     * @return this builder
     * @throws NullPointerException if arrays or an array is null
     */
    public Builder tokens(int[]... arrays) {
      Objects.requireNonNull(arrays, "arrays");
      if (arrays.length == 1) {
        this.input = tokenArray(arrays[0]);
        return this;
      }
      ArrayNode a = JsonNodeFactory.instance.arrayNode(arrays.length);
      for (int[] t : arrays) {
        a.add(tokenArray(t));
      }
      this.input = a;
      return this;
    }

    private static ArrayNode tokenArray(int[] tokens) {
      Objects.requireNonNull(tokens, "tokens");
      ArrayNode a = JsonNodeFactory.instance.arrayNode(tokens.length);
      for (int t : tokens) {
        a.add(t);
      }
      return a;
    }

    /**
     * Sets the input as raw JSON, as the caller wrote it.
     *
     * @param value the input node
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder input(JsonNode value) {
      this.input = Objects.requireNonNull(value, "input");
      return this;
    }

    /**
     * Sets the encoding format.
     *
     * @param value {@code "float"} or {@code "base64"}
     * @return this builder
     */
    public Builder encodingFormat(String value) {
      this.encodingFormat = value;
      return this;
    }

    /**
     * Sets the number of dimensions.
     *
     * @param value the dimensions
     * @return this builder
     */
    public Builder dimensions(int value) {
      this.dimensions = value;
      return this;
    }

    /**
     * Sets the end-user identifier.
     *
     * @param value the identifier
     * @return this builder
     */
    public Builder user(String value) {
      this.user = value;
      return this;
    }

    /**
     * Sets a field the model does not name.
     *
     * @param name the JSON field name
     * @param value its value
     * @return this builder
     * @throws NullPointerException if an argument is null
     */
    public Builder extra(String name, JsonNode value) {
      extra.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Builds the request. Its content is validated when a gateway receives it.
     *
     * @return the request
     */
    public EmbeddingRequest build() {
      return new EmbeddingRequest(model, input, encodingFormat, dimensions, user, extra);
    }
  }
}
