package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import java.util.Locale;

/** The author of a chat message. */
public enum Role {
  /** Instructions from the application. */
  SYSTEM,
  /** Instructions from the application (newer OpenAI name for system). */
  DEVELOPER,
  /** The end user. */
  USER,
  /** The model. */
  ASSISTANT,
  /** The result of a tool call. */
  TOOL;

  /**
   * Returns the wire name.
   *
   * @return the lower-case name used in JSON
   */
  @JsonValue
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * Parses a wire name.
   *
   * @param value the JSON value
   * @return the role
   * @throws PointsmanException with status 400 when the role is unknown
   */
  @JsonCreator
  public static Role of(String value) {
    if (value != null) {
      switch (value) {
        case "system": return SYSTEM;
        case "developer": return DEVELOPER;
        case "user": return USER;
        case "assistant": return ASSISTANT;
        case "tool": return TOOL;
        default: break;
      }
    }
    throw PointsmanException.badRequest(Stages.REQUEST, "unknown message role: "
        + (value == null ? "null" : Json.quoteForMessage(value)));
  }
}
