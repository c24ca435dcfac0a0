package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * A tool the model may call: a client tool with a JSON Schema for its input. Anthropic's
 * server tools (a {@code type} such as {@code web_search_20250305}) are refused by the
 * translation.
 *
 * @param type {@code null} or {@code "custom"} for a client tool, else a server tool's type
 * @param name the tool name
 * @param description what the tool does, or {@code null}
 * @param inputSchema the JSON Schema of the tool's input
 * @param extra every other field ({@code cache_control}, …), kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolDefinition(
    @JsonProperty("type") String type,
    @JsonProperty("name") String name,
    @JsonProperty("description") String description,
    @JsonProperty("input_schema") JsonNode inputSchema,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param type {@code null} or {@code "custom"} for a client tool, else a server tool's type
   * @param name the tool name
   * @param description what the tool does, or {@code null}
   * @param inputSchema the JSON Schema of the tool's input
   * @param extra every other field, kept verbatim
   */
  public ToolDefinition {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }
}
