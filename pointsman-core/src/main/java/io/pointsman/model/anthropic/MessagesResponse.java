package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import java.util.List;

/**
 * A Messages API response ({@code "type": "message"}).
 *
 * @param id the message id
 * @param type {@code "message"}
 * @param role {@code "assistant"}
 * @param model the model that answered
 * @param content the content blocks: text and tool use
 * @param stopReason {@code end_turn}, {@code max_tokens}, {@code stop_sequence},
 *     {@code tool_use} or {@code refusal}, or {@code null}
 * @param stopSequence the stop sequence that matched, or {@code null}
 * @param usage the token usage
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record MessagesResponse(
    @JsonProperty("id") String id,
    @JsonProperty("type") String type,
    @JsonProperty("role") String role,
    @JsonProperty("model") String model,
    @JsonProperty("content") @JsonDeserialize(using = ContentBlock.ListReader.class)
        List<ContentBlock> content,
    @JsonProperty("stop_reason") String stopReason,
    @JsonProperty("stop_sequence") String stopSequence,
    @JsonProperty("usage") MessagesUsage usage) {

  /**
   * Copies the content.
   *
   * @param id the message id
   * @param type {@code "message"}
   * @param role {@code "assistant"}
   * @param model the model that answered
   * @param content the content blocks
   * @param stopReason the stop reason, or {@code null}
   * @param stopSequence the stop sequence that matched, or {@code null}
   * @param usage the token usage
   */
  public MessagesResponse {
    content = content == null ? List.of() : List.copyOf(content);
  }
}
