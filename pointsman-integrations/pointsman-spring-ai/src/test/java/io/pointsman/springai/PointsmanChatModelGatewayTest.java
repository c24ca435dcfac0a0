package io.pointsman.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.LedgerPool;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.AdvisorParams;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.metadata.ChatResponseMetadata;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.function.FunctionToolCallback;
import reactor.core.Disposable;

/**
 * The Spring AI adapter through a real durable gateway (file journal, PostgreSQL ledger on a
 * test database, fixture providers): a plain call, a stream, a tool-call round trip (called and
 * streamed), structured output through {@code ChatClient.entity}, a budget refusal and a
 * cancelled stream, each followed by the ledger rows it produced, read from PostgreSQL.
 */
class PointsmanChatModelGatewayTest {
  private static final String PLAIN = "pm-springai-plain-0001";
  private static final String STREAM = "pm-springai-stream-0001";
  private static final String TOOL = "pm-springai-tool-0001";
  private static final String STREAM_TOOL = "pm-springai-stool-0001";
  private static final String ENTITY = "pm-springai-entity-0001";
  private static final String NATIVE = "pm-springai-native-0001";
  private static final String POOR = "pm-springai-poor-0001";
  private static final String CANCEL = "pm-springai-cancel-0001";
  private static final String OVERRIDE = "pm-springai-override-0001";
  private static final String RETURNED = "pm-springai-returned-0001";
  private static final String HISTORY = "pm-springai-history-0001";
  private static final String WEATHER_JSON = "{\"city\":\"Paris\",\"celsius\":21}";
  private static final int SLOW_CHUNKS = 40;

  private static TestDatabase db;
  private static Path journal;
  private static Gateway gateway;
  private static ScriptedProvider fast;
  private static ScriptedProvider slow;

  /** The structured answer. */
  record Weather(String city, int celsius) {}

  /** The tool's input. */
  record WeatherQuery(String city) {}

