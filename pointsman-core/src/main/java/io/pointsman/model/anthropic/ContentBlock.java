package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A content block of the Messages API, told apart by its {@code type}: {@link Text},
 * {@link Image}, {@link ToolUse}, {@link ToolResult}, {@link Thinking},
 * {@link RedactedThinking}, or {@link Unknown} for every other type (a {@code document}, a
 * server tool's result, a type added later), kept verbatim so that the translation can name it
 * when it refuses it.
 */
public sealed interface ContentBlock permits ContentBlock.Text, ContentBlock.Image,
    ContentBlock.ToolUse, ContentBlock.ToolResult, ContentBlock.Thinking,
    ContentBlock.RedactedThinking, ContentBlock.Unknown {

  /**
   * Returns the block's type, as on the wire.
   *
   * @return the type, or {@code null} for an element that is not an object
   */
  String type();

  /**
   * Returns a text block.
   *
   * @param text the text
   * @return the block
   */
  static ContentBlock text(String text) {
    return new Text(text, null);
  }

  /**
   * A {@code text} block.
   *
   * @param text the text
   * @param extra every other field ({@code cache_control}, {@code citations}), kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "text"})
  record Text(
      @JsonProperty("text") String text,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param text the text
     * @param extra every other field, kept verbatim
     */
    public Text {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "text";
    }
  }

  /**
   * An {@code image} block.
   *
   * @param source where the image comes from
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "source"})
  record Image(
      @JsonProperty("source") ImageSource source,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param source where the image comes from
     * @param extra every other field, kept verbatim
     */
    public Image {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "image";
    }
  }

  /**
   * A {@code tool_use} block: the model calls a tool.
   *
   * @param id the call's id, which the {@code tool_result} answering it names
   * @param name the tool's name
   * @param input the tool's input, a JSON object
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "id", "name", "input"})
  record ToolUse(
      @JsonProperty("id") String id,
      @JsonProperty("name") String name,
      @JsonProperty("input") JsonNode input,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param id the call's id
     * @param name the tool's name
     * @param input the tool's input, a JSON object
     * @param extra every other field, kept verbatim
     */
    public ToolUse {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "tool_use";
    }
  }

  /**
   * A {@code tool_result} block: the answer to a tool call.
   *
   * @param toolUseId the id of the {@code tool_use} it answers
   * @param content the result as text and image blocks (a string on the wire becomes one text
   *     block), or {@code null}
   * @param isError whether the tool failed, or {@code null}
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "tool_use_id", "content", "is_error"})
  record ToolResult(
      @JsonProperty("tool_use_id") String toolUseId,
      @JsonProperty("content") @JsonDeserialize(using = ListReader.class)
          List<ContentBlock> content,
      @JsonProperty("is_error") Boolean isError,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param toolUseId the id of the {@code tool_use} it answers
     * @param content the result blocks, or {@code null}
     * @param isError whether the tool failed, or {@code null}
     * @param extra every other field, kept verbatim
     */
    public ToolResult {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "tool_result";
    }
  }

  /**
   * A {@code thinking} block of extended thinking.
   *
   * @param thinking the reasoning text
   * @param signature the signature that authenticates it
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "thinking", "signature"})
  record Thinking(
      @JsonProperty("thinking") String thinking,
      @JsonProperty("signature") String signature,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param thinking the reasoning text
     * @param signature the signature that authenticates it
     * @param extra every other field, kept verbatim
     */
    public Thinking {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "thinking";
    }
  }

  /**
   * A {@code redacted_thinking} block.
   *
   * @param data the encrypted reasoning
   * @param extra every other field, kept verbatim
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"type", "data"})
  record RedactedThinking(
      @JsonProperty("data") String data,
      @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) implements ContentBlock {
    /**
     * Normalizes the extra map to an immutable copy.
     *
     * @param data the encrypted reasoning
     * @param extra every other field, kept verbatim
     */
    public RedactedThinking {
      extra = extra == null ? Map.of() : Map.copyOf(extra);
    }

    @Override
    @JsonProperty("type")
    public String type() {
      return "redacted_thinking";
    }
  }

  /**
   * A block of any other type (or an element that is not an object), kept verbatim.
   *
   * @param json the block as sent
   */
  record Unknown(@JsonValue JsonNode json) implements ContentBlock {
    @Override
    @JsonIgnore
    public String type() {
      JsonNode t = json.get("type");
      return t != null && t.isTextual() ? t.asText() : null;
    }
  }

  /**
   * Reads a list of blocks from a JSON array, or one text block from a JSON string (as the API
   * accepts for {@code content}, {@code system} and a tool result's {@code content}).
   */
  final class ListReader extends JsonDeserializer<List<ContentBlock>> {
    /** Creates the reader (Jackson does). */
    public ListReader() {}

    @Override
    public List<ContentBlock> deserialize(JsonParser p, DeserializationContext ctxt)
        throws IOException {
      JsonToken token = p.currentToken();
      if (token == JsonToken.VALUE_STRING) {
        return List.of(text(p.getText()));
      }
      if (token != JsonToken.START_ARRAY) {
        return ctxt.reportInputMismatch(List.class,
            "expected a string or an array of content blocks");
      }
      JsonNode array = ctxt.readTree(p);
      List<ContentBlock> out = new ArrayList<>(array.size());
      for (JsonNode element : array) {
        out.add(block(element, p, ctxt));
      }
      return out;
    }

    private static ContentBlock block(JsonNode element, JsonParser p,
        DeserializationContext ctxt) throws IOException {
      if (!element.isObject()) {
        return new Unknown(element);
      }
      Class<? extends ContentBlock> type = switch (element.path("type").asText("")) {
        case "text" -> Text.class;
        case "image" -> Image.class;
        case "tool_use" -> ToolUse.class;
        case "tool_result" -> ToolResult.class;
        case "thinking" -> Thinking.class;
        case "redacted_thinking" -> RedactedThinking.class;
        default -> null;
      };
      if (type == null) {
        return new Unknown(element);
      }
      ObjectNode fields = ((ObjectNode) element).deepCopy();
      fields.remove("type");
      try (JsonParser sub = p.getCodec().treeAsTokens(fields)) {
        sub.nextToken();
        return ctxt.readValue(sub, type);
      }
    }
  }
}
