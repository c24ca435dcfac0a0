package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The increment a stream chunk carries for one choice.
 *
 * @param role the role, on the first chunk only, or {@code null}
 * @param content the text increment, or {@code null}
 * @param toolCalls partial tool calls, kept verbatim, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChunkDelta(
    @JsonProperty("role") Role role,
    @JsonProperty("content") String content,
    @JsonProperty("tool_calls") JsonNode toolCalls,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param role the role, on the first chunk only, or {@code null}
   * @param content the text increment, or {@code null}
   * @param toolCalls partial tool calls, kept verbatim, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ChunkDelta {
    extra = Json.extras(extra);
  }
}