  @BeforeAll
  static void startGateway() throws Exception {
    db = TestDatabases.create();
    journal = Files.createTempDirectory("pointsman-springai-journal");
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    for (String[] k : new String[][] {{PLAIN, "k-plain"}, {STREAM, "k-stream"},
        {TOOL, "k-tool"}, {STREAM_TOOL, "k-stool"}, {ENTITY, "k-entity"},
        {NATIVE, "k-native"}, {POOR, "k-poor"}, {CANCEL, "k-cancel"},
        {OVERRIDE, "k-override"}, {RETURNED, "k-returned"}, {HISTORY, "k-history"}}) {
      keys.addKey(k[0], KeySpec.builder(k[1]).team("t1").build());
    }
    ModelCatalog catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("m").contextWindow(16_384).maxOutputTokens(1_000)
            .price(Price.of(1_000_000, 2_000_000)).build())
        .model(ModelSpec.builder("slow").contextWindow(16_384).maxOutputTokens(1_000)
            .price(Price.of(1_000_000, 2_000_000)).build())
        .build();
    fast = new ScriptedProvider(FixtureProvider.builder().reply(request -> {
      List<Message> messages = request.messages();
      Message last = messages.get(messages.size() - 1);
      if (last.role() == Role.TOOL) {
        return "Tool said: " + last.text();
      }
      boolean schema = request.responseFormat() != null
          || messages.stream().anyMatch(m -> m.text().contains("JSON Schema"));
      return schema ? WEATHER_JSON : FixtureProvider.defaultReply(request);
    }).build(), "{\"city\":\"Paris\"}");
    slow = new ScriptedProvider(FixtureProvider.builder().streamChunks(SLOW_CHUNKS)
        .chunkInterval(Duration.ofMillis(25))
        .reply(request -> "word ".repeat(SLOW_CHUNKS * 2)).build(), "{}");
    gateway = Gateway.builder()
        .authenticator(keys)
        .models(catalog)
        .limiter(CounterLimiter.builder(new InProcessCounterStore())
            .budget(Scope.key("k-poor"), 1).build())
        .provider("fast", fast)
        .provider("slow", slow)
        .deployment(Deployment.of("fast-m", "fast", "m"))
        .deployment(Deployment.of("slow-d", "slow", "slow"))
        .journal(JournalAccounting.at(journal))
        .ledger(PostgresLedger.of(LedgerPool.builder(db.jdbcUrl()).build()))
        .build();
  }

  @AfterAll
  static void stopGateway() throws Exception {
    if (gateway != null) {
      gateway.close();
    }
    if (db != null) {
      db.close();
    }
    if (journal != null) {
      try (var files = Files.walk(journal)) {
        for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  private static PointsmanChatModel model(String key) {
    return PointsmanChatModel.builder(gateway).keys(CallerKeys.fixed(key)).defaultModel("m")
        .build();
  }

  /** One ledger row, as read from PostgreSQL. */
  record Row(String eventId, String requestId, String keyId, String model, String outcome,
      String status, Integer httpStatus, Long promptTokens, Long completionTokens,
      long costMicros, boolean costEstimated) {}

  /** Waits until the ledger holds {@code count} rows of the key, and returns them by time. */
  private static List<Row> rows(String keyId, int count) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    List<Row> rows;
    do {
      rows = new ArrayList<>();
      try (Connection c = db.connect(); PreparedStatement st = c.prepareStatement(
          "SELECT event_id, request_id, key_id, model, outcome, status, http_status,"
              + " prompt_tokens, completion_tokens, cost_micros, cost_estimated"
              + " FROM pointsman.ledger_entries WHERE key_id = ? ORDER BY started_at")) {
        st.setString(1, keyId);
        try (ResultSet rs = st.executeQuery()) {
          while (rs.next()) {
            rows.add(new Row(rs.getString(1), rs.getString(2), rs.getString(3),
                rs.getString(4), rs.getString(5), rs.getString(6),
                (Integer) rs.getObject(7), (Long) rs.getObject(8), (Long) rs.getObject(9),
                rs.getLong(10), rs.getBoolean(11)));
          }
        }
      }
      if (rows.size() >= count) {
        break;
      }
      Thread.sleep(50);
    } while (System.nanoTime() < deadline);
    assertThat(rows).as("ledger rows of " + keyId).hasSize(count);
    return rows;
  }

  private static void assertRowMatches(Row row, ChatResponseMetadata metadata) {
    assertThat(row.eventId()).isEqualTo(metadata.get(PointsmanChatModel.METADATA_EVENT_ID));
    assertThat(row.requestId()).isEqualTo(metadata.get(PointsmanChatModel.METADATA_REQUEST_ID));
    assertThat(row.costMicros()).isEqualTo(
        (long) metadata.get(PointsmanChatModel.METADATA_COST_MICROS)).isPositive();
  }

  @Test
  void aPlainCallAnswersWithUsageFinishReasonAndRequestIdAndIsSettledInTheLedger()
      throws Exception {
    ChatResponse response = model(PLAIN).call(new Prompt("What does a pointsman do?"));

    String text = response.getResult().getOutput().getText();
    assertThat(text).startsWith("Fixture reply ").endsWith("to 1 message(s).");
    assertThat(response.getResult().getMetadata().getFinishReason()).isEqualTo("STOP");
    ChatResponseMetadata metadata = response.getMetadata();
    assertThat(metadata.getModel()).isEqualTo("m");
    assertThat(metadata.getUsage().getPromptTokens()).isPositive();
    assertThat(metadata.getUsage().getCompletionTokens()).isEqualTo((text.length() + 3) / 4);
    assertThat(metadata.getUsage().getTotalTokens()).isEqualTo(
        metadata.getUsage().getPromptTokens() + metadata.getUsage().getCompletionTokens());
    assertThat(metadata.getUsage().getNativeUsage()).isInstanceOf(io.pointsman.model.Usage.class);
    assertThat((String) metadata.get(PointsmanChatModel.METADATA_REQUEST_ID)).isNotBlank();
    assertThat((String) metadata.get(PointsmanChatModel.METADATA_OUTCOME)).isEqualTo("SUCCESS");

    Row row = rows("k-plain", 1).get(0);
    assertRowMatches(row, metadata);
    assertThat(row.outcome()).isEqualTo("SUCCESS");
    assertThat(row.status()).isEqualTo("SETTLED");
    assertThat(row.model()).isEqualTo("m");
    assertThat(row.promptTokens()).isEqualTo((long) metadata.getUsage().getPromptTokens());
    assertThat(row.completionTokens())
        .isEqualTo((long) metadata.getUsage().getCompletionTokens());
    assertThat(row.costMicros()).isEqualTo(row.promptTokens() + 2 * row.completionTokens());
  }

  @Test
  void aStreamDeliversTheTextInChunksThenUsageAndIsSettledInTheLedger() throws Exception {
    List<ChatResponse> responses = model(STREAM).stream(new Prompt("Stream me a reply."))
        .collectList().block(Duration.ofSeconds(30));

    assertThat(responses).hasSizeGreaterThan(1);
    String text = responses.stream().map(r -> r.getResult().getOutput().getText())
        .collect(Collectors.joining());
    assertThat(text).startsWith("Fixture reply ").endsWith("to 1 message(s).");
    ChatResponse last = responses.get(responses.size() - 1);
    assertThat(last.getResult().getMetadata().getFinishReason()).isEqualTo("STOP");
    ChatResponseMetadata metadata = last.getMetadata();
    assertThat(metadata.getUsage().getPromptTokens()).isPositive();
    assertThat(metadata.getUsage().getCompletionTokens()).isPositive();

    Row row = rows("k-stream", 1).get(0);
    assertRowMatches(row, metadata);
    assertThat(row.outcome()).isEqualTo("SUCCESS");
    assertThat(row.status()).isEqualTo("SETTLED");
    assertThat(row.promptTokens()).isEqualTo((long) metadata.getUsage().getPromptTokens());
    assertThat(row.completionTokens())
        .isEqualTo((long) metadata.getUsage().getCompletionTokens());
  }

  private static ToolCallback weatherTool(List<String> cities) {
    return FunctionToolCallback.<WeatherQuery, String>builder("weather", q -> {
      cities.add(q.city());
      return "18 degrees in " + q.city();
    }).description("The current weather of a city").inputType(WeatherQuery.class).build();
  }

  @Test
  void aToolCallRoundTripRunsTheToolAndSendsItsResultBackThroughTheGateway()
      throws Exception {
    List<String> cities = new ArrayList<>();
    int before = fast.requests.size();
    PointsmanChatOptions options = PointsmanChatOptions.builder()
        .toolCallbacks(weatherTool(cities)).build();

    ChatResponse response = model(TOOL).call(new Prompt("Weather in Paris?", options));

    assertThat(cities).containsExactly("Paris");
    assertThat(response.getResult().getOutput().getText())
        .isEqualTo("Tool said: 18 degrees in Paris");
    List<ChatRequest> sent = fast.requests.subList(before, fast.requests.size());
    assertThat(sent).hasSize(2);
    assertThat(sent.get(0).tools()).hasSize(1);
    assertThat(sent.get(0).tools().get(0).function().get("name").asText()).isEqualTo("weather");
    assertThat(sent.get(0).tools().get(0).function().at("/parameters/properties/city/type")
        .asText()).isEqualTo("string");
    List<Message> second = sent.get(1).messages();
    assertThat(second).extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL);
    assertThat(second.get(1).toolCalls()).singleElement().satisfies(c -> {
      assertThat(c.function().name()).isEqualTo("weather");
      assertThat(c.function().arguments()).isEqualTo("{\"city\":\"Paris\"}");
      assertThat(second.get(2).toolCallId()).isEqualTo(c.id());
    });

    List<Row> rows = rows("k-tool", 2);
    assertThat(rows).extracting(Row::outcome).containsExactly("SUCCESS", "SUCCESS");
    assertRowMatches(rows.get(1), response.getMetadata());
    // The usage Spring AI sees is the whole loop's: both gateway calls.
    assertThat((long) response.getMetadata().getUsage().getPromptTokens())
        .isEqualTo(rows.get(0).promptTokens() + rows.get(1).promptTokens());
    assertThat((long) response.getMetadata().getUsage().getCompletionTokens())
        .isEqualTo(rows.get(0).completionTokens() + rows.get(1).completionTokens());
  }

  @Test
  void aStreamedToolCallIsAssembledRunAndAnsweredInASecondStream() throws Exception {
    List<String> cities = new ArrayList<>();
    int before = fast.requests.size();
    PointsmanChatOptions options = PointsmanChatOptions.builder()
        .toolCallbacks(weatherTool(cities)).build();

    List<ChatResponse> responses = model(STREAM_TOOL)
        .stream(new Prompt("Weather in Paris?", options))
        .collectList().block(Duration.ofSeconds(30));

    assertThat(cities).containsExactly("Paris");
    String text = responses.stream().map(r -> r.getResult().getOutput().getText())
        .collect(Collectors.joining());
    assertThat(text).isEqualTo("Tool said: 18 degrees in Paris");
    assertThat(fast.requests.subList(before, fast.requests.size())).hasSize(2);
    List<Row> rows = rows("k-stool", 2);
    assertThat(rows).extracting(Row::outcome).containsExactly("SUCCESS", "SUCCESS");
    ChatResponseMetadata metadata = responses.get(responses.size() - 1).getMetadata();
    assertRowMatches(rows.get(1), metadata);
    assertThat((long) metadata.getUsage().getPromptTokens())
        .isEqualTo(rows.get(0).promptTokens() + rows.get(1).promptTokens());
  }

  @Test
  void returningToolCallsToTheCallerLeavesTheLoopToIt() throws Exception {
    List<String> cities = new ArrayList<>();
    PointsmanChatOptions options = PointsmanChatOptions.builder()
        .toolCallbacks(weatherTool(cities)).internalToolExecutionEnabled(false)
        .virtualKey(RETURNED).build();

    ChatResponse response = model(PLAIN).call(new Prompt("Weather in Paris?", options));

    assertThat(cities).isEmpty();
    AssistantMessage output = response.getResult().getOutput();
    assertThat(output.getToolCalls()).singleElement().satisfies(c -> {
      assertThat(c.name()).isEqualTo("weather");
      assertThat(c.arguments()).isEqualTo("{\"city\":\"Paris\"}");
    });
    assertThat(response.getResult().getMetadata().getFinishReason()).isEqualTo("TOOL_CALLS");
    Row row = rows("k-returned", 1).get(0);
    assertRowMatches(row, response.getMetadata());
    assertThat(row.outcome()).isEqualTo("SUCCESS");
  }

  @Test
  void chatClientEntityParsesTheAnswerIntoARecordFromTheConverterInstructions()
      throws Exception {
    int before = fast.requests.size();

    Weather weather = ChatClient.create(model(ENTITY)).prompt()
        .user("What is the weather in Paris?").call().entity(Weather.class);

    assertThat(weather).isEqualTo(new Weather("Paris", 21));
    ChatRequest sent = fast.requests.get(before);
    assertThat(sent.responseFormat()).isNull();
    assertThat(sent.messages().get(sent.messages().size() - 1).text())
        .contains("JSON Schema").contains("\"celsius\"");
    Row row = rows("k-entity", 1).get(0);
    assertThat(row.outcome()).isEqualTo("SUCCESS");
    assertThat(row.completionTokens()).isEqualTo((WEATHER_JSON.length() + 3) / 4L);
  }

  @Test
  void nativeStructuredOutputSendsTheSchemaAsAJsonSchemaResponseFormat() throws Exception {
    int before = fast.requests.size();

    Weather weather = ChatClient.create(model(NATIVE)).prompt()
        .advisors(AdvisorParams.ENABLE_NATIVE_STRUCTURED_OUTPUT)
        .user("What is the weather in Paris?").call().entity(Weather.class);

    assertThat(weather).isEqualTo(new Weather("Paris", 21));
    ChatRequest sent = fast.requests.get(before);
    assertThat(sent.responseFormat().get("type").asText()).isEqualTo("json_schema");
    assertThat(sent.responseFormat().at("/json_schema/schema/properties/celsius/type").asText())
        .isEqualTo("integer");
    assertThat(rows("k-native", 1).get(0).outcome()).isEqualTo("SUCCESS");
  }

  @Test
  void aBudgetRefusalIsANonTransientExceptionAndIsRecordedAsRejected() throws Exception {
    long sendsBefore = fast.requests.size();

    assertThatThrownBy(() -> model(POOR).call(new Prompt("Spend what I do not have.")))
        .isInstanceOf(NonTransientAiException.class)
        .hasMessageContaining("402")
        .cause().isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED));

    assertThat(fast.requests).hasSize((int) sendsBefore);
    Row row = rows("k-poor", 1).get(0);
    assertThat(row.outcome()).isEqualTo("REJECTED");
    assertThat(row.httpStatus()).isEqualTo(402);
    assertThat(row.costMicros()).isZero();
  }

  @Test
  void aVirtualKeyInTheOptionsWinsOverTheCallerKeys() throws Exception {
    ChatResponse response = model(PLAIN).call(new Prompt("Whose call is this?",
        PointsmanChatOptions.builder().virtualKey(OVERRIDE).build()));

    Row row = rows("k-override", 1).get(0);
    assertRowMatches(row, response.getMetadata());
  }

  @Test
  void disposingAStreamCancelsTheGatewayStreamWhichIsAccountedAsCancelled() throws Exception {
    CountDownLatch threeChunks = new CountDownLatch(3);
    AtomicReference<Throwable> error = new AtomicReference<>();
    PointsmanChatModel model = PointsmanChatModel.builder(gateway)
        .keys(CallerKeys.fixed(CANCEL)).defaultModel("slow").build();

    Disposable subscription = model.stream(new Prompt("Talk for a long time."))
        .subscribe(r -> threeChunks.countDown(), error::set);
    assertThat(threeChunks.await(30, TimeUnit.SECONDS)).isTrue();
    subscription.dispose();

    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!slow.streamReturned.get() && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    assertThat(slow.streamReturned).as("the provider stream ended").isTrue();
    assertThat(slow.chunkRefused).as("the gateway refused a chunk: cancelled").isTrue();
    assertThat(slow.chunksAccepted.get()).isLessThan(SLOW_CHUNKS / 2);
    assertThat(error.get()).isNull();

    Row row = rows("k-cancel", 1).get(0);
    assertThat(row.outcome()).isEqualTo("CANCELLED");
    assertThat(row.status()).isEqualTo("SETTLED");
    assertThat(row.costEstimated()).isTrue();
    assertThat(row.promptTokens()).isPositive();
    assertThat(row.completionTokens()).isPositive();
    assertThat(row.costMicros()).isPositive();
  }

  @Test
  void aToolResponseMessageWithTwoResponsesBecomesTwoToolMessages() throws Exception {
    int before = fast.requests.size();
    AssistantMessage calls = AssistantMessage.builder().content("").toolCalls(List.of(
        new AssistantMessage.ToolCall("c1", "function", "weather", "{\"city\":\"Paris\"}"),
        new AssistantMessage.ToolCall("c2", "function", "weather", "{\"city\":\"Rome\"}")))
        .build();
    ToolResponseMessage results = ToolResponseMessage.builder().responses(List.of(
        new ToolResponseMessage.ToolResponse("c1", "weather", "18"),
        new ToolResponseMessage.ToolResponse("c2", "weather", "25"))).build();

    ChatResponse response = model(HISTORY).call(new Prompt(List.of(
        new org.springframework.ai.chat.messages.UserMessage("Paris and Rome?"), calls,
        results)));

    assertThat(response.getResult().getOutput().getText()).isEqualTo("Tool said: 25");
    List<Message> sent = fast.requests.get(before).messages();
    assertThat(sent).extracting(Message::role)
        .containsExactly(Role.USER, Role.ASSISTANT, Role.TOOL, Role.TOOL);
    assertThat(sent).extracting(Message::toolCallId).containsExactly(null, null, "c1", "c2");
    assertThat(sent.get(1).toolCalls()).extracting(c -> c.function().arguments())
        .containsExactly("{\"city\":\"Paris\"}", "{\"city\":\"Rome\"}");
    assertRowMatches(rows("k-history", 1).get(0), response.getMetadata());
  }
}
