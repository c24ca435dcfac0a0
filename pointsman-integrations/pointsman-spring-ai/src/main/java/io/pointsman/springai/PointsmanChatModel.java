package io.pointsman.springai;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChunkChoice;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.observation.ChatModelObservationContext;
import org.springframework.ai.chat.observation.ChatModelObservationConvention;
import org.springframework.ai.chat.observation.ChatModelObservationDocumentation;
import org.springframework.ai.chat.observation.DefaultChatModelObservationConvention;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.DefaultToolExecutionEligibilityPredicate;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionEligibilityPredicate;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.support.UsageCalculator;
import org.springframework.ai.tool.definition.ToolDefinition;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A Spring AI {@link ChatModel} on an in-process {@link Gateway}: every call and stream goes
 * through the gateway's pipeline (authentication by virtual key, guardrails, limits and
 * budgets, cache, routing, accounting) in this JVM, with no HTTP hop.
 *
 * <p>What the model does for Spring AI:
 *
 * <ul>
 *   <li>{@link #call(Prompt)} and {@link #stream(Prompt)}, with system, user (text and images),
 *       assistant (with tool calls) and tool response messages;
 *   <li>usage metadata (prompt, completion and total tokens; the gateway's usage as the native
 *       usage), finish reasons, and the gateway's request id, event id and cost under the
 *       {@code METADATA_*} keys of the {@link ChatResponseMetadata};
 *   <li>Spring AI's internal tool execution loop: tool calls the model asks for are run by the
 *       {@link ToolCallingManager} and their results sent back, one gateway call per round
 *       (each accounted on its own);
 *   <li>structured output: the {@code BeanOutputConverter} instructions work as with any model,
 *       and an {@link PointsmanChatOptions#getOutputSchema() output schema} becomes a
 *       {@code json_schema} response format;
 *   <li>failures as Spring AI's exceptions: {@code TransientAiException} for 429, 500, 502, 503
 *       and 504, {@code NonTransientAiException} for 400, 401, 402, 403 and 404, the gateway's
 *       {@link PointsmanException} as the cause.
 * </ul>
 *
 * <p>The gateway delivers a stream's chunks on the calling thread, so {@link #stream(Prompt)}
 * runs the call on a {@link Scheduler} (by default {@link Schedulers#boundedElastic()}), one
 * worker per stream for its whole length. Cancelling the subscription (disposing it, or an
 * operator such as {@code take} doing so) cancels the gateway stream: the provider stops after
 * the chunk in hand and the call is accounted as cancelled.
 *
 * <p>The virtual key of a call is the one in its {@link PointsmanChatOptions#getVirtualKey()
 * options} when set, else the one the model's {@link CallerKeys} names. Thread-safe.
 */
public final class PointsmanChatModel implements ChatModel {

  /** Response metadata key: the gateway's request id of the call (a String). */
  public static final String METADATA_REQUEST_ID = "pointsman.request-id";
  /** Response metadata key: the call's event id, the key of its usage record (a String). */
  public static final String METADATA_EVENT_ID = "pointsman.event-id";
  /** Response metadata key: the amount charged for the call, in micro-units (a Long). */
  public static final String METADATA_COST_MICROS = "pointsman.cost-micros";
  /** Response metadata key: whether the cost is an estimate (a Boolean). */
  public static final String METADATA_COST_ESTIMATED = "pointsman.cost-estimated";
  /** Response metadata key: how the call ended (a String). */
  public static final String METADATA_OUTCOME = "pointsman.outcome";
  /** Response metadata key: what the response cache did (a String). */
  public static final String METADATA_CACHE_STATUS = "pointsman.cache-status";
  /** Response metadata key: the deployment that answered (a String, absent when none). */
  public static final String METADATA_DEPLOYMENT = "pointsman.deployment";

  /** The provider name in Spring AI's observations. */
  static final String OBSERVATION_PROVIDER = "pointsman";

  private static final ChatModelObservationConvention DEFAULT_CONVENTION =
      new DefaultChatModelObservationConvention();

  private final Gateway gateway;
  private final CallerKeys keys;
  private final PointsmanChatOptions defaultOptions;
  private final ToolCallingManager toolCallingManager;
  private final ToolExecutionEligibilityPredicate toolExecutionEligibilityPredicate;
  private final ObservationRegistry observationRegistry;
  private final ChatModelObservationConvention observationConvention;
  private final Scheduler scheduler;

  private PointsmanChatModel(Builder b) {
    this.gateway = b.gateway;
    this.keys = b.keys;
    PointsmanChatOptions defaults = b.defaultOptions == null
        ? new PointsmanChatOptions() : b.defaultOptions.copy();
    if (b.defaultModel != null) {
      defaults.setModel(b.defaultModel);
    }
    this.defaultOptions = defaults;
    this.toolCallingManager = b.toolCallingManager != null ? b.toolCallingManager
        : ToolCallingManager.builder().observationRegistry(b.observationRegistry).build();
    this.toolExecutionEligibilityPredicate = b.toolExecutionEligibilityPredicate;
    this.observationRegistry = b.observationRegistry;
    this.observationConvention = b.observationConvention;
    this.scheduler = b.scheduler;
  }

  /**
   * Returns a builder of a model on {@code gateway}.
   *
   * @param gateway the gateway every call goes through (not closed by the model)
   * @return a new builder
   * @throws NullPointerException if {@code gateway} is null
   */
  public static Builder builder(Gateway gateway) {
    return new Builder(gateway);
  }

  /**
   * Returns a copy of the model's default options.
   *
   * @return the default options
   */
  @Override
  public ChatOptions getDefaultOptions() {
    return defaultOptions.copy();
  }

  /**
   * Returns the gateway the model calls.
   *
   * @return the gateway
   */
  public Gateway gateway() {
    return gateway;
  }

  @Override
  public ChatResponse call(Prompt prompt) {
    Objects.requireNonNull(prompt, "prompt");
    return internalCall(requestPrompt(prompt), null);
  }

  @Override
  public Flux<ChatResponse> stream(Prompt prompt) {
    Objects.requireNonNull(prompt, "prompt");
    return Flux.defer(() -> internalStream(requestPrompt(prompt), null));
  }

  /** The prompt with its options merged over the defaults, as Pointsman options. */
  private Prompt requestPrompt(Prompt prompt) {
    PointsmanChatOptions merged = PointsmanChatOptions.from(prompt.getOptions())
        .withDefaults(defaultOptions);
    return new Prompt(prompt.getInstructions(), merged);
  }

  private ChatResponse internalCall(Prompt prompt, ChatResponse previous) {
    PointsmanChatOptions options = (PointsmanChatOptions) prompt.getOptions();
    ChatRequest request = Translation.request(prompt.getInstructions(), options, tools(options));
    CallOptions callOptions = CallOptions.of(keyFor(prompt, options));
    ChatModelObservationContext context = ChatModelObservationContext.builder()
        .prompt(prompt).provider(OBSERVATION_PROVIDER).build();
    ChatResponse response = ChatModelObservationDocumentation.CHAT_MODEL_OPERATION
        .observation(observationConvention, DEFAULT_CONVENTION, () -> context,
            observationRegistry)
        .observe(() -> {
          ChatResult result;
          try {
            result = gateway.chat(request, callOptions);
          } catch (PointsmanException e) {
            throw Translation.error(e);
          }
          ChatResponse r = Translation.response(result,
              UsageCalculator.getCumulativeUsage(Translation.usage(result), previous));
          context.setResponse(r);
          return r;
        });
    if (toolExecutionEligibilityPredicate.isToolExecutionRequired(options, response)) {
      ToolExecutionResult executed = toolCallingManager.executeToolCalls(prompt, response);
      if (executed.returnDirect()) {
        return ChatResponse.builder().from(response)
            .generations(ToolExecutionResult.buildGenerations(executed)).build();
      }
      return internalCall(new Prompt(executed.conversationHistory(), options), response);
    }
    return response;
  }

  private Flux<ChatResponse> internalStream(Prompt prompt, ChatResponse previous) {
    PointsmanChatOptions options = (PointsmanChatOptions) prompt.getOptions();
    ChatRequest request = Translation.request(prompt.getInstructions(), options, tools(options));
    CallOptions callOptions = CallOptions.of(keyFor(prompt, options));
    ChatModelObservationContext context = ChatModelObservationContext.builder()
        .prompt(prompt).provider(OBSERVATION_PROVIDER).build();
    Observation observation = ChatModelObservationDocumentation.CHAT_MODEL_OPERATION
        .observation(observationConvention, DEFAULT_CONVENTION, () -> context,
            observationRegistry);
    // The blocking gateway stream runs as a task of its own on the scheduler rather than
    // through subscribeOn: cancelling the subscription then cancels the gateway stream through
    // its StreamControl (the provider stops, the call is accounted as cancelled) instead of
    // interrupting the thread the provider is reading on.
    Flux<ChatResponse> chunks = Flux.<ChatResponse>create(sink -> {
          try {
            scheduler.schedule(() -> runStream(request, callOptions, previous, sink, context));
          } catch (RuntimeException rejected) {
            sink.error(rejected);
          }
        }, FluxSink.OverflowStrategy.BUFFER)
        .doOnSubscribe(s -> observation.start())
        .doOnError(observation::error)
        .doFinally(s -> observation.stop());
    return chunks.concatMap(response -> {
      if (response.getMetadata().containsKey(METADATA_REQUEST_ID)
          && toolExecutionEligibilityPredicate.isToolExecutionRequired(options, response)) {
        return Flux.defer(() -> {
          ToolExecutionResult executed = toolCallingManager.executeToolCalls(prompt, response);
          if (executed.returnDirect()) {
            return Flux.just(ChatResponse.builder().from(response)
                .generations(ToolExecutionResult.buildGenerations(executed)).build());
          }
          return internalStream(new Prompt(executed.conversationHistory(), options), response);
        }).subscribeOn(scheduler);
      }
      return Flux.just(response);
    });
  }

  /** Runs one gateway stream on the scheduler's thread, feeding the sink. */
  private void runStream(ChatRequest request, CallOptions callOptions, ChatResponse previous,
      FluxSink<ChatResponse> sink, ChatModelObservationContext context) {
    AtomicReference<StreamControl> control = new AtomicReference<>();
    AtomicBoolean cancelled = new AtomicBoolean();
    sink.onCancel(() -> {
      cancelled.set(true);
      StreamControl c = control.get();
      if (c != null) {
        c.cancel();
      }
    });
    Translation.ToolCallAssembler toolCalls = new Translation.ToolCallAssembler();
    String[] finish = new String[1];
    StreamObserver observer = new StreamObserver() {
      @Override
      public void onStart(StreamControl c) {
        control.set(c);
        if (cancelled.get()) {
          c.cancel();
        }
      }

      @Override
      public void onChunk(ChatChunk chunk) {
        if (sink.isCancelled()) {
          StreamControl c = control.get();
          if (c != null) {
            c.cancel();
          }
          return;
        }
        for (ChunkChoice choice : chunk.choices()) {
          if (choice.finishReason() != null) {
            finish[0] = choice.finishReason();
          }
          if (choice.delta() == null) {
            continue;
          }
          toolCalls.add(choice.delta().toolCalls());
          String text = choice.delta().content();
          if (text != null && !text.isEmpty()) {
            sink.next(textChunk(chunk, text));
          }
        }
      }
    };
    ChatResult result;
    try {
      result = gateway.stream(request, callOptions, observer);
    } catch (PointsmanException e) {
      sink.error(Translation.error(e));
      return;
    } catch (RuntimeException e) {
      sink.error(e);
      return;
    }
    if (sink.isCancelled()) {
      return;
    }
    ChatResponseMetadata metadata = Translation.metadata(result,
        UsageCalculator.getCumulativeUsage(Translation.usage(result), previous));
    AssistantMessage message = AssistantMessage.builder().content("")
        .properties(Map.of("finishReason", finish[0] == null ? "" : finish[0]))
        .toolCalls(toolCalls.calls()).build();
    ChatGenerationMetadata.Builder generationMetadata = ChatGenerationMetadata.builder();
    if (finish[0] != null) {
      generationMetadata.finishReason(finish[0].toUpperCase(java.util.Locale.ROOT));
    }
    ChatResponse last = new ChatResponse(
        List.of(new Generation(message, generationMetadata.build())), metadata);
    context.setResponse(Translation.response(result, metadata.getUsage()));
    sink.next(last);
    sink.complete();
  }

  private static ChatResponse textChunk(ChatChunk chunk, String text) {
    AssistantMessage message = AssistantMessage.builder().content(text)
        .properties(chunk.id() == null ? Map.of() : Map.of("id", chunk.id())).build();
    ChatResponseMetadata.Builder meta = ChatResponseMetadata.builder();
    if (chunk.id() != null) {
      meta.id(chunk.id());
    }
    if (chunk.model() != null) {
      meta.model(chunk.model());
    }
    return new ChatResponse(List.of(new Generation(message)), meta.build());
  }

  private List<ToolDefinition> tools(PointsmanChatOptions options) {
    if (options.getToolCallbacks().isEmpty() && options.getToolNames().isEmpty()) {
      return List.of();
    }
    return toolCallingManager.resolveToolDefinitions(options);
  }

  private String keyFor(Prompt prompt, PointsmanChatOptions options) {
    if (options.getVirtualKey() != null) {
      return options.getVirtualKey();
    }
    String key = keys.keyFor(prompt);
    if (key == null) {
      throw new IllegalStateException("no virtual key for the call: set "
          + "PointsmanChatOptions.virtualKey or give the model CallerKeys that name one");
    }
    return key;
  }

  /** Builds a {@link PointsmanChatModel}. */
  public static final class Builder {
    private final Gateway gateway;
    private CallerKeys keys = prompt -> null;
    private String defaultModel;
    private PointsmanChatOptions defaultOptions;
    private ToolCallingManager toolCallingManager;
    private ToolExecutionEligibilityPredicate toolExecutionEligibilityPredicate =
        new DefaultToolExecutionEligibilityPredicate();
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private ChatModelObservationConvention observationConvention;
    private Scheduler scheduler = Schedulers.boundedElastic();

    private Builder(Gateway gateway) {
      this.gateway = Objects.requireNonNull(gateway, "gateway");
    }

    /**
     * Sets how a call's virtual key is found when its options name none. Without it, every
     * call must carry {@link PointsmanChatOptions#getVirtualKey() a virtual key}.
     *
     * @param value the supplier ({@link CallerKeys#fixed(String)} for a single-tenant service)
     * @return this builder
     */
    public Builder keys(CallerKeys value) {
      this.keys = Objects.requireNonNull(value, "keys");
      return this;
    }

    /**
     * Sets the model of calls whose options name none (it wins over the default options'
     * model).
     *
     * @param value the model name or alias
     * @return this builder
     */
    public Builder defaultModel(String value) {
      this.defaultModel = Objects.requireNonNull(value, "defaultModel");
      return this;
    }

    /**
     * Sets the default options: every field a call's options leave unset takes its value here.
     *
     * @param value the options (copied)
     * @return this builder
     */
    public Builder defaultOptions(PointsmanChatOptions value) {
      this.defaultOptions = Objects.requireNonNull(value, "defaultOptions").copy();
      return this;
    }

    /**
     * Sets the manager that resolves and runs tools. The default is Spring AI's
     * {@code DefaultToolCallingManager} on the model's observation registry.
     *
     * @param value the manager
     * @return this builder
     */
    public Builder toolCallingManager(ToolCallingManager value) {
      this.toolCallingManager = Objects.requireNonNull(value, "toolCallingManager");
      return this;
    }

    /**
     * Sets what decides that the model runs a response's tool calls itself. The default runs
     * them when the response has tool calls and internal tool execution is not switched off.
     *
     * @param value the predicate
     * @return this builder
     */
    public Builder toolExecutionEligibilityPredicate(ToolExecutionEligibilityPredicate value) {
      this.toolExecutionEligibilityPredicate =
          Objects.requireNonNull(value, "toolExecutionEligibilityPredicate");
      return this;
    }

    /**
     * Sets the registry of Spring AI's chat model observations. The default records none.
     *
     * @param value the registry
     * @return this builder
     */
    public Builder observationRegistry(ObservationRegistry value) {
      this.observationRegistry = Objects.requireNonNull(value, "observationRegistry");
      return this;
    }

    /**
     * Sets the convention of the chat model observations (Spring AI's default when unset).
     *
     * @param value the convention
     * @return this builder
     */
    public Builder observationConvention(ChatModelObservationConvention value) {
      this.observationConvention = Objects.requireNonNull(value, "observationConvention");
      return this;
    }

    /**
     * Sets the scheduler a stream runs on (one worker for the stream's length). The default is
     * {@link Schedulers#boundedElastic()}.
     *
     * @param value the scheduler
     * @return this builder
     */
    public Builder scheduler(Scheduler value) {
      this.scheduler = Objects.requireNonNull(value, "scheduler");
      return this;
    }

    /**
     * Builds the model.
     *
     * @return the model
     */
    public PointsmanChatModel build() {
      return new PointsmanChatModel(this);
    }
  }
}
