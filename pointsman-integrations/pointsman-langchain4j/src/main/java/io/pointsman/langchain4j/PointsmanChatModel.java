package io.pointsman.langchain4j;

import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A LangChain4j {@link ChatModel} that calls a Pointsman {@link Gateway} in-process: every call
 * is authenticated by its virtual key, admitted against limits and budgets, guarded, cached,
 * routed and recorded by the gateway, with no HTTP hop. Usable wherever LangChain4j takes a
 * {@code ChatModel}, {@code AiServices} included.
 *
 * <pre>{@code
 * ChatModel model = PointsmanChatModel.builder(gateway)
 *     .virtualKey(serviceKey)
 *     .defaultModel("gpt-4o-mini")
 *     .build();
 * String answer = model.chat("What does a pointsman do?");
 * }</pre>
 *
 * <p>Messages (system, user text and images, AI messages with tool calls, tool results), tools,
 * tool choice, the JSON schema response format, temperature, top-p, the output token cap, stop
 * sequences and penalties go to the gateway as a Chat Completions request; {@code topK} and
 * audio, video and PDF content are refused with an {@code UnsupportedFeatureException}. The
 * response carries the token usage, the finish reason and a {@link PointsmanChatResponseMetadata}
 * (event id, cost, cache outcome). Failures are LangChain4j's exception types, with the
 * gateway's {@link PointsmanException} as the cause: 400 {@code InvalidRequestException} (a
 * guardrail's: {@code ContentFilteredException}), 401 and 403 {@code AuthenticationException},
 * 402 {@link BudgetExceededException}, 404 {@code ModelNotFoundException}, 429
 * {@code RateLimitException}, 504 {@code TimeoutException}, 500, 502 and 503
 * {@code InternalServerException}. The gateway retries and fails over itself; the model adds no
 * retries of its own.
 *
 * <p>Thread-safe.
 */
public final class PointsmanChatModel implements ChatModel {
  private final Settings settings;

  private PointsmanChatModel(Settings settings) {
    this.settings = settings;
  }

  /**
   * Returns a builder of a model on a gateway.
   *
   * @param gateway the gateway the model calls; the model does not close it
   * @return the builder
   * @throws NullPointerException if gateway is null
   */
  public static Builder builder(Gateway gateway) {
    return new Builder(gateway);
  }

  /**
   * Sends the request through the gateway and waits for its response.
   *
   * @param request the request, with the model's default parameters applied
   * @return the response
   * @throws dev.langchain4j.exception.LangChain4jException when the gateway refuses or fails the
   *     call (its {@link PointsmanException} is the cause)
   */
  @Override
  public ChatResponse doChat(ChatRequest request) {
    io.pointsman.model.ChatRequest translated = Translation.toGateway(request,
        settings.defaultModel, settings.strictJsonSchema);
    ChatResult result;
    try {
      result = settings.gateway.chat(translated, settings.options(request));
    } catch (PointsmanException e) {
      throw Errors.toLangChain4j(e);
    }
    return Translation.toLangChain4j(result);
  }

  /**
   * Returns the parameters every request is defaulted by: the builder's default parameters and
   * default model.
   *
   * @return the defaults
   */
  @Override
  public ChatRequestParameters defaultRequestParameters() {
    return settings.defaults;
  }

  /**
   * Returns the listeners told of each call.
   *
   * @return the listeners
   */
  @Override
  public List<ChatModelListener> listeners() {
    return settings.listeners;
  }

  /**
   * Returns {@link ModelProvider#OTHER}: the provider is whichever deployment the gateway picks.
   *
   * @return {@code OTHER}
   */
  @Override
  public ModelProvider provider() {
    return ModelProvider.OTHER;
  }

  /**
   * Returns the JSON schema response format, which the gateway passes to its providers (so that
   * {@code AiServices} asks for structured output by schema rather than by prompt).
   *
   * @return the capabilities
   */
  @Override
  public Set<Capability> supportedCapabilities() {
    return Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
  }

  /** A builder of {@link PointsmanChatModel}; not thread-safe. */
  public static final class Builder {
    private final Settings.Mutable m;

    private Builder(Gateway gateway) {
      this.m = new Settings.Mutable(gateway);
    }

    /**
     * Sets where each call's virtual key comes from.
     *
     * @param value the supplier
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder keys(CallerKeys value) {
      m.keys = Objects.requireNonNull(value, "keys");
      return this;
    }

    /**
     * Makes every call use one virtual key: a single-tenant service.
     *
     * @param value the key
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder virtualKey(String value) {
      m.keys = CallerKeys.fixed(value);
      return this;
    }

    /**
     * Sets the model (name or alias in the gateway's catalog) of requests that name none.
     *
     * @param value the model
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder defaultModel(String value) {
      m.defaultModel = Objects.requireNonNull(value, "defaultModel");
      return this;
    }

    /**
     * Sets the parameters that requests are defaulted by (a request's own values win).
     *
     * @param value the parameters; a {@link PointsmanChatRequestParameters} may carry a
     *     virtual key
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder defaultRequestParameters(ChatRequestParameters value) {
      m.defaults = Objects.requireNonNull(value, "defaultRequestParameters");
      return this;
    }

    /**
     * Sets whether a JSON schema response format asks the provider for strict adherence.
     * Default: false.
     *
     * @param value true for strict
     * @return this builder
     */
    public Builder strictJsonSchema(boolean value) {
      m.strictJsonSchema = value;
      return this;
    }

    /**
     * Sets each call's timeout, measured from entry into the gateway. Default: none.
     *
     * @param value a positive duration
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is zero or negative
     */
    public Builder timeout(Duration value) {
      Objects.requireNonNull(value, "timeout");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      m.timeout = value;
      return this;
    }

    /**
     * Adds a tag to every call, for limits' matching and reporting.
     *
     * @param value 1 to 64 printable ASCII characters
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder tag(String value) {
      m.tags.add(Objects.requireNonNull(value, "tag"));
      return this;
    }

    /**
     * Sets the LangChain4j listeners told of each call.
     *
     * @param value the listeners
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder listeners(List<ChatModelListener> value) {
      m.listeners.clear();
      m.listeners.addAll(Objects.requireNonNull(value, "listeners"));
      return this;
    }

    /**
     * Builds the model.
     *
     * @return the model
     * @throws IllegalStateException if neither keys nor a virtual key was set
     * @throws IllegalArgumentException if a tag is not one the gateway accepts
     */
    public PointsmanChatModel build() {
      return new PointsmanChatModel(m.build());
    }
  }
}
