package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One item of an embeddings response: the vector of the input at {@code index}. Immutable.
 *
 * @param object {@code "embedding"}
 * @param index the position of the input it embeds
 * @param embedding the vector, as floats or base64
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Embedding(
    @JsonProperty("object") String object,
    @JsonProperty("index") int index,
    @JsonProperty("embedding") EmbeddingVector embedding,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map.
   *
   * @param object {@code "embedding"}
   * @param index the position of the input it embeds
   * @param embedding the vector, as floats or base64
   * @param extra every other field, kept verbatim
   */
  public Embedding {
    extra = Json.extras(extra);
  }

  /**
   * An embedding item.
   *
   * @param index the position of the input
   * @param vector the vector
   * @return the item
   */
  public static Embedding of(int index, EmbeddingVector vector) {
    return new Embedding("embedding", index, vector, null);
  }
}
