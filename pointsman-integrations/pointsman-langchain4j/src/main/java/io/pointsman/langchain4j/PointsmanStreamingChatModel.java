package io.pointsman.langchain4j;

import com.fasterxml.jackson.databind.JsonNode;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.model.ModelProvider;
import dev.langchain4j.model.chat.Capability;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.listener.ChatModelListener;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.PartialToolCallContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.response.StreamingHandle;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.StreamOptions;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A LangChain4j {@link StreamingChatModel} that streams through a Pointsman {@link Gateway}
 * in-process. The gateway streams on the thread that calls it, so each call runs on the
 * model's executor and {@link #doChat} returns at once; the handler is called on that thread:
 * {@code onPartialResponse} per text delta, {@code onPartialToolCall} per tool-call fragment,
 * {@code onCompleteToolCall} per assembled tool call and then {@code onCompleteResponse} once
 * the call's usage record is durable, or {@code onError} with the same exception types as
 * {@link PointsmanChatModel}. An exception thrown by a partial callback goes to
 * {@code onError} and the stream goes on, as in LangChain4j's own models.
 *
 * <pre>{@code
 * StreamingChatModel model = PointsmanStreamingChatModel.builder(gateway)
 *     .virtualKey(serviceKey)
 *     .defaultModel("gpt-4o-mini")
 *     .build();
 * model.chat("Tell me a story", handler);
 * }</pre>
 *
 * <p>Cancelling: {@link StreamingHandle#cancel()} on the handle of a partial callback's context
 * cancels the gateway's stream ({@link StreamControl#cancel()}): the provider stops after the
 * chunk in hand, the call is recorded as {@code CANCELLED} and charged its input plus the
 * output streamed so far (estimated), and the handler is called no more.
 *
 * <p>Thread-safe.
 */
public final class PointsmanStreamingChatModel implements StreamingChatModel {
  private static final Logger LOG = LoggerFactory.getLogger(PointsmanStreamingChatModel.class);
  private static final StreamOptions WITH_USAGE = new StreamOptions(true, null);

  private final Settings settings;
  private final Executor executor;

  private PointsmanStreamingChatModel(Settings settings, Executor executor) {
    this.settings = settings;
    this.executor = executor;
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
   * Starts the call on the model's executor and returns; the handler receives the stream.
   *
   * @param request the request, with the model's default parameters applied
   * @param handler receives the partial and complete responses or the error
   */
  @Override
  public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
    io.pointsman.model.ChatRequest translated;
    CallOptions options;
    try {
      translated = Translation.toGateway(request, settings.defaultModel,
          settings.strictJsonSchema).toBuilder().stream(true).streamOptions(WITH_USAGE).build();
      options = settings.options(request);
    } catch (RuntimeException e) {
      handler.onError(e);
      return;
    }
    Handle handle = new Handle();
    try {
      executor.execute(() -> run(translated, options, handler, handle));
    } catch (RejectedExecutionException e) {
      handler.onError(new InternalServerException(
          "the streaming executor refused the call: " + e.getMessage(), e));
    }
  }

  private void run(io.pointsman.model.ChatRequest request, CallOptions options,
      StreamingChatResponseHandler handler, Handle handle) {
    Observer observer = new Observer(handler, handle);
    ChatResult result;
    try {
      result = settings.gateway.stream(request, options, observer);
    } catch (PointsmanException e) {
      if (!handle.isCancelled()) {
        deliverError(handler, Errors.toLangChain4j(e));
      }
      return;
    } catch (RuntimeException e) {
      if (!handle.isCancelled()) {
        deliverError(handler, e);
      }
      return;
    }
    if (handle.isCancelled()) {
      return;
    }
    ChatResponse response;
    try {
      response = Translation.toLangChain4j(result);
    } catch (RuntimeException e) {
      deliverError(handler, e);
      return;
    }
    List<ToolExecutionRequest> calls = response.aiMessage().toolExecutionRequests();
    for (int i = 0; i < calls.size(); i++) {
      CompleteToolCall complete = new CompleteToolCall(i, calls.get(i));
      deliver(handler, () -> handler.onCompleteToolCall(complete));
    }
    deliver(handler, () -> handler.onCompleteResponse(response));
  }

  /** Runs a callback; its failure goes to {@code onError}, as LangChain4j's models do. */
  private static void deliver(StreamingChatResponseHandler handler, Runnable callback) {
    try {
      callback.run();
    } catch (RuntimeException e) {
      deliverError(handler, e);
    }
  }

  private static void deliverError(StreamingChatResponseHandler handler, Throwable error) {
    try {
      handler.onError(error);
    } catch (RuntimeException e) {
      LOG.warn("the streaming handler's onError threw", e);
    }
  }

  /**
   * Returns the parameters every request is defaulted by.
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
   * Returns the JSON schema response format.
   *
   * @return the capabilities
   */
  @Override
  public Set<Capability> supportedCapabilities() {
    return Set.of(Capability.RESPONSE_FORMAT_JSON_SCHEMA);
  }

  /** The stream's handle: cancels the gateway's stream, before or after it started. */
  static final class Handle implements StreamingHandle {
    private volatile boolean cancelled;
    private volatile StreamControl control;

    void attach(StreamControl value) {
      control = value;
      if (cancelled) {
        value.cancel();
      }
    }

    @Override
    public void cancel() {
      cancelled = true;
      StreamControl c = control;
      if (c != null) {
        c.cancel();
      }
    }

    @Override
    public boolean isCancelled() {
      return cancelled;
    }
  }

  /** Turns the gateway's chunks into the handler's partial callbacks. */
  private static final class Observer implements StreamObserver {
    private final StreamingChatResponseHandler handler;
    private final Handle handle;
    /** Tool-call id and name per index: only the first fragment of a call carries them. */
    private final Map<Integer, String[]> tools = new HashMap<>();

    Observer(StreamingChatResponseHandler handler, Handle handle) {
      this.handler = handler;
      this.handle = handle;
    }

    @Override
    public void onStart(StreamControl control) {
      handle.attach(control);
    }

    @Override
    public void onChunk(ChatChunk chunk) {
      if (handle.isCancelled() || chunk.choices().isEmpty()) {
        return;
      }
      ChunkDelta delta = chunk.choices().get(0).delta();
      if (delta == null) {
        return;
      }
      String text = delta.content();
      if (text != null && !text.isEmpty()) {
        deliver(handler, () -> handler.onPartialResponse(new PartialResponse(text),
            new PartialResponseContext(handle)));
      }
      JsonNode calls = delta.toolCalls();
      if (calls != null && calls.isArray()) {
        for (JsonNode call : calls) {
          if (handle.isCancelled()) {
            return;
          }
          partialToolCall(call);
        }
      }
    }

    private void partialToolCall(JsonNode call) {
      int index = call.path("index").asInt(0);
      String[] idAndName = tools.computeIfAbsent(index, i -> new String[2]);
      if (call.hasNonNull("id")) {
        idAndName[0] = call.get("id").asText();
      }
      JsonNode function = call.path("function");
      if (function.hasNonNull("name")) {
        idAndName[1] = function.get("name").asText();
      }
      String arguments = function.path("arguments").asText("");
      if (idAndName[1] == null || arguments.isEmpty()) {
        return;
      }
      PartialToolCall partial = PartialToolCall.builder().index(index).id(idAndName[0])
          .name(idAndName[1]).partialArguments(arguments).build();
      deliver(handler, () -> handler.onPartialToolCall(partial,
          new PartialToolCallContext(handle)));
    }
  }

  /** A builder of {@link PointsmanStreamingChatModel}; not thread-safe. */
  public static final class Builder {
    private final Settings.Mutable m;
    private Executor executor;

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
     * Sets the executor each streamed call runs on (it holds a thread for the length of the
     * stream). Default: a pool shared by every streaming model, of daemon threads made as
     * streams need them and ended after a minute unused.
     *
     * @param value the executor
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder executor(Executor value) {
      this.executor = Objects.requireNonNull(value, "executor");
      return this;
    }

    /**
     * Builds the model.
     *
     * @return the model
     * @throws IllegalStateException if neither keys nor a virtual key was set
     * @throws IllegalArgumentException if a tag is not one the gateway accepts
     */
    public PointsmanStreamingChatModel build() {
      return new PointsmanStreamingChatModel(m.build(),
          executor != null ? executor : DefaultExecutor.INSTANCE);
    }
  }

  /** The shared default executor, made on first use. */
  private static final class DefaultExecutor {
    static final Executor INSTANCE = create();

    private static Executor create() {
      AtomicInteger n = new AtomicInteger();
      ThreadPoolExecutor pool = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60,
          TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "pointsman-langchain4j-stream-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
          });
      return pool;
    }
  }
}
