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
 * A Messages API request ({@code POST /v1/messages}), as Anthropic documents it. Read one with
 * {@link AnthropicMessages#readRequest(byte[])}; translate it with {@link
 * AnthropicMessages#toChatRequest(MessagesRequest)}.
 *
 * @param model the model name or alias
 * @param maxTokens the output token cap (required by the API), or {@code null} when absent
 * @param messages the conversation, alternating user and assistant turns
 * @param system the system prompt as text blocks (a string on the wire becomes one text block),
 *     or {@code null}
 * @param metadata the request metadata ({@code user_id}), or {@code null}
 * @param stopSequences custom stop sequences, or {@code null}
 * @param stream whether the response is streamed, or {@code null}
 * @param temperature sampling temperature, or {@code null}
 * @param topP nucleus sampling mass, or {@code null}
 * @param topK top-k sampling, or {@code null}
 * @param tools the tools the model may call, or {@code null}
 * @param toolChoice how the model picks a tool, or {@code null}
 * @param thinking the extended-thinking configuration, kept verbatim, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record MessagesRequest(
    @JsonProperty("model") String model,
    @JsonProperty("max_tokens") Integer maxTokens,
    @JsonProperty("messages") List<InputMessage> messages,
    @JsonProperty("system") @JsonDeserialize(using = ContentBlock.ListReader.class)
        List<ContentBlock> system,
    @JsonProperty("metadata") Metadata metadata,
    @JsonProperty("stop_sequences") List<String> stopSequences,
    @JsonProperty("stream") Boolean stream,
    @JsonProperty("temperature") Double temperature,
    @JsonProperty("top_p") Double topP,
    @JsonProperty("top_k") Integer topK,
    @JsonProperty("tools") List<ToolDefinition> tools,
    @JsonProperty("tool_choice") ToolChoice toolChoice,
    @JsonProperty("thinking") JsonNode thinking,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy (lists may hold nulls, which the translation
   * refuses).
   *
   * @param model the model name or alias
   * @param maxTokens the output token cap (required by the API), or {@code null} when absent
   * @param messages the conversation, alternating user and assistant turns
   * @param system the system prompt as text blocks, or {@code null}
   * @param metadata the request metadata ({@code user_id}), or {@code null}
   * @param stopSequences custom stop sequences, or {@code null}
   * @param stream whether the response is streamed, or {@code null}
   * @param temperature sampling temperature, or {@code null}
   * @param topP nucleus sampling mass, or {@code null}
   * @param topK top-k sampling, or {@code null}
   * @param tools the tools the model may call, or {@code null}
   * @param toolChoice how the model picks a tool, or {@code null}
   * @param thinking the extended-thinking configuration, kept verbatim, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public MessagesRequest {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }

  /**
   * Returns whether the request asks for a streamed response.
   *
   * @return true when {@code stream} is true
   */
  public boolean isStream() {
    return Boolean.TRUE.equals(stream);
  }

  /**
   * The request's {@code metadata}.
   *
   * @param userId an opaque end-user identifier, or {@code null}
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Metadata(
      @JsonProperty("user_id") String userId,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param userId an opaque end-user identifier, or {@code null}
     * @param extra every other field, kept verbatim
     */
    public Metadata {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }
  }
}
