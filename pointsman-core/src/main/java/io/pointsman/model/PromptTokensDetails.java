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
 * <p>{@code cache_creation_tokens} is the count of prompt tokens written to the provider's
 * prompt cache (Anthropic's {@code cache_creation_input_tokens}), as LiteLLM names it; it is
 * part of the prompt tokens, like the cached tokens, and absent when the provider reports none.
 *
 * @param cachedTokens prompt tokens served from the provider's prompt cache, or {@code null}
 * @param cacheCreationTokens prompt tokens written to the provider's prompt cache, or
 *     {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record PromptTokensDetails(
    @JsonProperty("cached_tokens") Long cachedTokens,
    @JsonProperty("cache_creation_tokens") Long cacheCreationTokens,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param cachedTokens prompt tokens served from the provider's prompt cache, or {@code null}
   * @param cacheCreationTokens prompt tokens written to the provider's prompt cache, or
   *     {@code null}
   * @param extra every other field, kept verbatim
   */
  public PromptTokensDetails {
    extra = Json.extras(extra);
  }

  /**
   * Creates a breakdown without a cache-creation count (the form before it was named).
   *
   * @param cachedTokens prompt tokens served from the provider's prompt cache, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public PromptTokensDetails(Long cachedTokens, Map<String, JsonNode> extra) {
    this(cachedTokens, null, extra);
  }
}
