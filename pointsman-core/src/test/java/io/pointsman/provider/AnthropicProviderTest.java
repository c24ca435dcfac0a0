package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static io.pointsman.provider.Fixtures.tree;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.anthropic.AnthropicStream;
import io.pointsman.model.anthropic.StreamEvent;
import io.pointsman.provider.Fixtures.RecordingSink;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import io.pointsman.spi.ProviderReply;
import io.pointsman.testing.FakeClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class AnthropicProviderTest {
  private static final String CONVERSATION = "{\"model\":\"claude-x\",\"max_tokens\":300,"
      + "\"temperature\":0.2,\"stop\":\"END\",\"user\":\"u-1\",\"messages\":["
      + "{\"role\":\"system\",\"content\":\"be brief\"},"
      + "{\"role\":\"developer\",\"content\":\"use metric\"},"
      + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"weather?\"},"
      + "{\"type\":\"image_url\",\"image_url\":{\"url\":\"data:image/png;base64,iVBO\"}}]},"
      + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"id\":\"toolu_1\","
      + "\"type\":\"function\",\"function\":{\"name\":\"weather\",\"arguments\":"
      + "\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]},"
      + "{\"role\":\"tool\",\"tool_call_id\":\"toolu_1\",\"content\":\"4 C\"},"
      + "{\"role\":\"user\",\"content\":\"and tomorrow?\"}],"
      + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\",\"description\":"
      + "\"forecast\",\"parameters\":{\"type\":\"object\"}}}],"
      + "\"tool_choice\":{\"type\":\"function\",\"function\":{\"name\":\"weather\"}}}";

  private static final String EXPECTED_WIRE = "{\"model\":\"claude-x\",\"max_tokens\":300,"
      + "\"messages\":["
      + "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"weather?\"},"
      + "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":\"image/png\","
      + "\"data\":\"iVBO\"}}]},"
      + "{\"role\":\"assistant\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\","
      + "\"name\":\"weather\",\"input\":{\"city\":\"Oslo\"}}]},"
      + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
      + "\"content\":\"4 C\"},{\"type\":\"text\",\"text\":\"and tomorrow?\"}]}],"
      + "\"system\":\"be brief\\n\\nuse metric\",\"temperature\":0.2,"
      + "\"stop_sequences\":[\"END\"],"
      + "\"tools\":[{\"name\":\"weather\",\"description\":\"forecast\",\"input_schema\":"
      + "{\"type\":\"object\"}}],\"tool_choice\":{\"type\":\"tool\",\"name\":\"weather\"},"
      + "\"metadata\":{\"user_id\":\"u-1\"}}";

  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final AnthropicProvider provider = AnthropicProvider.builder().baseUri(server.uri())
      .credential(Credential.of("ant-secret")).timeouts(Fixtures.SHORT)
      .clock(new FakeClock(Instant.ofEpochSecond(1_700_000_000))).build();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void translatesSystemContentBlocksToolUseAndToolResultsIntoTheMessagesShape() {
    server.enqueue(FixtureResponse.json(200, "{\"id\":\"msg_1\",\"type\":\"message\","
        + "\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\","
        + "\"text\":\"Sunny\"}],\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":10,"
        + "\"output_tokens\":3,\"cache_creation_input_tokens\":5,"
        + "\"cache_read_input_tokens\":20}}"));

    ProviderReply reply = provider.send(call("anthropic", "claude-x", request(CONVERSATION)));

    RecordedRequest sent = server.requests().get(0);
    assertThat(sent.target()).isEqualTo("/v1/messages");
    assertThat(sent.header("x-api-key")).isEqualTo("ant-secret");
    assertThat(sent.header("anthropic-version")).isEqualTo("2023-06-01");
    assertThat(tree(sent.bodyText())).isEqualTo(tree(EXPECTED_WIRE));
    assertThat(tree(reply.response())).isEqualTo(tree("{\"id\":\"msg_1\",\"object\":"
        + "\"chat.completion\",\"created\":1700000000,\"model\":\"claude-x\",\"choices\":[{"
        + "\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Sunny\"},"
        + "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":35,\"completion_tokens\":3,"
        + "\"total_tokens\":38,\"prompt_tokens_details\":{\"cached_tokens\":20,"
        + "\"cache_creation_tokens\":5},\"cache_creation_input_tokens\":5}}"));
    assertThat(reply.response().usage().cacheCreationTokens()).isEqualTo(5);
    assertThat(reply.response().usage().cachedTokens()).isEqualTo(20);
  }

  @Test
  void translatesToolUseResponsesAndStopReasons() {
    server.enqueue(FixtureResponse.json(200, "{\"id\":\"msg_2\",\"type\":\"message\","
        + "\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":\"Checking.\"},"
        + "{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"weather\",\"input\":"
        + "{\"city\":\"Oslo\"}}],\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":10,"
        + "\"output_tokens\":12}}"));
    ProviderReply reply = provider.send(call("anthropic", "claude-x", request(CONVERSATION)));
    var choice = reply.response().choices().get(0);
    assertThat(choice.finishReason()).isEqualTo("tool_calls");
    assertThat(choice.message().text()).isEqualTo("Checking.");
    assertThat(choice.message().toolCalls()).singleElement().satisfies(c -> {
      assertThat(c.id()).isEqualTo("toolu_2");
      assertThat(c.function().arguments()).isEqualTo("{\"city\":\"Oslo\"}");
    });
    assertThat(AnthropicProvider.finishReason("max_tokens")).isEqualTo("length");
    assertThat(AnthropicProvider.finishReason("refusal")).isEqualTo("content_filter");
    assertThat(AnthropicProvider.finishReason("stop_sequence")).isEqualTo("stop");
  }

  @Test
  void translatesAStreamWithTextToolUseAndUsageFromMessageDelta() {
    server.enqueue(FixtureResponse.sse(List.of(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_3\","
            + "\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":25,"
            + "\"cache_read_input_tokens\":5,\"output_tokens\":1}}}\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n"
            + "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,",
        "\"delta\":{\"type\":\"text_delta\",\"text\":\"check.\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
            + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_3\",\"name\":\"weather\","
            + "\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
            + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
            + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Oslo\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            + "\"tool_use\"},\"usage\":{\"output_tokens\":31}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")));
    RecordingSink sink = new RecordingSink();
    var req = request(CONVERSATION).toBuilder().stream(true).build();

    ProviderReply reply = provider.stream(call("anthropic", "claude-x", req), sink);

    assertThat(tree(server.requests().get(0).bodyText()).get("stream").asBoolean()).isTrue();
    assertThat(sink.text()).isEqualTo("Let me check.");
    assertThat(sink.chunks.get(0).choices().get(0).delta().role()).isNotNull();
    assertThat(sink.chunks).allSatisfy(c -> assertThat(c.id()).isEqualTo("msg_3"));
    var choice = reply.response().choices().get(0);
    assertThat(choice.message().text()).isEqualTo("Let me check.");
    assertThat(choice.finishReason()).isEqualTo("tool_calls");
    assertThat(choice.message().toolCalls()).singleElement().satisfies(c -> {
      assertThat(c.id()).isEqualTo("toolu_3");
      assertThat(c.function().name()).isEqualTo("weather");
      assertThat(c.function().arguments()).isEqualTo("{\"city\": \"Oslo\"}");
    });
    assertThat(reply.usage().promptTokens()).isEqualTo(30);
    assertThat(reply.usage().cachedTokens()).isEqualTo(5);
    assertThat(reply.usage().completionTokens()).isEqualTo(31);
  }

  @Test
  void anUpstreamStreamReachesAMessagesClientWithItsBlocksStopReasonAndUsage() {
    server.enqueue(FixtureResponse.sse(List.of(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_4\","
            + "\"model\":\"claude-x\",\"content\":[],\"usage\":{\"input_tokens\":25,"
            + "\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":5,"
            + "\"output_tokens\":1}}}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
            + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me check.\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,"
            + "\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_4\",\"name\":\"weather\","
            + "\"input\":{}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
            + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\": \"}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,"
            + "\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"Oslo\\\"}\"}}\n\n",
        "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            + "\"tool_use\"},\"usage\":{\"output_tokens\":31}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")));
    RecordingSink sink = new RecordingSink();
    var req = request(CONVERSATION).toBuilder().stream(true)
        .streamOptions(new io.pointsman.model.StreamOptions(true, null)).build();
    provider.stream(call("anthropic", "claude-x", req), sink);

    AnthropicStream events = new AnthropicStream("claude-x");
    List<String> got = new ArrayList<>();
    List<StreamEvent> all = new ArrayList<>();
    for (var chunk : sink.chunks) {
      all.addAll(events.onChunk(chunk));
    }
    all.addAll(events.finish(null));
    for (StreamEvent e : all) {
      JsonNode d = e.data();
      got.add(switch (e.event()) {
        case "content_block_start" -> e.event() + " " + d.path("index").asInt() + " "
            + d.path("content_block").path("type").asText() + " "
            + d.path("content_block").path("id").asText();
        case "content_block_delta" -> e.event() + " " + d.path("index").asInt() + " "
            + d.path("delta").path("text").asText(d.path("delta").path("partial_json").asText());
        case "content_block_stop" -> e.event() + " " + d.path("index").asInt();
        case "message_delta" -> e.event() + " " + d.path("delta").path("stop_reason").asText()
            + " " + d.path("usage");
        default -> e.event();
      });
    }
    assertThat(got).containsExactly("message_start",
        "content_block_start 0 text ", "content_block_delta 0 Let me check.",
        "content_block_stop 0",
        "content_block_start 1 tool_use toolu_4", "content_block_delta 1 {\"city\": ",
        "content_block_delta 1 \"Oslo\"}", "content_block_stop 1",
        "message_delta tool_use {\"input_tokens\":25,\"output_tokens\":31,"
            + "\"cache_creation_input_tokens\":7,\"cache_read_input_tokens\":5}",
        "message_stop");
  }

  @Test
  void aStreamCutBeforeMessageDeltaHasNoUsageButFailsAsInterrupted() {
    server.enqueue(FixtureResponse.sse(List.of(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
            + "\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"partial\"}}\n\n",
        "event: ping\ndata: {\"type\":\"ping\"}\n\n",
        "never sent"))
        // A reset can overtake bytes the client has not read yet: frames 150 ms apart let the
        // first two be read before the third (a ping, which may be lost) and the reset.
        .frameDelay(java.time.Duration.ofMillis(150)).cutAfter(3));
    RecordingSink sink = new RecordingSink();
    var req = request(CONVERSATION).toBuilder().stream(true).build();
    var failure = Fixtures.failureOf(
        () -> provider.stream(call("anthropic", "claude-x", req), sink));
    assertThat(sink.text()).isEqualTo("partial");
    assertThat(failure.billing()).isEqualTo(io.pointsman.spi.ProviderException.Billing.UNKNOWN);
    assertThat(ProviderErrorKind.of(failure)).isEqualTo(ProviderErrorKind.INTERRUPTED);
  }

  @Test
  void reusesOneConnectionAcrossStreamsThatEndWithMessageStop() {
    server.respondWith(r -> FixtureResponse.sse(List.of(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
            + "\"usage\":{\"input_tokens\":2,\"output_tokens\":1}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":"
            + "\"end_turn\"},\"usage\":{\"output_tokens\":1}}\n\n",
        "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")));
    var req = request(CONVERSATION).toBuilder().stream(true).build();
    for (int i = 0; i < 5; i++) {
      RecordingSink sink = new RecordingSink();
      provider.stream(call("anthropic", "claude-x", req), sink);
      assertThat(sink.text()).isEqualTo("hi");
    }
    assertThat(server.connectionsAccepted()).isEqualTo(1);
  }
}
