package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static io.pointsman.provider.Fixtures.tree;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.model.ChatRequest;
import io.pointsman.provider.Fixtures.RecordingSink;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import io.pointsman.spi.ProviderReply;
import java.net.URI;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenAiProviderTest {
  private static final String TOOL_REQUEST = "{\"model\":\"gpt-4o\",\"messages\":["
      + "{\"role\":\"system\",\"content\":\"be brief\"},"
      + "{\"role\":\"user\",\"content\":\"weather in Oslo?\"}],"
      + "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"weather\","
      + "\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}}}],"
      + "\"tool_choice\":\"auto\",\"temperature\":0.0,\"max_tokens\":50}";

  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final OpenAiProvider provider = OpenAiProvider.builder()
      .baseUri(URI.create(server.uri() + "/v1")).credential(Credential.of("sk-test-secret"))
      .timeouts(Fixtures.SHORT).build();

  @AfterEach
  void stop() {
    server.close();
  }

  @Test
  void plainCallSendsTheRequestUnchangedAndDecodesTheResponse() {
    String response = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1700000000,"
        + "\"model\":\"gpt-4o-2024\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        + "\"content\":\"Hi there\"},\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":9,\"completion_tokens\":2,\"total_tokens\":11,"
        + "\"prompt_tokens_details\":{\"cached_tokens\":4}}}";
    server.enqueue(FixtureResponse.json(200, response));
    ChatRequest req = request("{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}],\"temperature\":0.5,\"stream\":false}");

    ProviderReply reply = provider.send(call("openai", "gpt-4o", req));

    RecordedRequest sent = server.requests().get(0);
    assertThat(sent.method()).isEqualTo("POST");
    assertThat(sent.target()).isEqualTo("/v1/chat/completions");
    assertThat(sent.header("authorization")).isEqualTo("Bearer sk-test-secret");
    assertThat(tree(sent.bodyText())).isEqualTo(tree("{\"model\":\"gpt-4o\",\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"hi\"}],\"temperature\":0.5}"));
    assertThat(tree(reply.response())).isEqualTo(tree(response));
    assertThat(reply.usage().cachedTokens()).isEqualTo(4);
    assertThat(reply.usageEstimated()).isFalse();
  }

  @Test
  void toolCallsTravelBothWays() {
    String response = "{\"id\":\"c2\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":null,"
        + "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":"
        + "\"weather\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]},"
        + "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":20,"
        + "\"completion_tokens\":7,\"total_tokens\":27}}";
    server.enqueue(FixtureResponse.json(200, response));
    ProviderReply reply = provider.send(call("openai", "gpt-4o", request(TOOL_REQUEST)));
    assertThat(tree(server.requests().get(0).bodyText())).isEqualTo(tree(TOOL_REQUEST));
    assertThat(reply.response().choices().get(0).message().toolCalls().get(0).function()
        .arguments()).isEqualTo("{\"city\":\"Oslo\"}");
    assertThat(reply.response().choices().get(0).finishReason()).isEqualTo("tool_calls");
  }

  @Test
  void streamAsksForUsageAndHidesTheUsageChunkFromACallerWhoDidNotAsk() {
    server.enqueue(FixtureResponse.sse(List.of(
        "data: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"created\":5,\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
            + "\"finish_reason\":null}]}\n\n",
        ": keep-alive\n\n",
        "data: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"created\":5,\"model\":\"m\","
            + "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}"
            + "\r\n\r\ndata: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"created\":5,",
        "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"},"
            + "\"finish_reason\":\"stop\"}]}\n\n",
        "data: {\"id\":\"s1\",\"object\":\"chat.completion.chunk\",\"created\":5,\"model\":\"m\","
            + "\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2,"
            + "\"total_tokens\":5}}\n\n",
        "data: [DONE]\n\n")));
    RecordingSink sink = new RecordingSink();
    ChatRequest req = request("{\"model\":\"gpt-4o\",\"stream\":true,\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"hi\"}]}");

    ProviderReply reply = provider.stream(call("openai", "gpt-4o", req), sink);

    assertThat(tree(server.requests().get(0).bodyText())).isEqualTo(tree("{\"model\":\"gpt-4o\","
        + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"messages\":"
        + "[{\"role\":\"user\",\"content\":\"hi\"}]}"));
    assertThat(server.requests().get(0).header("accept")).isEqualTo("text/event-stream");
    assertThat(sink.chunks).hasSize(3);
    assertThat(sink.text()).isEqualTo("Hello");
    assertThat(reply.response().firstText()).isEqualTo("Hello");
    assertThat(reply.response().choices().get(0).finishReason()).isEqualTo("stop");
    assertThat(reply.usage().promptTokens()).isEqualTo(3);
    assertThat(reply.usage().completionTokens()).isEqualTo(2);
  }

  @Test
  void streamedToolCallFragmentsAreAssembled() {
    server.enqueue(FixtureResponse.sse(List.of(
        "data: {\"id\":\"s\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"
            + "{\"role\":\"assistant\",\"tool_calls\":[{\"index\":0,\"id\":\"call_9\",\"type\":"
            + "\"function\",\"function\":{\"name\":\"weather\",\"arguments\":\"\"}}]},"
            + "\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"s\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"
            + "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]},"
            + "\"finish_reason\":null}]}\n\n",
        "data: {\"id\":\"s\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":"
            + "{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Oslo\\\"}\"}}]},"
            + "\"finish_reason\":\"tool_calls\"}]}\n\n",
        "data: [DONE]\n\n")));
    ChatRequest req = request(TOOL_REQUEST).toBuilder().stream(true).build();
    ProviderReply reply = provider.stream(call("openai", "gpt-4o", req), new RecordingSink());
    var calls = reply.response().choices().get(0).message().toolCalls();
    assertThat(calls).singleElement().satisfies(c -> {
      assertThat(c.id()).isEqualTo("call_9");
      assertThat(c.function().name()).isEqualTo("weather");
      assertThat(c.function().arguments()).isEqualTo("{\"city\":\"Oslo\"}");
    });
    assertThat(reply.usage()).as("no usage chunk arrived").isNull();
  }

  @Test
  void azureUsesTheDeploymentPathApiVersionAndApiKeyHeader() {
    OpenAiProvider azure = OpenAiProvider.builder().azure(server.uri(), "2024-10-21")
        .credential(Credential.of("azure-secret")).timeouts(Fixtures.SHORT).build();
    server.enqueue(FixtureResponse.json(200, "{\"id\":\"a\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
        + "\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}"));
    ProviderReply reply = azure.send(call("azure", "prod gpt4o", request(
        "{\"model\":\"gpt-4o\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")));
    RecordedRequest sent = server.requests().get(0);
    assertThat(sent.target())
        .isEqualTo("/openai/deployments/prod%20gpt4o/chat/completions?api-version=2024-10-21");
    assertThat(sent.header("api-key")).isEqualTo("azure-secret");
    assertThat(sent.header("authorization")).isNull();
    assertThat(reply.usage()).as("a response without usage leaves it to the gateway").isNull();
  }

  @Test
  void reusesOneConnectionAcrossCalls() {
    server.respondWith(r -> FixtureResponse.json(200, "{\"id\":\"x\",\"object\":"
        + "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[]}"));
    for (int i = 0; i < 5; i++) {
      provider.send(call("openai", "m", request("{\"model\":\"m\",\"messages\":"
          + "[{\"role\":\"user\",\"content\":\"hi\"}]}")));
    }
    assertThat(server.requests()).hasSize(5);
    assertThat(server.connectionsAccepted()).isEqualTo(1);
  }

  @Test
  void reusesOneConnectionAcrossStreamsThatEndWithDone() {
    server.respondWith(r -> FixtureResponse.sse(List.of(
        "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
            + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"},"
            + "\"finish_reason\":\"stop\"}]}\n\n",
        "data: [DONE]\n\n")));
    for (int i = 0; i < 5; i++) {
      Fixtures.RecordingSink sink = new Fixtures.RecordingSink();
      provider.stream(call("openai", "m", request("{\"model\":\"m\",\"stream\":true,"
          + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")), sink);
      assertThat(sink.text()).isEqualTo("hi");
    }
    assertThat(server.requests()).hasSize(5);
    assertThat(server.connectionsAccepted()).isEqualTo(1);
  }

  private static String contentFrame(String text) {
    return "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
        + "\"}}]}\n\n";
  }

  @Test
  void aStreamTheCallerCancelsClosesItsConnection() {
    List<String> frames = new java.util.ArrayList<>();
    for (int i = 0; i < 50; i++) {
      frames.add(contentFrame("w"));
    }
    server.enqueue(FixtureResponse.sse(frames).frameDelay(java.time.Duration.ofMillis(20)));
    server.enqueue(FixtureResponse.sse(List.of(contentFrame("x"), "data: [DONE]\n\n")));
    String streamed = "{\"model\":\"m\",\"stream\":true,\"messages\":[{\"role\":"
        + "\"user\",\"content\":\"hi\"}]}";
    RecordingSink cancelling = new RecordingSink(2);
    ProviderReply cancelled = provider.stream(call("openai", "m", request(streamed)), cancelling);
    assertThat(cancelling.chunks).hasSize(2);
    assertThat(cancelled.usage()).isNull();
    RecordingSink next = new RecordingSink();
    provider.stream(call("openai", "m", request(streamed)), next);
    assertThat(next.text()).isEqualTo("x");
    assertThat(server.connectionsAccepted()).isEqualTo(2);
  }

  @Test
  void dataAfterDoneIsIgnored() {
    List<String> frames = new java.util.ArrayList<>();
    frames.add(contentFrame("a"));
    frames.add("data: [DONE]\n\n");
    for (int i = 0; i < 2_000; i++) {
      frames.add(contentFrame("late"));
    }
    server.enqueue(FixtureResponse.sse(frames));
    RecordingSink sink = new RecordingSink();
    provider.stream(call("openai", "m", request("{\"model\":\"m\",\"stream\":true,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}")), sink);
    assertThat(sink.text()).isEqualTo("a");
  }
}
