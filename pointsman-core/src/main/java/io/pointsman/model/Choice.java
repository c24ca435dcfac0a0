package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One choice of a completion.
 *
 * @param index the choice index
 * @param message the generated message
 * @param finishReason why generation stopped ({@code stop}, {@code length}, {@code tool_calls}…)
 * @param logprobs log probabilities, kept verbatim, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Choice(
    @JsonProperty("index") int index,
    @JsonProperty("message") Message message,
    @JsonProperty("finish_reason") @JsonInclude(JsonInclude.Include.ALWAYS) String finishReason,
    @JsonProperty("logprobs") JsonNode logprobs,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param index the choice index
   * @param message the generated message
   * @param finishReason why generation stopped ({@code stop}, {@code length}, {@code tool_calls}…)
   * @param logprobs log probabilities, kept verbatim, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public Choice {
    extra = Json.extras(extra);
  }
}
