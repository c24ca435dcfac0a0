package io.pointsman.opentelemetry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.metrics.SdkMeterProvider;
import io.opentelemetry.sdk.metrics.data.HistogramPointData;
import io.opentelemetry.sdk.metrics.data.MetricData;
import io.opentelemetry.sdk.testing.exporter.InMemoryMetricReader;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.util.Collection;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenTelemetryCallListenerTest {
  private static final String KEY = "pm-otel-key";
  private static final String POOR = "pm-otel-poor";
  private final InMemorySpanExporter spans = InMemorySpanExporter.create();
  private final InMemoryMetricReader metrics = InMemoryMetricReader.create();
  private final OpenTelemetrySdk otel = OpenTelemetrySdk.builder()
      .setTracerProvider(SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(spans)).build())
      .setMeterProvider(SdkMeterProvider.builder().registerMetricReader(metrics).build())
      .build();

  @AfterEach
  void close() {
    otel.close();
  }

  private Gateway gateway(OpenTelemetryCallListener listener) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("rich").build());
    keys.addKey(POOR, KeySpec.builder("k2").team("poor").build());
    return Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini").aliases("mini")
            .price(Price.of(150_000, 600_000)).build())
            .model(ModelSpec.builder("text-embedding-3-small").contextWindow(8_191)
                .maxOutputTokens(1).capabilities(ModelSpec.EMBEDDINGS)
                .price(Price.of(20_000, 0)).build()).build())
        .limiter(InMemoryLimiter.builder().budget(Scope.team("poor"), 1).build())
        .provider("openai", FixtureProvider.builder().streamChunks(4).build())
        .deployment(Deployment.of("oai", "openai", "gpt-4o-mini"))
        .deployment(Deployment.of("oai-embed", "openai", "text-embedding-3-small"))
        .listener(listener)
        .build();
  }

  private Gateway gateway() {
    return gateway(OpenTelemetryCallListener.of(otel).captureContent(false));
  }

  private static ChatRequest ask(String text) {
    return ChatRequest.builder().model("mini").addMessage(Message.user(text))
        .temperature(0.0).maxTokens(64).build();
  }

  private MetricData metric(String name) {
    Collection<MetricData> all = metrics.collectAllMetrics();
    return all.stream().filter(m -> m.getName().equals(name)).findFirst()
        .orElseThrow(() -> new AssertionError("no metric " + name + " in " + all));
  }

  private static <T> T attr(SpanData span, String key, Class<T> type) {
    return span.getAttributes().asMap().entrySet().stream()
        .filter(e -> e.getKey().getKey().equals(key)).map(e -> type.cast(e.getValue()))
        .findFirst().orElse(null);
  }

  @Test
  void anEmbeddingsCallIsAnEmbeddingsSpanAndMetric() {
    try (Gateway gateway = gateway()) {
      gateway.embed(io.pointsman.model.EmbeddingRequest.builder()
          .model("text-embedding-3-small").input("a", "b").build(), CallOptions.of(KEY));
      assertThat(gateway.listenerFailures()).isZero();
    }
    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getName()).isEqualTo("embeddings text-embedding-3-small");
    assertThat(attr(span, "gen_ai.operation.name", String.class)).isEqualTo("embeddings");
    assertThat(attr(span, "gen_ai.request.temperature", Double.class)).isNull();
    assertThat(attr(span, "gen_ai.usage.input_tokens", Long.class)).isPositive();
    assertThat(attr(span, "pointsman.outcome", String.class)).isEqualTo("SUCCESS");
    HistogramPointData point = metric("gen_ai.client.operation.duration").getHistogramData()
        .getPoints().iterator().next();
    assertThat(point.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")))
        .isEqualTo("embeddings");
  }

  @Test
  void aPlainCallIsOneClientSpanAndTwoMetricsByTheirGenAiNames() {
    gateway().chat(ask("hello"), CallOptions.of(KEY));

    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(span.getName()).isEqualTo("chat mini");
    assertThat(span.getKind()).isEqualTo(SpanKind.CLIENT);
    assertThat(attr(span, "gen_ai.operation.name", String.class)).isEqualTo("chat");
    assertThat(attr(span, "gen_ai.request.model", String.class)).isEqualTo("mini");
    assertThat(attr(span, "gen_ai.response.model", String.class)).isEqualTo("gpt-4o-mini");
    assertThat(attr(span, "gen_ai.provider.name", String.class)).isEqualTo("openai");
    assertThat(attr(span, "gen_ai.request.temperature", Double.class)).isEqualTo(0.0);
    assertThat(attr(span, "gen_ai.request.max_tokens", Long.class)).isEqualTo(64L);
    assertThat(attr(span, "gen_ai.usage.input_tokens", Long.class)).isPositive();
    assertThat(attr(span, "gen_ai.usage.output_tokens", Long.class)).isPositive();
    assertThat(attr(span, "gen_ai.usage.cache_read.input_tokens", Long.class)).isZero();
    assertThat(span.getAttributes().get(AttributeKey.stringArrayKey(
        "gen_ai.response.finish_reasons"))).isNotEmpty();
    assertThat(attr(span, "pointsman.outcome", String.class)).isEqualTo("SUCCESS");
    assertThat(attr(span, "pointsman.cost_micros", Long.class)).isPositive();
    assertThat(attr(span, "gen_ai.input.messages", String.class)).as("content is opt-in")
        .isNull();
    assertThat(span.getEvents()).singleElement()
        .satisfies(e -> assertThat(e.getName()).isEqualTo("pointsman.attempt"));

    MetricData duration = metric("gen_ai.client.operation.duration");
    assertThat(duration.getUnit()).isEqualTo("s");
    HistogramPointData point = duration.getHistogramData().getPoints().iterator().next();
    assertThat(point.getCount()).isEqualTo(1);
    assertThat(point.getAttributes().get(AttributeKey.stringKey("gen_ai.operation.name")))
        .isEqualTo("chat");
    assertThat(point.getBoundaries()).startsWith(0.01, 0.02, 0.04);

    MetricData usage = metric("gen_ai.client.token.usage");
    assertThat(usage.getUnit()).isEqualTo("{token}");
    assertThat(usage.getHistogramData().getPoints()).extracting(p -> p.getAttributes()
        .get(AttributeKey.stringKey("gen_ai.token.type")))
        .containsExactlyInAnyOrder("input", "output");
  }

  @Test
  void aStreamRecordsItsTimeToFirstChunk() {
    gateway().stream(ask("stream"), CallOptions.of(KEY), chunk -> {});

    SpanData span = spans.getFinishedSpanItems().get(0);
    Double ttfc = attr(span, "gen_ai.response.time_to_first_chunk", Double.class);
    assertThat(ttfc).isNotNull().isNotNegative();
    assertThat(metric("gen_ai.client.operation.time_to_first_chunk").getHistogramData()
        .getPoints().iterator().next().getCount()).isEqualTo(1);
  }

  @Test
  void aCacheHitAndADenialAreSpansWithTheirOutcome() {
    Gateway gateway = gateway();
    gateway.chat(ask("twice"), CallOptions.of(KEY));
    gateway.chat(ask("twice"), CallOptions.of(KEY));
    assertThatThrownBy(() -> gateway.chat(ask("over budget"), CallOptions.of(POOR)))
        .isInstanceOf(PointsmanException.class);

    List<SpanData> finished = spans.getFinishedSpanItems();
    assertThat(finished).hasSize(3);
    SpanData hit = finished.get(1);
    assertThat(attr(hit, "pointsman.cache.outcome", String.class)).isEqualTo("HIT");
    assertThat(attr(hit, "pointsman.outcome", String.class)).isEqualTo("CACHE_HIT");
    assertThat(hit.getEvents()).as("no provider attempt").isEmpty();

    SpanData denied = finished.get(2);
    assertThat(denied.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
    assertThat(attr(denied, "error.type", String.class)).isEqualTo("PAYMENT_REQUIRED");
    assertThat(attr(denied, "pointsman.decided_by", String.class))
        .isEqualTo("ratelimit.reserve");
    assertThat(attr(denied, "pointsman.outcome", String.class)).isEqualTo("REJECTED");
    assertThat(metric("gen_ai.client.operation.duration").getHistogramData().getPoints())
        .anySatisfy(p -> assertThat(p.getAttributes().get(AttributeKey.stringKey("error.type")))
            .isEqualTo("PAYMENT_REQUIRED"));
  }

  @Test
  void contentIsCapturedOnlyWhenOptedIn() {
    gateway(OpenTelemetryCallListener.of(otel).captureContent(true))
        .chat(ask("a secret prompt"), CallOptions.of(KEY));

    SpanData span = spans.getFinishedSpanItems().get(0);
    assertThat(attr(span, "gen_ai.input.messages", String.class)).contains("a secret prompt");
    assertThat(attr(span, "gen_ai.output.messages", String.class)).isNotBlank();
  }
}
