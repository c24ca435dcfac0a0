package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The usage of a Messages API response: input tokens (not read from or written to the prompt
 * cache), output tokens, and the cache's writes and reads.
 *
 * @param inputTokens input tokens outside the prompt cache
 * @param outputTokens output tokens
 * @param cacheCreationInputTokens input tokens written to the prompt cache
 * @param cacheReadInputTokens input tokens read from the prompt cache
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record MessagesUsage(
    @JsonProperty("input_tokens") long inputTokens,
    @JsonProperty("output_tokens") long outputTokens,
    @JsonProperty("cache_creation_input_tokens") long cacheCreationInputTokens,
    @JsonProperty("cache_read_input_tokens") long cacheReadInputTokens) {

  /**
   * Validates the counts.
   *
   * @param inputTokens input tokens outside the prompt cache
   * @param outputTokens output tokens
   * @param cacheCreationInputTokens input tokens written to the prompt cache
   * @param cacheReadInputTokens input tokens read from the prompt cache
   * @throws IllegalArgumentException if a count is negative
   */
  public MessagesUsage {
    if (inputTokens < 0 || outputTokens < 0 || cacheCreationInputTokens < 0
        || cacheReadInputTokens < 0) {
      throw new IllegalArgumentException("token counts must not be negative");
    }
  }
}
