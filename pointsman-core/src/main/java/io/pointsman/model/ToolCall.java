package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A tool call made by the model in an assistant message.
 *
 * @param id the call id, echoed by the tool message that answers it
 * @param type the tool type, {@code "function"}
 * @param function the function and its arguments
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolCall(
    @JsonProperty("id") String id,
    @JsonProperty("type") String type,
    @JsonProperty("function") FunctionCall function,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param id the call id, echoed by the tool message that answers it
   * @param type the tool type, {@code "function"}
   * @param function the function and its arguments
   * @param extra every other field, kept verbatim
   */
  public ToolCall {
    extra = Json.extras(extra);
  }
}
