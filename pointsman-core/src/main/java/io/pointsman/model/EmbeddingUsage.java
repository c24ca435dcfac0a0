package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The usage of an embeddings response, as in the OpenAI API: embeddings read input only.
 * Immutable.
 *
 * @param promptTokens the input tokens
 * @param totalTokens the total tokens (equal to the input tokens)
 * @param extra every other field, kept verbatim
 */
public record EmbeddingUsage(
    @JsonProperty("prompt_tokens") long promptTokens,
    @JsonProperty("total_tokens") long totalTokens,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map (counts are checked where usage is priced, not here, so that a
   * provider's impossible report reaches the gateway's validation boundary).
   *
   * @param promptTokens the input tokens
   * @param totalTokens the total tokens
   * @param extra every other field, kept verbatim
   */
  public EmbeddingUsage {
    extra = Json.extras(extra);
  }

  /**
   * Usage of this many input tokens.
   *
   * @param promptTokens the input tokens
   * @return the usage
   */
  public static EmbeddingUsage of(long promptTokens) {
    return new EmbeddingUsage(promptTokens, promptTokens, null);
  }
}
