package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Map;

/**
 * A Chat Completions response, as in the OpenAI API.
 *
 * @param id the completion id
 * @param object {@code "chat.completion"}
 * @param created creation time in epoch seconds
 * @param model the model that answered
 * @param choices the choices
 * @param usage token usage, or {@code null} when the provider did not report it
 * @param systemFingerprint the backend fingerprint, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChatResponse(
    @JsonProperty("id") String id,
    @JsonProperty("object") String object,
    @JsonProperty("created") long created,
    @JsonProperty("model") String model,
    @JsonProperty("choices") List<Choice> choices,
    @JsonProperty("usage") Usage usage,
    @JsonProperty("system_fingerprint") String systemFingerprint,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes lists and the extra map to immutable copies.
   *
   * @param id the completion id
   * @param object {@code "chat.completion"}
   * @param created creation time in epoch seconds
   * @param model the model that answered
   * @param choices the choices
   * @param usage token usage, or {@code null} when the provider did not report it
   * @param systemFingerprint the backend fingerprint, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ChatResponse {
    choices = choices == null ? List.of() : List.copyOf(choices);
    extra = Json.extras(extra);
  }

  /**
   * Returns the text of the first choice.
   *
   * @return the text, empty when there is none
   */
  public String firstText() {
    return choices.isEmpty() || choices.get(0).message() == null
        ? "" : choices.get(0).message().text();
  }

  /**
   * Returns a copy with other choices.
   *
   * @param newChoices the choices
   * @return the copy
   */
  public ChatResponse withChoices(List<Choice> newChoices) {
    return new ChatResponse(id, object, created, model, newChoices, usage, systemFingerprint,
        extra);
  }
}
