package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * Options of a streamed request.
 *
 * @param includeUsage whether the final chunk carries usage
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record StreamOptions(
    @JsonProperty("include_usage") Boolean includeUsage,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param includeUsage whether the final chunk carries usage
   * @param extra every other field, kept verbatim
   */
  public StreamOptions {
    extra = Json.extras(extra);
  }
}
