package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * Token usage of a completion.
 *
 * @param promptTokens input tokens
 * @param completionTokens output tokens
 * @param totalTokens input plus output tokens
 * @param promptTokensDetails the prompt breakdown (cached tokens), or {@code null}
 * @param completionTokensDetails the completion breakdown, kept verbatim, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Usage(
    @JsonProperty("prompt_tokens") long promptTokens,
    @JsonProperty("completion_tokens") long completionTokens,
    @JsonProperty("total_tokens") long totalTokens,
    @JsonProperty("prompt_tokens_details") PromptTokensDetails promptTokensDetails,
    @JsonProperty("completion_tokens_details") JsonNode completionTokensDetails,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * The top-level field in which cache-creation tokens were kept before {@link
   * PromptTokensDetails#cacheCreationTokens()} named them; providers still set it, for clients
   * that read it there.
   */
  public static final String LEGACY_CACHE_CREATION = "cache_creation_input_tokens";

  /**
   * Validates counts and normalizes the extra map.
   *
   * @param promptTokens input tokens
   * @param completionTokens output tokens
   * @param totalTokens input plus output tokens
   * @param promptTokensDetails the prompt breakdown (cached tokens), or {@code null}
   * @param completionTokensDetails the completion breakdown, kept verbatim, or {@code null}
   * @param extra every other field, kept verbatim
   * @throws IllegalArgumentException if a count is negative
   */
  public Usage {
    if (promptTokens < 0 || completionTokens < 0 || totalTokens < 0) {
      throw new IllegalArgumentException("token counts must not be negative");
    }
    extra = Json.extras(extra);
  }

  /**
   * Returns usage with the given counts and no cached tokens.
   *
   * @param promptTokens input tokens
   * @param completionTokens output tokens
   * @return the usage
   */
  public static Usage of(long promptTokens, long completionTokens) {
    return new Usage(promptTokens, completionTokens, promptTokens + completionTokens, null, null,
        null);
  }

  /**
   * Returns usage with the given counts, of which {@code cachedTokens} prompt tokens were cached.
   *
   * @param promptTokens input tokens
   * @param completionTokens output tokens
   * @param cachedTokens cached input tokens (part of promptTokens)
   * @return the usage
   */
  public static Usage of(long promptTokens, long completionTokens, long cachedTokens) {
    return new Usage(promptTokens, completionTokens, promptTokens + completionTokens,
        new PromptTokensDetails(cachedTokens, null), null, null);
  }

  /**
   * Returns the cached prompt tokens, zero when the provider reported none.
   *
   * @return cached tokens
   */
  @JsonIgnore
  public long cachedTokens() {
    return promptTokensDetails == null || promptTokensDetails.cachedTokens() == null
        ? 0 : promptTokensDetails.cachedTokens();
  }

  /**
   * Returns the prompt tokens written to the provider's prompt cache (part of the prompt
   * tokens, not of {@link #cachedTokens()}), zero when the provider reported none:
   * {@code prompt_tokens_details.cache_creation_tokens}, else the top-level
   * {@code cache_creation_input_tokens} extra field that usage recorded before the count was
   * named holds; -1 when that field is not a whole number (which the gateway charges as
   * impossible usage). They are priced at the price's cache-write rate.
   *
   * @return cache-creation tokens
   */
  @JsonIgnore
  public long cacheCreationTokens() {
    if (promptTokensDetails != null && promptTokensDetails.cacheCreationTokens() != null) {
      return promptTokensDetails.cacheCreationTokens();
    }
    return count(extra.get(LEGACY_CACHE_CREATION));
  }

  /**
   * Returns the reasoning tokens ({@code completion_tokens_details.reasoning_tokens}), zero
   * when none were reported, or -1 when the field is not a whole number. They are part of
   * {@link #completionTokens()}.
   *
   * @return reasoning tokens
   */
  @JsonIgnore
  public long reasoningTokens() {
    return count(completionTokensDetails == null ? null
        : completionTokensDetails.get("reasoning_tokens"));
  }

  private static long count(JsonNode node) {
    if (node == null || node.isNull()) {
      return 0;
    }
    return node.canConvertToExactIntegral() && node.canConvertToLong() ? node.asLong() : -1;
  }
}
