package io.pointsman.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.PartialResponse;
import dev.langchain4j.model.chat.response.PartialResponseContext;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import dev.langchain4j.service.AiServices;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The adapter through a real durable gateway: the file journal in a temporary directory, the
 * PostgreSQL ledger on a database of its own, the in-process fixture provider and, for tool
 * calls, an OpenAI provider over the loopback HTTP fixture. Each call is followed by the ledger
 * rows it produced, read from PostgreSQL after closing the gateway drained the journal.
 *
 * <p>Prices: 1 micro-unit per input token and 2 per output token, so a row's cost is
 * {@code prompt + 2 × completion}.
 */
class DurableGatewayTest {
  private static final String APP_KEY = "pm-lc4j-app-key-0001";
  private static final String TRIAL_KEY = "pm-lc4j-trial-key-0001";
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path journal;

  private TestDatabase db;
  private HttpFixtureServer http;
  private FixtureProvider fixture;
  private final List<io.pointsman.model.ChatRequest> fixtureRequests =
      new CopyOnWriteArrayList<>();
  private Gateway gateway;

  @BeforeEach
  void start() {
    db = TestDatabases.server().createDatabase();
    http = HttpFixtureServer.start();
    fixture = FixtureProvider.builder().streamChunks(8).chunkInterval(Duration.ofMillis(20))
        .recordCalls(true)
        .reply(request -> request.responseFormat() != null
            ? "{\"city\":\"Oslo\",\"temperature\":21}" : FixtureProvider.defaultReply(request))
        .onSend(call -> fixtureRequests.add(call.request()))
        .build();
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(APP_KEY, KeySpec.builder("key-app").team("checkout").build());
    keys.addKey(TRIAL_KEY, KeySpec.builder("key-trial").team("trial").build());
    Price price = Price.of(1_000_000, 2_000_000);
    gateway = Gateway.builder()
        .authenticator(keys)
        .models(ModelCatalog.builder()
            .model(ModelSpec.builder("gpt-4o-mini").price(price).build())
            .model(ModelSpec.builder("tool-mini").price(price).build())
            .build())
        .limiter(CounterLimiter.builder(new InProcessCounterStore())
            .budget(Scope.team("trial"), 500).build())
        .provider("fixture", fixture)
        .provider("http", OpenAiProvider.builder().baseUri(http.uri())
            .credential(Credential.of("sk-fixture")).build())
        .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
        .deployment(Deployment.of("http-mini", "http", "tool-mini"))
        .journal(JournalAccounting.at(journal))
        .ledger(PostgresLedger.of(db.dataSource()))
        .build();
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    http.close();
    db.close();
  }

  /** One row of pointsman.ledger_entries. */
  record Row(String eventId, String keyId, String model, String deploymentId, String outcome,
      String status, int httpStatus, String decidedBy, String rule, Long promptTokens,
      Long completionTokens, long costMicros, boolean costEstimated, int attempts) {}

