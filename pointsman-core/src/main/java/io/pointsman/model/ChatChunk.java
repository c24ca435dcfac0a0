package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * One chunk of a streamed completion ({@code chat.completion.chunk}).
 *
 * @param id the completion id
 * @param object {@code "chat.completion.chunk"}
 * @param created creation time in epoch seconds
 * @param model the model that answered
 * @param choices the increments
 * @param usage usage, on the final chunk when the request asked for it, else {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChatChunk(
    @JsonProperty("id") String id,
    @JsonProperty("object") String object,
    @JsonProperty("created") long created,
    @JsonProperty("model") String model,
    @JsonProperty("choices") List<ChunkChoice> choices,
    @JsonProperty("usage") Usage usage,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes lists and the extra map to immutable copies.
   *
   * @param id the completion id
   * @param object {@code "chat.completion.chunk"}
   * @param created creation time in epoch seconds
   * @param model the model that answered
   * @param choices the increments
   * @param usage usage, on the final chunk when the request asked for it, else {@code null}
   * @param extra every other field, kept verbatim
   */
  public ChatChunk {
    choices = choices == null ? List.of() : List.copyOf(choices);
    extra = Json.extras(extra);
  }

  /**
   * Returns the text increment of the first choice.
   *
   * @return the text, empty when there is none
   */
  public String text() {
    if (choices.isEmpty() || choices.get(0).delta() == null
        || choices.get(0).delta().content() == null) {
      return "";
    }
    return choices.get(0).delta().content();
  }
}
