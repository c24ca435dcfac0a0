package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * Breakdown of prompt tokens.
 *
 * @param cachedTokens prompt tokens served from the provider's prompt cache, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PromptTokensDetails(
    @JsonProperty("cached_tokens") Long cachedTokens,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param cachedTokens prompt tokens served from the provider's prompt cache, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public PromptTokensDetails {
    extra = Json.extras(extra);
  }
}
