package io.pointsman.opentelemetry;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.metrics.DoubleHistogram;
import io.opentelemetry.api.metrics.LongHistogram;
import io.opentelemetry.api.metrics.Meter;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.pointsman.CacheStatus;
import io.pointsman.CallListener;
import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;

/**
 * OpenTelemetry spans and metrics from the gateway's per-call events ({@link CallListener}),
 * following the OpenTelemetry semantic conventions for generative AI clients, the ones Spring
 * AI, Bifrost, TensorZero and Envoy AI Gateway emit:
 *
 * <ul>
 *   <li>one {@code CLIENT} span per call named {@code {gen_ai.operation.name}
 *       {gen_ai.request.model}} ({@code chat gpt-4o-mini}), with {@code gen_ai.operation.name},
 *       {@code gen_ai.request.model}, {@code gen_ai.response.model}, {@code gen_ai.provider.name},
 *       {@code gen_ai.response.id}, {@code gen_ai.response.finish_reasons}, the request's
 *       {@code gen_ai.request.temperature}, {@code top_p}, {@code max_tokens} and {@code seed},
 *       {@code gen_ai.usage.input_tokens}, {@code gen_ai.usage.output_tokens},
 *       {@code gen_ai.usage.cache_read.input_tokens}, {@code gen_ai.usage.reasoning.output_tokens},
 *       for a stream {@code gen_ai.response.time_to_first_chunk} (seconds), {@code error.type} on
 *       failure, and the gateway's own {@code pointsman.*} attributes (outcome, cost, cache
 *       outcome, deciding stage and rule, attempts); each provider attempt is a span event;
 *   <li>the histograms {@code gen_ai.client.operation.duration} (s) and
 *       {@code gen_ai.client.token.usage} ({@code {token}}, attribute {@code gen_ai.token.type}
 *       {@code input} or {@code output}), with the bucket boundaries the conventions advise, and
 *       {@code gen_ai.client.operation.time_to_first_chunk} (s) for streams.
 * </ul>
 *
 * <p>Prompts and completions are recorded ({@code gen_ai.input.messages},
 * {@code gen_ai.output.messages}) only when content capture is switched on, as the conventions
 * require it to be opt-in: by {@link #captureContent(boolean)} or the environment variable
 * {@value #CAPTURE_CONTENT_ENV} set to {@code true}. Off by default.
 *
 * <pre>{@code
 * Gateway gateway = Gateway.builder()
 *     // authenticator, models, provider, deployments ...
 *     .listener(OpenTelemetryCallListener.of(GlobalOpenTelemetry.get()))
 *     .build();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class OpenTelemetryCallListener implements CallListener.Factory {
  /** The environment variable of the conventions' opt-in to capturing message content. */
  public static final String CAPTURE_CONTENT_ENV =
      "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

  static final AttributeKey<String> OPERATION = AttributeKey.stringKey("gen_ai.operation.name");
  static final AttributeKey<String> PROVIDER = AttributeKey.stringKey("gen_ai.provider.name");
  static final AttributeKey<String> REQUEST_MODEL =
      AttributeKey.stringKey("gen_ai.request.model");
  static final AttributeKey<String> RESPONSE_MODEL =
      AttributeKey.stringKey("gen_ai.response.model");
  static final AttributeKey<String> RESPONSE_ID = AttributeKey.stringKey("gen_ai.response.id");
  static final AttributeKey<List<String>> FINISH_REASONS =
      AttributeKey.stringArrayKey("gen_ai.response.finish_reasons");
  static final AttributeKey<Double> TEMPERATURE =
      AttributeKey.doubleKey("gen_ai.request.temperature");
  static final AttributeKey<Double> TOP_P = AttributeKey.doubleKey("gen_ai.request.top_p");
  static final AttributeKey<Long> MAX_TOKENS = AttributeKey.longKey("gen_ai.request.max_tokens");
  static final AttributeKey<Long> SEED = AttributeKey.longKey("gen_ai.request.seed");
  static final AttributeKey<Long> INPUT_TOKENS = AttributeKey.longKey("gen_ai.usage.input_tokens");
  static final AttributeKey<Long> OUTPUT_TOKENS =
      AttributeKey.longKey("gen_ai.usage.output_tokens");
  static final AttributeKey<Long> CACHE_READ_TOKENS =
      AttributeKey.longKey("gen_ai.usage.cache_read.input_tokens");
  static final AttributeKey<Long> REASONING_TOKENS =
      AttributeKey.longKey("gen_ai.usage.reasoning.output_tokens");
  static final AttributeKey<Double> TIME_TO_FIRST_CHUNK =
      AttributeKey.doubleKey("gen_ai.response.time_to_first_chunk");
  static final AttributeKey<String> TOKEN_TYPE = AttributeKey.stringKey("gen_ai.token.type");
  static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
  static final AttributeKey<String> INPUT_MESSAGES =
      AttributeKey.stringKey("gen_ai.input.messages");
  static final AttributeKey<String> OUTPUT_MESSAGES =
      AttributeKey.stringKey("gen_ai.output.messages");
  static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("pointsman.outcome");
  static final AttributeKey<Long> COST = AttributeKey.longKey("pointsman.cost_micros");
  static final AttributeKey<Boolean> COST_ESTIMATED =
      AttributeKey.booleanKey("pointsman.cost_estimated");
  static final AttributeKey<String> CACHE = AttributeKey.stringKey("pointsman.cache.outcome");
  static final AttributeKey<String> DECIDED_BY = AttributeKey.stringKey("pointsman.decided_by");
  static final AttributeKey<String> RULE = AttributeKey.stringKey("pointsman.rule");
  static final AttributeKey<Long> ATTEMPTS = AttributeKey.longKey("pointsman.attempts");
  static final AttributeKey<String> DEPLOYMENT = AttributeKey.stringKey("pointsman.deployment");
  static final AttributeKey<String> EVENT_ID = AttributeKey.stringKey("pointsman.event_id");

  private static final String CHAT = "chat";
  private static final String EMBEDDINGS = "embeddings";
  private static final List<Double> DURATION_BUCKETS = List.of(0.01, 0.02, 0.04, 0.08, 0.16,
      0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92);
  private static final List<Long> TOKEN_BUCKETS = List.of(1L, 4L, 16L, 64L, 256L, 1024L, 4096L,
      16384L, 65536L, 262144L, 1048576L, 4194304L, 16777216L, 67108864L);

  private final Tracer tracer;
  private final DoubleHistogram duration;
  private final DoubleHistogram firstChunk;
  private final LongHistogram tokens;
  private final boolean captureContent;

  private OpenTelemetryCallListener(OpenTelemetry otel, boolean captureContent) {
    this.tracer = otel.getTracer("io.pointsman");
    Meter meter = otel.getMeter("io.pointsman");
    this.duration = meter.histogramBuilder("gen_ai.client.operation.duration").setUnit("s")
        .setDescription("GenAI operation duration")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS).build();
    this.firstChunk = meter.histogramBuilder("gen_ai.client.operation.time_to_first_chunk")
        .setUnit("s").setDescription("Time to the first chunk of a streamed GenAI operation")
        .setExplicitBucketBoundariesAdvice(DURATION_BUCKETS).build();
    this.tokens = meter.histogramBuilder("gen_ai.client.token.usage").ofLongs()
        .setUnit("{token}").setDescription("Number of input and output tokens used")
        .setExplicitBucketBoundariesAdvice(TOKEN_BUCKETS).build();
    this.captureContent = captureContent;
  }

  /**
   * Returns the bridge; content is captured only when {@value #CAPTURE_CONTENT_ENV} is
   * {@code true} in the environment.
   *
   * @param otel the OpenTelemetry instance whose tracer and meter are used
   * @return the listener factory
   * @throws NullPointerException if otel is null
   */
  public static OpenTelemetryCallListener of(OpenTelemetry otel) {
    Objects.requireNonNull(otel, "otel");
    return new OpenTelemetryCallListener(otel,
        Boolean.parseBoolean(System.getenv(CAPTURE_CONTENT_ENV)));
  }

  /**
   * Returns a bridge like this one that captures message content, or does not, whatever the
   * environment says.
   *
   * @param value whether prompts and completions are recorded on spans
   * @return the listener factory
   */
  public OpenTelemetryCallListener captureContent(boolean value) {
    return new OpenTelemetryCallListener(this, value);
  }

  private OpenTelemetryCallListener(OpenTelemetryCallListener other, boolean captureContent) {
    this.tracer = other.tracer;
    this.duration = other.duration;
    this.firstChunk = other.firstChunk;
    this.tokens = other.tokens;
    this.captureContent = captureContent;
  }

  /**
   * Returns whether message content is captured.
   *
   * @return true when prompts and completions are recorded
   */
  public boolean capturesContent() {
    return captureContent;
  }

  @Override
  public CallListener create(CallListener.CallStart start) {
    return new Listener(start);
  }

  private final class Listener implements CallListener {
    private final CallListener.CallStart start;
    private final Span span;
    /** The GenAI operation: {@code chat}, or {@code embeddings} for an embeddings call. */
    private final String operation;
    private final long startNanos = System.nanoTime();
    private String provider;
    private String resolvedModel;
    private CacheStatus cache;

    Listener(CallListener.CallStart start) {
      this.start = start;
      ChatRequest r = start.request();
      this.operation = r == null ? EMBEDDINGS : CHAT;
      String model = start.requestedModel() == null ? "unknown" : start.requestedModel();
      this.span = tracer.spanBuilder(operation + " " + model).setSpanKind(SpanKind.CLIENT)
          .setStartTimestamp(start.startedAt()).setAttribute(OPERATION, operation)
          .setAttribute(REQUEST_MODEL, model).setAttribute(EVENT_ID, start.eventId())
          .startSpan();
      if (r == null) {
        // An embeddings call: no sampling parameters and no messages.
        return;
      }
      if (r.temperature() != null) {
        span.setAttribute(TEMPERATURE, r.temperature());
      }
      if (r.topP() != null) {
        span.setAttribute(TOP_P, r.topP());
      }
      Integer max = r.maxCompletionTokens() != null ? r.maxCompletionTokens() : r.maxTokens();
      if (max != null) {
        span.setAttribute(MAX_TOKENS, (long) max);
      }
      if (r.seed() != null) {
        span.setAttribute(SEED, r.seed().longValue());
      }
      if (captureContent) {
        span.setAttribute(INPUT_MESSAGES, Json.write(r.messages()));
      }
    }

    @Override
    public void modelResolved(io.pointsman.spi.ResolvedModel model) {
      resolvedModel = model.name();
    }

    @Override
    public void cacheOutcome(CacheStatus status) {
      cache = status;
    }

    @Override
    public void attemptStart(Deployment deployment, int attempt) {
      provider = deployment.provider();
    }

    @Override
    public void attemptEnd(Deployment deployment, int attempt, ProviderException failure,
        long nanos) {
      AttributesBuilder a = Attributes.builder().put(DEPLOYMENT, deployment.id())
          .put(PROVIDER, deployment.provider()).put(ATTEMPTS, (long) attempt);
      if (failure != null) {
        a.put(ERROR_TYPE, failure.status().name());
      }
      span.addEvent("pointsman.attempt", a.build());
    }

    @Override
    public void firstChunk(long nanosSinceStart) {
      double seconds = nanosSinceStart / 1e9;
      span.setAttribute(TIME_TO_FIRST_CHUNK, seconds);
      firstChunk.record(seconds, metricAttributes(null, null));
    }

    @Override
    public void callEnd(CallEnd end) {
      UsageRecord r = end.record();
      ChatResponse response = end.response();
      String responseModel = response != null && response.model() != null ? response.model()
          : resolvedModel;
      if (responseModel != null) {
        span.setAttribute(RESPONSE_MODEL, responseModel);
      }
      if (provider != null) {
        span.setAttribute(PROVIDER, provider);
      }
      if (response != null) {
        if (response.id() != null) {
          span.setAttribute(RESPONSE_ID, response.id());
        }
        List<String> reasons = new ArrayList<>();
        for (Choice c : response.choices()) {
          if (c != null && c.finishReason() != null) {
            reasons.add(c.finishReason());
          }
        }
        if (!reasons.isEmpty()) {
          span.setAttribute(FINISH_REASONS, reasons);
        }
        if (captureContent) {
          span.setAttribute(OUTPUT_MESSAGES, Json.write(response.choices()));
        }
      }
      if (cache != null) {
        span.setAttribute(CACHE, cache.outcome().name());
      }
      PointsmanException error = end.error();
      String errorType = error == null ? null : error.status().name();
      if (r != null) {
        span.setAttribute(OUTCOME, r.outcome().name());
        span.setAttribute(COST, r.costMicros());
        span.setAttribute(COST_ESTIMATED, r.costEstimated());
        span.setAttribute(ATTEMPTS, (long) r.attempts());
        if (r.deploymentId() != null) {
          span.setAttribute(DEPLOYMENT, r.deploymentId());
        }
        Usage usage = r.usage();
        if (usage != null) {
          span.setAttribute(INPUT_TOKENS, usage.promptTokens());
          span.setAttribute(OUTPUT_TOKENS, usage.completionTokens());
          span.setAttribute(CACHE_READ_TOKENS, usage.cachedTokens());
          long reasoning = reasoningTokens(usage);
          if (reasoning >= 0) {
            span.setAttribute(REASONING_TOKENS, reasoning);
          }
        }
      }
      if (error != null) {
        span.setAttribute(ERROR_TYPE, errorType);
        span.setAttribute(DECIDED_BY, error.stage());
        if (error.rule() != null) {
          span.setAttribute(RULE, error.rule());
        }
        span.setStatus(StatusCode.ERROR, error.getMessage());
      }
      Attributes metric = metricAttributes(responseModel, errorType);
      duration.record((System.nanoTime() - startNanos) / 1e9, metric);
      if (r != null && r.usage() != null) {
        tokens.record(r.usage().promptTokens(), metric.toBuilder().put(TOKEN_TYPE, "input")
            .build());
        tokens.record(r.usage().completionTokens(), metric.toBuilder()
            .put(TOKEN_TYPE, "output").build());
      }
      span.end(System.nanoTime() - startNanos + epochNanos(start), TimeUnit.NANOSECONDS);
    }

    private Attributes metricAttributes(String responseModel, String errorType) {
      AttributesBuilder a = Attributes.builder().put(OPERATION, operation)
          .put(REQUEST_MODEL, start.requestedModel() == null ? "unknown"
              : start.requestedModel());
      if (provider != null) {
        a.put(PROVIDER, provider);
      }
      if (responseModel != null) {
        a.put(RESPONSE_MODEL, responseModel);
      }
      if (errorType != null) {
        a.put(ERROR_TYPE, errorType);
      }
      return a.build();
    }
  }

  private static long epochNanos(CallListener.CallStart start) {
    return TimeUnit.SECONDS.toNanos(start.startedAt().getEpochSecond())
        + start.startedAt().getNano();
  }

  /** Reasoning tokens from {@code completion_tokens_details.reasoning_tokens}, or -1. */
  private static long reasoningTokens(Usage usage) {
    JsonNode details = usage.completionTokensDetails();
    if (details == null) {
      return -1;
    }
    JsonNode n = details.get("reasoning_tokens");
    return n != null && n.canConvertToLong() ? n.asLong() : -1;
  }
}
