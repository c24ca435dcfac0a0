package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The function a model asked to call.
 *
 * @param name the function name
 * @param arguments the arguments as a JSON-encoded string, exactly as the model produced them
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FunctionCall(
    @JsonProperty("name") String name,
    @JsonProperty("arguments") String arguments,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param name the function name
   * @param arguments the arguments as a JSON-encoded string, exactly as the model produced them
   * @param extra every other field, kept verbatim
   */
  public FunctionCall {
    extra = Json.extras(extra);
  }
}
