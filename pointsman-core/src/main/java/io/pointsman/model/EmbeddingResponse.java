package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * An embeddings response, as in the OpenAI API. Immutable; read one with
 * {@code Json.read(bytes, EmbeddingResponse.class)}.
 *
 * @param object {@code "list"}
 * @param data one item per input, in input order
 * @param model the model that answered
 * @param usage the input tokens read, or {@code null} when the provider reported none
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record EmbeddingResponse(
    @JsonProperty("object") String object,
    @JsonProperty("data") List<Embedding> data,
    @JsonProperty("model") String model,
    @JsonProperty("usage") EmbeddingUsage usage,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the data list and the extra map.
   *
   * @param object {@code "list"}
   * @param data one item per input, in input order
   * @param model the model that answered
   * @param usage the input tokens read, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public EmbeddingResponse {
    data = data == null ? List.of() : Json.listAllowingNulls(data);
    extra = Json.extras(extra);
  }

  /**
   * A response of these items.
   *
   * @param model the model that answered
   * @param data the items
   * @param usage the usage, or {@code null}
   * @return the response
   */
  public static EmbeddingResponse of(String model, List<Embedding> data, EmbeddingUsage usage) {
    return new EmbeddingResponse("list", data, model, usage, null);
  }

  /**
   * Returns a copy naming another model.
   *
   * @param newModel the model name
   * @return the copy
   */
  public EmbeddingResponse withModel(String newModel) {
    return new EmbeddingResponse(object, data, newModel, usage, extra);
  }

  /**
   * Returns a copy with another usage.
   *
   * @param newUsage the usage, or {@code null}
   * @return the copy
   */
  public EmbeddingResponse withUsage(EmbeddingUsage newUsage) {
    return new EmbeddingResponse(object, data, model, newUsage, extra);
  }
}
