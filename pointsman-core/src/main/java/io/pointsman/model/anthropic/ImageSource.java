package io.pointsman.model.anthropic;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Map;

/**
 * The source of an image block: {@code base64} (media type and data) or {@code url}.
 *
 * @param type {@code "base64"} or {@code "url"} (others are refused by the translation)
 * @param mediaType the media type of base64 data, for example {@code image/png}, or {@code null}
 * @param data the base64 data, or {@code null}
 * @param url the image URL, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ImageSource(
    @JsonProperty("type") String type,
    @JsonProperty("media_type") String mediaType,
    @JsonProperty("data") String data,
    @JsonProperty("url") String url,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes the extra map to an immutable copy.
   *
   * @param type {@code "base64"} or {@code "url"}
   * @param mediaType the media type of base64 data, or {@code null}
   * @param data the base64 data, or {@code null}
   * @param url the image URL, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ImageSource {
    extra = extra == null ? Map.of() : Map.copyOf(extra);
  }
}
