package io.pointsman.model;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Chat Completions request, as in the OpenAI API. Immutable; build one with
 * {@link #builder()} or read one with {@link Json#readRequest(byte[])}.
 *
 * <pre>{@code
 * ChatRequest request = ChatRequest.builder()
 *     .model("gpt-4o-mini")
 *     .addMessage(Message.user("Say hello"))
 *     .temperature(0.0)
 *     .build();
 * }</pre>
 *
 * @param model the model name or alias
 * @param messages the conversation
 * @param tools the tools the model may call, or {@code null}
 * @param toolChoice how the model picks a tool (string or object), or {@code null}
 * @param temperature sampling temperature, or {@code null} for the provider's default
 * @param topP nucleus sampling mass, or {@code null}
 * @param maxTokens the legacy output token cap, or {@code null}
 * @param maxCompletionTokens the output token cap, or {@code null}
 * @param stop a stop string or array of strings, or {@code null}
 * @param seed a sampling seed, or {@code null}
 * @param responseFormat the response format object, or {@code null}
 * @param user an end-user identifier, or {@code null}
 * @param metadata free-form metadata object, or {@code null}
 * @param stream whether the response is streamed, or {@code null}
 * @param streamOptions stream options, or {@code null}
 * @param n number of choices, or {@code null}
 * @param extra every other field, kept verbatim
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ChatRequest(
    @JsonProperty("model") String model,
    @JsonProperty("messages") List<Message> messages,
    @JsonProperty("tools") List<Tool> tools,
    @JsonProperty("tool_choice") JsonNode toolChoice,
    @JsonProperty("temperature") Double temperature,
    @JsonProperty("top_p") Double topP,
    @JsonProperty("max_tokens") Integer maxTokens,
    @JsonProperty("max_completion_tokens") Integer maxCompletionTokens,
    @JsonProperty("stop") JsonNode stop,
    @JsonProperty("seed") Long seed,
    @JsonProperty("response_format") JsonNode responseFormat,
    @JsonProperty("user") String user,
    @JsonProperty("metadata") JsonNode metadata,
    @JsonProperty("stream") Boolean stream,
    @JsonProperty("stream_options") StreamOptions streamOptions,
    @JsonProperty("n") Integer n,
    @JsonAnySetter @JsonAnyGetter Map<String, JsonNode> extra) {

  /**
   * Normalizes lists and the extra map to immutable copies (null elements are kept for validation).
   *
   * @param model the model name or alias
   * @param messages the conversation
   * @param tools the tools the model may call, or {@code null}
   * @param toolChoice how the model picks a tool (string or object), or {@code null}
   * @param temperature sampling temperature, or {@code null} for the provider's default
   * @param topP nucleus sampling mass, or {@code null}
   * @param maxTokens the legacy output token cap, or {@code null}
   * @param maxCompletionTokens the output token cap, or {@code null}
   * @param stop a stop string or array of strings, or {@code null}
   * @param seed a sampling seed, or {@code null}
   * @param responseFormat the response format object, or {@code null}
   * @param user an end-user identifier, or {@code null}
   * @param metadata free-form metadata object, or {@code null}
   * @param stream whether the response is streamed, or {@code null}
   * @param streamOptions stream options, or {@code null}
   * @param n number of choices, or {@code null}
   * @param extra every other field, kept verbatim
   */
  public ChatRequest {
    messages = messages == null ? null : Json.listAllowingNulls(messages);
    tools = tools == null ? null : Json.listAllowingNulls(tools);
    extra = Json.extras(extra);
  }

  /**
   * Returns the output token cap the request asks for: {@code max_completion_tokens} if set,
   * else {@code max_tokens}, else {@code null}.
   *
   * @return the cap, or {@code null} when the request sets none
   */
  public Integer outputTokenCap() {
    return maxCompletionTokens != null ? maxCompletionTokens : maxTokens;
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
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns a builder holding this request's values.
   *
   * @return a builder
   */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.model = model;
    b.messages = messages == null ? new ArrayList<>() : new ArrayList<>(messages);
    b.tools = tools == null ? null : new ArrayList<>(tools);
    b.toolChoice = toolChoice;
    b.temperature = temperature;
    b.topP = topP;
    b.maxTokens = maxTokens;
    b.maxCompletionTokens = maxCompletionTokens;
    b.stop = stop;
    b.seed = seed;
    b.responseFormat = responseFormat;
    b.user = user;
    b.metadata = metadata;
    b.stream = stream;
    b.streamOptions = streamOptions;
    b.n = n;
    b.extra = new LinkedHashMap<>(extra);
    return b;
  }

  /**
   * Returns a copy with other messages.
   *
   * @param newMessages the messages
   * @return the copy
   */
  public ChatRequest withMessages(List<Message> newMessages) {
    return new ChatRequest(model, newMessages, tools, toolChoice, temperature, topP, maxTokens,
        maxCompletionTokens, stop, seed, responseFormat, user, metadata, stream, streamOptions, n,
        extra);
  }

  /**
   * Returns a copy with another model name.
   *
   * @param newModel the model name
   * @return the copy
   */
  public ChatRequest withModel(String newModel) {
    return new ChatRequest(newModel, messages, tools, toolChoice, temperature, topP, maxTokens,
        maxCompletionTokens, stop, seed, responseFormat, user, metadata, stream, streamOptions, n,
        extra);
  }

  /** A mutable builder of {@link ChatRequest}; not thread-safe. */
  public static final class Builder {
    private String model;
    private List<Message> messages = new ArrayList<>();
    private List<Tool> tools;
    private JsonNode toolChoice;
    private Double temperature;
    private Double topP;
    private Integer maxTokens;
    private Integer maxCompletionTokens;
    private JsonNode stop;
    private Long seed;
    private JsonNode responseFormat;
    private String user;
    private JsonNode metadata;
    private Boolean stream;
    private StreamOptions streamOptions;
    private Integer n;
    private Map<String, JsonNode> extra = new LinkedHashMap<>();

    private Builder() {}

    /**
     * Sets the model name or alias.
     *
     * @param value the model
     * @return this builder
     */
    public Builder model(String value) {
      this.model = Objects.requireNonNull(value, "model");
      return this;
    }

    /**
     * Appends a message.
     *
     * @param message the message
     * @return this builder
     */
    public Builder addMessage(Message message) {
      messages.add(Objects.requireNonNull(message, "message"));
      return this;
    }

    /**
     * Replaces the messages.
     *
     * @param value the messages
     * @return this builder
     */
    public Builder messages(List<Message> value) {
      this.messages = new ArrayList<>(Objects.requireNonNull(value, "messages"));
      return this;
    }

    /**
     * Sets the tools.
     *
     * @param value the tools
     * @return this builder
     */
    public Builder tools(List<Tool> value) {
      this.tools = new ArrayList<>(Objects.requireNonNull(value, "tools"));
      return this;
    }

    /**
     * Sets the tool choice.
     *
     * @param value a string or object node
     * @return this builder
     */
    public Builder toolChoice(JsonNode value) {
      this.toolChoice = value;
      return this;
    }

    /**
     * Sets the temperature.
     *
     * @param value the temperature
     * @return this builder
     */
    public Builder temperature(double value) {
      this.temperature = value;
      return this;
    }

    /**
     * Sets top_p.
     *
     * @param value the probability mass
     * @return this builder
     */
    public Builder topP(double value) {
      this.topP = value;
      return this;
    }

    /**
     * Sets the legacy {@code max_tokens}.
     *
     * @param value the cap
     * @return this builder
     */
    public Builder maxTokens(int value) {
      this.maxTokens = value;
      return this;
    }

    /**
     * Sets {@code max_completion_tokens}.
     *
     * @param value the cap
     * @return this builder
     */
    public Builder maxCompletionTokens(int value) {
      this.maxCompletionTokens = value;
      return this;
    }

    /**
     * Sets the stop string or array.
     *
     * @param value a string or array node
     * @return this builder
     */
    public Builder stop(JsonNode value) {
      this.stop = value;
      return this;
    }

    /**
     * Sets the seed.
     *
     * @param value the seed
     * @return this builder
     */
    public Builder seed(long value) {
      this.seed = value;
      return this;
    }

    /**
     * Sets the response format.
     *
     * @param value the response format object
     * @return this builder
     */
    public Builder responseFormat(JsonNode value) {
      this.responseFormat = value;
      return this;
    }

    /**
     * Sets the end-user identifier.
     *
     * @param value the identifier
     * @return this builder
     */
    public Builder user(String value) {
      this.user = value;
      return this;
    }

    /**
     * Sets the metadata object.
     *
     * @param value the metadata
     * @return this builder
     */
    public Builder metadata(JsonNode value) {
      this.metadata = value;
      return this;
    }

    /**
     * Sets whether to stream.
     *
     * @param value true to stream
     * @return this builder
     */
    public Builder stream(boolean value) {
      this.stream = value;
      return this;
    }

    /**
     * Sets the stream options.
     *
     * @param value the options
     * @return this builder
     */
    public Builder streamOptions(StreamOptions value) {
      this.streamOptions = value;
      return this;
    }

    /**
     * Sets the number of choices.
     *
     * @param value the count
     * @return this builder
     */
    public Builder n(int value) {
      this.n = value;
      return this;
    }

    /**
     * Sets a field the model does not name.
     *
     * @param name the JSON field name
     * @param value its value
     * @return this builder
     */
    public Builder extra(String name, JsonNode value) {
      extra.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
      return this;
    }

    /**
     * Builds the request. Validation of the request's content happens when a gateway receives
     * it, so that requests read from JSON and built in code are judged alike.
     *
     * @return the request
     */
    public ChatRequest build() {
      return new ChatRequest(model, messages, tools, toolChoice, temperature, topP, maxTokens,
          maxCompletionTokens, stop, seed, responseFormat, user, metadata, stream, streamOptions,
          n, extra);
    }
  }
}