  /** Closes the gateway (draining the journal into PostgreSQL) and reads every row. */
  private List<Row> ledger() throws Exception {
    gateway.close();
    gateway = null;
    List<Row> rows = new ArrayList<>();
    try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
        "SELECT event_id, key_id, model, deployment_id, outcome, status, http_status,"
            + " decided_by, rule, prompt_tokens, completion_tokens, cost_micros,"
            + " cost_estimated, attempts FROM pointsman.ledger_entries"
            + " ORDER BY started_at, event_id");
        ResultSet rs = st.executeQuery()) {
      while (rs.next()) {
        rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4),
            rs.getString(5), rs.getString(6), rs.getInt(7), rs.getString(8), rs.getString(9),
            (Long) rs.getObject(10), (Long) rs.getObject(11), rs.getLong(12),
            rs.getBoolean(13), rs.getInt(14)));
      }
    }
    return rows;
  }

  private PointsmanChatModel chatModel(String model) {
    return PointsmanChatModel.builder(gateway).virtualKey(APP_KEY).defaultModel(model).build();
  }

  private static String eventId(ChatResponse response) {
    return ((PointsmanChatResponseMetadata) response.metadata()).eventId();
  }

  @Test
  void plainCallIsAnsweredAndRecordedWithItsTokensAndCost() throws Exception {
    ChatResponse response = chatModel("gpt-4o-mini").chat(ChatRequest.builder()
        .messages(UserMessage.from("What does a pointsman do?")).temperature(0.0).build());

    io.pointsman.model.ChatRequest sent = fixtureRequests.get(0);
    String expected = FixtureProvider.defaultReply(sent);
    io.pointsman.model.Usage usage = FixtureProvider.usageFor(sent, expected);
    assertThat(response.aiMessage().text()).isEqualTo(expected);
    assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(response.tokenUsage().inputTokenCount()).isEqualTo((int) usage.promptTokens());
    assertThat(response.tokenUsage().outputTokenCount())
        .isEqualTo((int) usage.completionTokens());
    assertThat(response.tokenUsage().totalTokenCount()).isEqualTo((int) usage.totalTokens());
    PointsmanChatResponseMetadata metadata = (PointsmanChatResponseMetadata) response.metadata();
    long cost = usage.promptTokens() + 2 * usage.completionTokens();
    assertThat(metadata.costMicros()).isEqualTo(cost);
    assertThat(sent.temperature()).isEqualTo(0.0);

    assertThat(ledger()).containsExactly(new Row(metadata.eventId(), "key-app", "gpt-4o-mini",
        "fixture-mini", "SUCCESS", "SETTLED", 200, null, null, usage.promptTokens(),
        usage.completionTokens(), cost, false, 1));
  }

  @Test
  void streamDeliversPartialsThenTheCompleteResponseAndIsRecorded() throws Exception {
    PointsmanStreamingChatModel model = PointsmanStreamingChatModel.builder(gateway)
        .virtualKey(APP_KEY).defaultModel("gpt-4o-mini").build();
    List<String> partials = new CopyOnWriteArrayList<>();
    List<String> threads = new CopyOnWriteArrayList<>();
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    String caller = Thread.currentThread().getName();

    model.chat("Stream me a reply", new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(String partial) {
        partials.add(partial);
        threads.add(Thread.currentThread().getName());
      }

      @Override
      public void onCompleteResponse(ChatResponse response) {
        done.complete(response);
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error);
      }
    });
    ChatResponse response = done.get(30, TimeUnit.SECONDS);

    io.pointsman.model.ChatRequest sent = fixtureRequests.get(0);
    String expected = FixtureProvider.defaultReply(sent);
    io.pointsman.model.Usage usage = FixtureProvider.usageFor(sent, expected);
    assertThat(partials).hasSize(8);
    assertThat(String.join("", partials)).isEqualTo(expected);
    assertThat(threads).allSatisfy(t -> assertThat(t).isNotEqualTo(caller)
        .startsWith("pointsman-langchain4j-stream-"));
    assertThat(response.aiMessage().text()).isEqualTo(expected);
    assertThat(response.finishReason()).isEqualTo(FinishReason.STOP);
    assertThat(response.tokenUsage().inputTokenCount()).isEqualTo((int) usage.promptTokens());
    assertThat(response.tokenUsage().outputTokenCount())
        .isEqualTo((int) usage.completionTokens());
    long cost = usage.promptTokens() + 2 * usage.completionTokens();

    assertThat(ledger()).containsExactly(new Row(eventId(response), "key-app", "gpt-4o-mini",
        "fixture-mini", "SUCCESS", "SETTLED", 200, null, null, usage.promptTokens(),
        usage.completionTokens(), cost, false, 1));
  }

  /** A tool the model calls. */
  static final class Weather {
    final List<String> cities = new CopyOnWriteArrayList<>();

    @Tool("Returns the temperature in a city, in degrees Celsius")
    int temperature(@P("the city") String city) {
      cities.add(city);
      return 21;
    }
  }

  interface Assistant {
    String chat(String message);
  }

  private static String completion(String messageJson, String finish, int prompt,
      int completion) {
    return "{\"id\":\"chatcmpl-fixture\",\"object\":\"chat.completion\",\"created\":0,"
        + "\"model\":\"tool-mini\",\"choices\":[{\"index\":0,\"message\":" + messageJson
        + ",\"finish_reason\":\"" + finish + "\"}],\"usage\":{\"prompt_tokens\":" + prompt
        + ",\"completion_tokens\":" + completion + ",\"total_tokens\":" + (prompt + completion)
        + "}}";
  }

  @Test
  void aiServicesToolCallRoundTripGoesThroughTheGatewayTwice() throws Exception {
    http.respondWith(request -> request.bodyText().contains("\"role\":\"tool\"")
        ? FixtureResponse.json(200, completion(
            "{\"role\":\"assistant\",\"content\":\"It is 21 degrees in Oslo.\"}", "stop", 60, 9))
        : FixtureResponse.json(200, completion("{\"role\":\"assistant\",\"content\":null,"
            + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
            + "\"temperature\",\"arguments\":\"{\\\"arg0\\\":\\\"Oslo\\\"}\"}}]}",
            "tool_calls", 40, 12)));
    Weather weather = new Weather();
    Assistant assistant = AiServices.builder(Assistant.class)
        .chatModel(chatModel("tool-mini")).tools(weather).build();

    String answer = assistant.chat("How warm is it in Oslo?");

    assertThat(answer).isEqualTo("It is 21 degrees in Oslo.");
    assertThat(weather.cities).containsExactly("Oslo");
    List<RecordedRequest> requests = http.requests();
    assertThat(requests).hasSize(2);
    JsonNode first = JSON.readTree(requests.get(0).bodyText());
    JsonNode tool = first.get("tools").get(0);
    assertThat(tool.get("type").asText()).isEqualTo("function");
    assertThat(tool.get("function").get("name").asText()).isEqualTo("temperature");
    assertThat(tool.get("function").get("parameters").get("properties").get("arg0")
        .get("type").asText()).isEqualTo("string");
    JsonNode second = JSON.readTree(requests.get(1).bodyText()).get("messages");
    assertThat(second).hasSize(3);
    assertThat(second.get(1).get("tool_calls").get(0).get("id").asText()).isEqualTo("call_1");
    assertThat(second.get(2).toString())
        .isEqualTo("{\"role\":\"tool\",\"content\":\"21\",\"tool_call_id\":\"call_1\"}");

    List<Row> rows = ledger();
    assertThat(rows).hasSize(2);
    assertThat(rows).extracting(Row::keyId, Row::model, Row::deploymentId, Row::outcome,
        Row::httpStatus, Row::promptTokens, Row::completionTokens, Row::costMicros,
        Row::costEstimated).containsExactly(
        org.assertj.core.groups.Tuple.tuple("key-app", "tool-mini", "http-mini", "SUCCESS", 200,
            40L, 12L, 40L + 24, false),
        org.assertj.core.groups.Tuple.tuple("key-app", "tool-mini", "http-mini", "SUCCESS", 200,
            60L, 9L, 60L + 18, false));
  }

  /** A structured answer. */
  record Forecast(String city, int temperature) {}

  interface Forecaster {
    Forecast forecast(String city);
  }

  @Test
  void aiServicesStructuredOutputAsksForTheJsonSchemaAndParsesTheAnswer() throws Exception {
    Forecaster forecaster = AiServices.builder(Forecaster.class)
        .chatModel(chatModel("gpt-4o-mini")).build();

    Forecast forecast = forecaster.forecast("Oslo");

    assertThat(forecast).isEqualTo(new Forecast("Oslo", 21));
    io.pointsman.model.ChatRequest sent = fixtureRequests.get(0);
    JsonNode format = sent.responseFormat();
    assertThat(format.get("type").asText()).isEqualTo("json_schema");
    JsonNode schema = format.get("json_schema").get("schema");
    assertThat(schema.get("properties").get("city").get("type").asText()).isEqualTo("string");
    assertThat(schema.get("properties").get("temperature").get("type").asText())
        .isEqualTo("integer");
    String reply = "{\"city\":\"Oslo\",\"temperature\":21}";
    io.pointsman.model.Usage usage = FixtureProvider.usageFor(sent, reply);

    List<Row> rows = ledger();
    assertThat(rows).extracting(Row::keyId, Row::outcome, Row::promptTokens,
        Row::completionTokens, Row::costMicros).containsExactly(
        org.assertj.core.groups.Tuple.tuple("key-app", "SUCCESS", usage.promptTokens(),
            usage.completionTokens(), usage.promptTokens() + 2 * usage.completionTokens()));
  }

  @Test
  void budgetRefusalIsANonRetriableBudgetExceptionWithoutAProviderCallAndIsRecorded()
      throws Exception {
    PointsmanChatModel model = chatModel("gpt-4o-mini");
    ChatRequest request = ChatRequest.builder()
        .messages(UserMessage.from("Write me a long essay"))
        .parameters(PointsmanChatRequestParameters.builder().virtualKey(TRIAL_KEY)
            .maxOutputTokens(4_000).build())
        .build();

    assertThatThrownBy(() -> model.chat(request))
        .isInstanceOf(BudgetExceededException.class)
        .isInstanceOf(dev.langchain4j.exception.NonRetriableException.class)
        .hasMessageStartingWith("budget exceeded: 402 PAYMENT_REQUIRED [ratelimit.reserve")
        .satisfies(e -> {
          PointsmanException cause = ((BudgetExceededException) e).refusal();
          assertThat(cause.status()).isEqualTo(Status.PAYMENT_REQUIRED);
          assertThat(cause.stage()).isEqualTo(Stages.RATELIMIT_RESERVE);
        });
    assertThat(fixture.sends()).as("no provider call").isZero();

    List<Row> rows = ledger();
    assertThat(rows).hasSize(1);
    Row row = rows.get(0);
    assertThat(row).extracting(Row::keyId, Row::model, Row::deploymentId, Row::outcome,
        Row::status, Row::httpStatus, Row::decidedBy, Row::promptTokens,
        Row::completionTokens, Row::costMicros, Row::costEstimated, Row::attempts)
        .containsExactly("key-trial", "gpt-4o-mini", null, "REJECTED", "SETTLED", 402,
            Stages.RATELIMIT_RESERVE, null, null, 0L, false, 0);
  }

  @Test
  void cancellingAStreamEndsTheGatewayCallAsCancelled() throws Exception {
    ExecutorService executor = Executors.newSingleThreadExecutor();
    PointsmanStreamingChatModel model = PointsmanStreamingChatModel.builder(gateway)
        .virtualKey(APP_KEY).defaultModel("gpt-4o-mini").executor(executor).build();
    List<String> partials = new CopyOnWriteArrayList<>();
    List<String> ends = new CopyOnWriteArrayList<>();

    model.chat("Stream me a reply I will not wait for", new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(PartialResponse partial, PartialResponseContext context) {
        partials.add(partial.text());
        context.streamingHandle().cancel();
        assertThat(context.streamingHandle().isCancelled()).isTrue();
      }

      @Override
      public void onCompleteResponse(ChatResponse response) {
        ends.add("complete");
      }

      @Override
      public void onError(Throwable error) {
        ends.add("error " + error);
      }
    });
    executor.shutdown();
    assertThat(executor.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    assertThat(partials).hasSize(1);
    assertThat(ends).as("a cancelled stream calls the handler no more").isEmpty();
    assertThat(fixture.sends()).isEqualTo(1);
    List<ProviderCall> calls = fixture.calls();
    io.pointsman.model.ChatRequest sent = calls.get(0).request();
    String full = FixtureProvider.defaultReply(sent);
    assertThat(full).startsWith(partials.get(0)).isNotEqualTo(partials.get(0));

    List<Row> rows = ledger();
    assertThat(rows).hasSize(1);
    Row row = rows.get(0);
    assertThat(row.outcome()).isEqualTo("CANCELLED");
    assertThat(row.status()).isEqualTo("SETTLED");
    assertThat(row.keyId()).isEqualTo("key-app");
    assertThat(row.costEstimated()).isTrue();
    assertThat(row.attempts()).isEqualTo(1);
    // No usage comes with a cancelled stream: the gateway charges its own count of the input
    // and of the one chunk streamed.
    assertThat(row.promptTokens()).isEqualTo(TokenBounds.upperBound(sent));
    assertThat(row.completionTokens()).isEqualTo(TokenBounds.count(partials.get(0)))
        .isLessThan(TokenBounds.count(full));
    assertThat(row.costMicros()).isEqualTo(row.promptTokens() + 2 * row.completionTokens());
  }
}
