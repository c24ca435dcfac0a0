package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A tool the model may call.
 *
 * @param type the tool type, {@code "function"}
 * @param function the function definition: name, description, JSON Schema parameters, strict
 *     flag, kept as a JSON object
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Tool(
    @JsonProperty("type") String type,
    @JsonProperty("function") JsonNode function,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param type the tool type, {@code "function"}
   * @param function the function definition: name, description, JSON Schema parameters, strict
   *     flag, kept as a JSON object
   * @param extra every other field, kept verbatim
   */
  public Tool {
    extra = Json.extras(extra);
  }
}
