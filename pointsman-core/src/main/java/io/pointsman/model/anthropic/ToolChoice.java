package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * How the model picks a tool: {@code auto}, {@code any}, {@code tool} (with a name) or
 * {@code none}.
 *
 * @param type the choice
 * @param name the tool's name when type is {@code tool}, else {@code null}
 * @param disableParallelToolUse whether at most one tool call may be made, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ToolChoice(
    @JsonProperty("type") String type,
    @JsonProperty("name") String name,
    @JsonProperty("disable_parallel_tool_use") Boolean disableParallelToolUse,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param type the choice
   * @param name the tool's name when type is {@code tool}, else {@code null}
   * @param disableParallelToolUse whether at most one tool call may be made, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ToolChoice {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }
}
