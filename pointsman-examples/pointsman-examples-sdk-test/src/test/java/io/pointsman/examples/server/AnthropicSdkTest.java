package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.anthropic.client.AnthropicClient;
import com.anthropic.client.okhttp.AnthropicOkHttpClient;
import com.anthropic.core.JsonValue;
import com.anthropic.core.http.StreamResponse;
import com.anthropic.errors.BadRequestException;
import com.anthropic.errors.PaymentRequiredException;
import com.anthropic.errors.UnauthorizedException;
import com.anthropic.helpers.MessageAccumulator;
import com.anthropic.models.ErrorType;
import com.anthropic.models.messages.ContentBlockParam;
import com.anthropic.models.messages.Message;
import com.anthropic.models.messages.MessageCountTokensParams;
import com.anthropic.models.messages.MessageCreateParams;
import com.anthropic.models.messages.MessageTokensCount;
import com.anthropic.models.messages.RawMessageStreamEvent;
import com.anthropic.models.messages.StopReason;
import com.anthropic.models.messages.Tool;
import com.anthropic.models.messages.ToolResultBlockParam;
import com.anthropic.models.messages.ToolUseBlock;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.provider.testing.FixtureResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The official Anthropic Java SDK, unmodified, against the facade's Messages API
 * ({@code /v1/messages}) in front of an OpenAI-compatible upstream fixture: a plain call, a
 * streamed one (the SDK's own accumulator rebuilds the message from the events), a tool-use
 * round trip, {@code count_tokens}, and the refusals as the SDK's typed exceptions. Each call
 * that reached the gateway must be a ledger row once the server has drained; the rows are
 * checked after every test. The SDK retries nothing here ({@code maxRetries(0)}), so that every
 * call is one HTTP request.
 */
class AnthropicSdkTest {
  @TempDir
  Path dir;

  private ContractRig rig;
  private final List<AnthropicClient> clients = new ArrayList<>();
  /** The ledger rows the test's calls must leave, as "outcome/http status/prompt/completion". */
  private final List<String> expectedRows = new ArrayList<>();

  @BeforeEach
  void setUp() {
    rig = new ContractRig(dir, 1);
  }

  @AfterEach
  void tearDown() throws Exception {
    try {
      clients.forEach(AnthropicClient::close);
      // The graceful close drains the journal into PostgreSQL.
      rig.server.close();
      assertThat(ledger("SELECT outcome || '/' || http_status || '/' || coalesce(prompt_tokens,"
          + " -1) || '/' || coalesce(completion_tokens, -1) FROM pointsman.ledger_entries"))
          .as("one ledger row per call that reached the gateway")
          .containsExactlyInAnyOrderElementsOf(expectedRows);
    } finally {
      rig.close();
    }
  }

  /** A client that sends the virtual key as {@code x-api-key}, as the SDK does by default. */
  private AnthropicClient client(String key) {
    AnthropicClient c = AnthropicOkHttpClient.builder().baseUrl(baseUrl()).apiKey(key)
        .maxRetries(0).build();
    clients.add(c);
    return c;
  }

  private String baseUrl() {
    return "http://127.0.0.1:" + rig.server.port();
  }

  private static MessageCreateParams.Builder params(String prompt, long maxTokens) {
    return MessageCreateParams.builder().model(ContractRig.MODEL).maxTokens(maxTokens)
        .addUserMessage(prompt);
  }

  @Test
  void aPlainMessageCompletesThroughTheSdk() throws Exception {
    Message m = client(rig.key).messages().create(params("What is a pointsman?", 50)
        .system("Be brief.")
        .putAdditionalBodyProperty("temperature", JsonValue.from(0.0)).build());
    expectedRows.add("SUCCESS/200/12/9");

    assertThat(m.model().asString()).isEqualTo(ContractRig.MODEL);
    assertThat(m.content()).singleElement().satisfies(b ->
        assertThat(b.text().orElseThrow().text()).isEqualTo(ContractRig.ANSWER));
    assertThat(m.stopReason()).hasValue(StopReason.END_TURN);
    assertThat(m.usage().inputTokens()).isEqualTo(12);
    assertThat(m.usage().outputTokens()).isEqualTo(9);
    // The upstream got the gateway's translation: system first, the cap, the temperature.
    String sent = rig.upstream.requests().get(0).bodyText();
    assertThat(sent).contains("\"role\":\"system\",\"content\":\"Be brief.\"")
        .contains("\"max_tokens\":50").contains("\"temperature\":0.0");
  }

  @Test
  void aStreamedMessageArrivesInAnthropicsEventOrderAndAccumulates() throws Exception {
    List<String> order = new ArrayList<>();
    MessageAccumulator acc = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> s = client(rig.key).messages()
        .createStreaming(params("What is a pointsman?", 50).build())) {
      s.stream().forEach(e -> {
        acc.accumulate(e);
        order.add(eventName(e));
      });
    }
    expectedRows.add("SUCCESS/200/12/9");

    assertThat(order.get(0)).isEqualTo("message_start");
    assertThat(order.get(1)).isEqualTo("content_block_start");
    assertThat(order.subList(2, order.size() - 3)).isNotEmpty()
        .allMatch("content_block_delta"::equals);
    assertThat(order.subList(order.size() - 3, order.size()))
        .containsExactly("content_block_stop", "message_delta", "message_stop");
    Message m = acc.message();
    assertThat(m.content()).singleElement().satisfies(b ->
        assertThat(b.text().orElseThrow().text()).isEqualTo(ContractRig.ANSWER));
    assertThat(m.stopReason()).hasValue(StopReason.END_TURN);
    assertThat(m.usage().outputTokens()).isEqualTo(9);
    assertThat(m.usage().inputTokens()).isEqualTo(12);
  }

  @Test
  void aToolUseRoundTripCompletesThroughTheSdk() throws Exception {
    List<String> bodies = new ArrayList<>();
    rig.upstreamAnswers(r -> {
      bodies.add(r.bodyText());
      return r.bodyText().contains("\"role\":\"tool\"") ? text("Sunny in Oslo.")
          : toolCall("call_7", "get_weather", "{\"city\":\"Oslo\"}");
    });
    AnthropicClient client = client(rig.key);
    Tool weather = Tool.builder().name("get_weather").description("The weather in a city")
        .inputSchema(Tool.InputSchema.builder().properties(Tool.InputSchema.Properties.builder()
            .putAdditionalProperty("city", JsonValue.from(Map.of("type", "string"))).build())
            .required(List.of("city")).build()).build();
    MessageCreateParams first = params("Weather in Oslo?", 100).addTool(weather).build();

    Message call = client.messages().create(first);
    expectedRows.add("SUCCESS/200/20/7");
    assertThat(call.stopReason()).hasValue(StopReason.TOOL_USE);
    ToolUseBlock use = call.content().stream().flatMap(b -> b.toolUse().stream())
        .findFirst().orElseThrow();
    assertThat(use.id()).isEqualTo("call_7");
    assertThat(use.name()).isEqualTo("get_weather");
    assertThat(use._input()).isEqualTo(JsonValue.from(Map.of("city", "Oslo")));

    Message answer = client.messages().create(first.toBuilder().addMessage(call.toParam())
        .addUserMessageOfContentBlockParams(List.of(ContentBlockParam.ofToolResult(
            ToolResultBlockParam.builder().toolUseId(use.id()).content("Sunny, 18 C")
                .build()))).build());
    expectedRows.add("SUCCESS/200/30/5");
    assertThat(answer.stopReason()).hasValue(StopReason.END_TURN);
    assertThat(answer.content()).singleElement().satisfies(b ->
        assertThat(b.text().orElseThrow().text()).isEqualTo("Sunny in Oslo."));
    // The second leg reached the upstream as the gateway's tool conversation.
    assertThat(bodies).hasSize(2);
    assertThat(bodies.get(0)).contains("\"tools\":[{\"type\":\"function\",\"function\":{"
        + "\"name\":\"get_weather\"");
    assertThat(bodies.get(1)).contains("\"tool_calls\":[{\"id\":\"call_7\"")
        .contains("\"role\":\"tool\",\"content\":\"Sunny, 18 C\",\"tool_call_id\":\"call_7\"");
  }

  @Test
  void aStreamedToolCallAccumulatesIntoAToolUseBlock() throws Exception {
    String head = "data: {\"id\":\"chatcmpl-s\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1,\"model\":\"" + ContractRig.MODEL + "\",";
    rig.upstreamAnswers(r -> FixtureResponse.sse(List.of(
        head + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":"
            + "\"Checking.\"},\"finish_reason\":null}]}\n\n",
        head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":"
            + "\"call_8\",\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
            + "\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n",
        head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
            + "\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]},\"finish_reason\":null}]}\n\n",
        head + "\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,"
            + "\"function\":{\"arguments\":\"\\\"Oslo\\\"}\"}}]},\"finish_reason\":null}]}\n\n",
        head + "\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
        head + "\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":7,"
            + "\"total_tokens\":27}}\n\n",
        "data: [DONE]\n\n")));
    MessageAccumulator acc = MessageAccumulator.create();
    try (StreamResponse<RawMessageStreamEvent> s = client(rig.key).messages()
        .createStreaming(params("Weather in Oslo?", 100).addTool(Tool.builder()
            .name("get_weather").inputSchema(Tool.InputSchema.builder().build()).build())
            .build())) {
      s.stream().forEach(acc::accumulate);
    }
    expectedRows.add("SUCCESS/200/20/7");
    Message m = acc.message();
    assertThat(m.stopReason()).hasValue(StopReason.TOOL_USE);
    assertThat(m.content()).hasSize(2);
    assertThat(m.content().get(0).text().orElseThrow().text()).isEqualTo("Checking.");
    ToolUseBlock use = m.content().get(1).toolUse().orElseThrow();
    assertThat(use.id()).isEqualTo("call_8");
    assertThat(use.name()).isEqualTo("get_weather");
    assertThat(use._input()).isEqualTo(JsonValue.from(Map.of("city", "Oslo")));
    assertThat(m.usage().inputTokens()).isEqualTo(20);
    assertThat(m.usage().outputTokens()).isEqualTo(7);
  }

  @Test
  void countTokensAnswersWithoutACallAndWithoutALedgerRow() {
    MessageTokensCount count = client(rig.key).messages().countTokens(
        MessageCountTokensParams.builder().model(ContractRig.MODEL)
            .addUserMessage("What is a pointsman?").build());
    assertThat(count.inputTokens()).isPositive();
    assertThat(rig.upstream.requests()).isEmpty();
  }

  @Test
  void aBadKeyIsTheSdksAuthenticationErrorWhetherSentAsXApiKeyOrBearer() {
    UnauthorizedException e = catchThrowableOfType(UnauthorizedException.class,
        () -> client(VirtualKeys.generate()).messages().create(params("hi", 10).build()));
    assertThat(e.statusCode()).isEqualTo(401);
    assertThat(e.type()).hasValue(ErrorType.AUTHENTICATION_ERROR);
    assertThat(e.requestId()).hasValueSatisfying(id -> assertThat(id).isNotBlank());

    AnthropicClient bearer = AnthropicOkHttpClient.builder().baseUrl(baseUrl())
        .authToken(VirtualKeys.generate()).maxRetries(0).build();
    clients.add(bearer);
    assertThat(catchThrowableOfType(UnauthorizedException.class,
        () -> bearer.messages().create(params("hi", 10).build())).statusCode()).isEqualTo(401);
    // A valid key as a bearer token is served.
    AnthropicClient good = AnthropicOkHttpClient.builder().baseUrl(baseUrl())
        .authToken(rig.key).maxRetries(0).build();
    clients.add(good);
    assertThat(good.messages().create(params("hi", 10).build()).content()).hasSize(1);
    expectedRows.add("SUCCESS/200/12/9");
    assertThat(rig.upstreamCalls()).isEqualTo(1);
  }

  @Test
  void anOverBudgetCallIsTheSdksBillingErrorPlainOrStreamed() {
    PaymentRequiredException plain = catchThrowableOfType(PaymentRequiredException.class,
        () -> client(rig.poorKey).messages().create(params("hi", 1_000).build()));
    expectedRows.add("REJECTED/402/-1/-1");
    assertThat(plain.statusCode()).isEqualTo(402);
    assertThat(plain.type()).hasValue(ErrorType.BILLING_ERROR);

    PaymentRequiredException streamed = catchThrowableOfType(PaymentRequiredException.class,
        () -> {
          try (StreamResponse<RawMessageStreamEvent> s = client(rig.poorKey).messages()
              .createStreaming(params("hi", 1_000).build())) {
            s.stream().forEach(e -> { });
          }
        });
    expectedRows.add("REJECTED/402/-1/-1");
    assertThat(streamed.statusCode()).isEqualTo(402);
    assertThat(rig.upstreamCalls()).isZero();
  }

  @Test
  void aRequestTheGatewayCannotCarryIsTheSdksBadRequestWithTheFieldNamed() {
    BadRequestException e = catchThrowableOfType(BadRequestException.class,
        () -> client(rig.key).messages().create(params("hi", 10)
            .putAdditionalBodyProperty("top_k", JsonValue.from(40)).build()));
    assertThat(e.type()).hasValue(ErrorType.INVALID_REQUEST_ERROR);
    assertThat(e.apiMessage()).hasValueSatisfying(m -> assertThat(m).startsWith("top_k:"));
    assertThat(rig.upstreamCalls()).isZero();
    // Refused before the gateway: no identity was charged, no row.
  }

  private static String eventName(RawMessageStreamEvent e) {
    if (e.isMessageStart()) {
      return "message_start";
    } else if (e.isContentBlockStart()) {
      return "content_block_start";
    } else if (e.isContentBlockDelta()) {
      return "content_block_delta";
    } else if (e.isContentBlockStop()) {
      return "content_block_stop";
    } else if (e.isMessageDelta()) {
      return "message_delta";
    } else if (e.isMessageStop()) {
      return "message_stop";
    }
    return "other";
  }

  private static FixtureResponse text(String answer) {
    return FixtureResponse.json(200, "{\"id\":\"chatcmpl-t\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"" + ContractRig.MODEL + "\",\"choices\":[{\"index\":0,"
        + "\"message\":{\"role\":\"assistant\",\"content\":\"" + answer + "\"},"
        + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":30,"
        + "\"completion_tokens\":5,\"total_tokens\":35}}");
  }

  private static FixtureResponse toolCall(String id, String name, String arguments) {
    return FixtureResponse.json(200, "{\"id\":\"chatcmpl-c\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"" + ContractRig.MODEL + "\",\"choices\":[{\"index\":0,"
        + "\"message\":{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\""
        + id + "\",\"type\":\"function\",\"function\":{\"name\":\"" + name + "\","
        + "\"arguments\":" + io.pointsman.model.Json.write(arguments) + "}}]},"
        + "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":20,"
        + "\"completion_tokens\":7,\"total_tokens\":27}}");
  }


  private List<String> ledger(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = rig.db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
