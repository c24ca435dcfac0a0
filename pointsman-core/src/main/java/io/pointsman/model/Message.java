package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * One chat message.
 *
 * @param role who wrote it
 * @param content its content, or {@code null} (an assistant message that only calls tools)
 * @param name an optional participant name
 * @param toolCalls the tool calls of an assistant message, or {@code null}
 * @param toolCallId the id of the call a tool message answers, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Message(
    @JsonProperty("role") Role role,
    @JsonProperty("content") @JsonInclude(JsonInclude.Include.ALWAYS) Content content,
    @JsonProperty("name") String name,
    @JsonProperty("tool_calls") List<ToolCall> toolCalls,
    @JsonProperty("tool_call_id") String toolCallId,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes lists and the extra map to immutable copies.
   *
   * @param role who wrote it
   * @param content its content, or {@code null} (an assistant message that only calls tools)
   * @param name an optional participant name
   * @param toolCalls the tool calls of an assistant message, or {@code null}
   * @param toolCallId the id of the call a tool message answers, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public Message {
    toolCalls = toolCalls == null ? null : List.copyOf(toolCalls);
    extra = Json.extras(extra);
  }

  /**
   * Returns a system message.
   *
   * @param text the instructions
   * @return the message
   */
  public static Message system(String text) {
    return new Message(Role.SYSTEM, Content.text(text), null, null, null, null);
  }

  /**
   * Returns a user message.
   *
   * @param text the text
   * @return the message
   */
  public static Message user(String text) {
    return new Message(Role.USER, Content.text(text), null, null, null, null);
  }

  /**
   * Returns an assistant message.
   *
   * @param text the text
   * @return the message
   */
  public static Message assistant(String text) {
    return new Message(Role.ASSISTANT, Content.text(text), null, null, null, null);
  }

  /**
   * Returns the message's text, or an empty string when it has none.
   *
   * @return the text
   */
  public String text() {
    return content == null ? "" : content.asText();
  }

  /**
   * Returns a copy with other content.
   *
   * @param newContent the content
   * @return the copy
   */
  public Message withContent(Content newContent) {
    return new Message(role, newContent, name, toolCalls, toolCallId, extra);
  }
}
