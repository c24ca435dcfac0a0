package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * One part of multi-part message content.
 *
 * @param type the part type, for example {@code "text"} or {@code "image_url"}
 * @param text the text of a text part, or {@code null}
 * @param imageUrl the {@code image_url} object of an image part, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ContentPart(
    @JsonProperty("type") String type,
    @JsonProperty("text") String text,
    @JsonProperty("image_url") JsonNode imageUrl,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param type the part type, for example {@code "text"} or {@code "image_url"}
   * @param text the text of a text part, or {@code null}
   * @param imageUrl the {@code image_url} object of an image part, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ContentPart {
    extra = Json.extras(extra);
  }

  /**
   * Returns a text part.
   *
   * @param text the text
   * @return the part
   */
  public static ContentPart text(String text) {
    return new ContentPart("text", text, null, null);
  }
}
