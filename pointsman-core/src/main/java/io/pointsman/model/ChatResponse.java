package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * A Chat Completions response, as in the OpenAI API.
 *
 * <p>A stage or a provider that answers itself builds one with {@link #ofText(String, String)}
 * or {@link #builder()}, which fill in what a client expects (an id, {@code object}, the
 * creation time, one assistant choice with finish reason {@code stop}, and usage):
 *
 * <pre>{@code
 * return Reply.of(ChatResponse.ofText(exchange.model().name(), "Closed for maintenance."));
 * }</pre>
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

  /**
   * Returns a complete response with one assistant message: a fresh {@code chatcmpl-} id,
   * {@code object} {@code "chat.completion"}, the current time, finish reason {@code stop} and
   * zero usage (the answer cost no provider tokens).
   *
   * @param model the model the response names
   * @param text the assistant's text
   * @return the response
   * @throws NullPointerException if model or text is null
   */
  public static ChatResponse ofText(String model, String text) {
    return builder().model(model).text(text).build();
  }

  /**
   * Starts a builder of a response with one choice. Not thread-safe.
   *
   * @return a new builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a well-formed response with one choice. Defaults: a fresh {@code chatcmpl-} id, the
   * current time, finish reason {@code stop}, zero usage. The model and the message (or text)
   * are required. Not thread-safe.
   */
  public static final class Builder {
    private String id;
    private Long created;
    private String model;
    private Message message;
    private String finishReason = "stop";
    private Usage usage = Usage.of(0, 0);
    private String systemFingerprint;

    private Builder() {}

    /**
     * Sets the completion id.
     *
     * @param id the id
     * @return this builder
     * @throws NullPointerException if id is null
     */
    public Builder id(String id) {
      this.id = Objects.requireNonNull(id, "id");
      return this;
    }

    /**
     * Sets the creation time.
     *
     * @param created when the response was created (kept in whole epoch seconds)
     * @return this builder
     * @throws NullPointerException if created is null
     */
    public Builder created(Instant created) {
      this.created = Objects.requireNonNull(created, "created").getEpochSecond();
      return this;
    }

    /**
     * Sets the model the response names.
     *
     * @param model the model
     * @return this builder
     * @throws NullPointerException if model is null
     */
    public Builder model(String model) {
      this.model = Objects.requireNonNull(model, "model");
      return this;
    }

    /**
     * Sets the choice's message to an assistant message with this text.
     *
     * @param text the assistant's text
     * @return this builder
     * @throws NullPointerException if text is null
     */
    public Builder text(String text) {
      this.message = Message.assistant(Objects.requireNonNull(text, "text"));
      return this;
    }

    /**
     * Sets the choice's message.
     *
     * @param message the message, normally of role {@code assistant}
     * @return this builder
     * @throws NullPointerException if message is null
     */
    public Builder message(Message message) {
      this.message = Objects.requireNonNull(message, "message");
      return this;
    }

    /**
     * Sets why generation stopped.
     *
     * @param finishReason the reason, for example {@code "stop"} or {@code "length"}
     * @return this builder
     * @throws NullPointerException if finishReason is null
     */
    public Builder finishReason(String finishReason) {
      this.finishReason = Objects.requireNonNull(finishReason, "finishReason");
      return this;
    }

    /**
     * Sets the usage the response reports.
     *
     * @param usage the usage, or {@code null} to report none
     * @return this builder
     */
    public Builder usage(Usage usage) {
      this.usage = usage;
      return this;
    }

    /**
     * Sets the backend fingerprint.
     *
     * @param systemFingerprint the fingerprint, or {@code null}
     * @return this builder
     */
    public Builder systemFingerprint(String systemFingerprint) {
      this.systemFingerprint = systemFingerprint;
      return this;
    }

    /**
     * Builds the response.
     *
     * @return the response
     * @throws IllegalStateException if the model or the message was not set
     */
    public ChatResponse build() {
      if (model == null) {
        throw new IllegalStateException("a response needs a model");
      }
      if (message == null) {
        throw new IllegalStateException("a response needs a message or a text");
      }
      return new ChatResponse(id == null ? "chatcmpl-" + UUID.randomUUID() : id,
          "chat.completion", created == null ? Instant.now().getEpochSecond() : created, model,
          List.of(new Choice(0, message, finishReason, null, null)), usage, systemFingerprint,
          null);
    }
  }
}
