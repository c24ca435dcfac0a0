package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One choice's increment in a stream chunk.
 *
 * @param index the choice index
 * @param delta the increment
 * @param finishReason set on the last chunk of the choice, else {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChunkChoice(
    @JsonProperty("index") int index,
    @JsonProperty("delta") ChunkDelta delta,
    @JsonProperty("finish_reason") @JsonInclude(JsonInclude.Include.ALWAYS) String finishReason,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param index the choice index
   * @param delta the increment
   * @param finishReason set on the last chunk of the choice, else {@code null}
   * @param extra every other field, kept verbatim
   */
  public ChunkChoice {
    extra = Json.extras(extra);
  }
}
