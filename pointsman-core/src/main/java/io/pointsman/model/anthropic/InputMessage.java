package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.List;
import java.util.Map;

/**
 * One turn of a Messages API conversation.
 *
 * @param role {@code "user"} or {@code "assistant"}
 * @param content the content blocks (a string on the wire becomes one text block)
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record InputMessage(
    @JsonProperty("role") String role,
    @JsonProperty("content") @JsonDeserialize(using = ContentBlock.ListReader.class)
        List<ContentBlock> content,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param role {@code "user"} or {@code "assistant"}
   * @param content the content blocks
   * @param extra every other field, kept verbatim
   */
  public InputMessage {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }
}
