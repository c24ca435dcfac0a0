package io.pointsman.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.PartialToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.output.FinishReason;
import io.pointsman.CacheControl;
import io.pointsman.CacheOutcome;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the adapter decides on its own, on an in-memory gateway: which key a call is made with,
 * the call's cache control, errors on both models, and streamed tool calls over the HTTP
 * fixture.
 */
class AdapterBehaviourTest {
  private static final String KEY = "pm-lc4j-behaviour-key-1";
  private HttpFixtureServer http;
  private FixtureProvider fixture;
  private Gateway gateway;

  @BeforeEach
  void start() {
    http = HttpFixtureServer.start();
    fixture = FixtureProvider.builder().build();
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("key-1").build());
    Price price = Price.of(1_000_000, 2_000_000);
    gateway = Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder()
            .model(ModelSpec.builder("gpt-4o-mini").price(price).build())
            .model(ModelSpec.builder("tool-mini").price(price).build()).build())
        .provider("fixture", fixture)
        .provider("http", OpenAiProvider.builder().baseUri(http.uri())
            .credential(Credential.of("sk-fixture")).build())
        .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
        .deployment(Deployment.of("http-mini", "http", "tool-mini"))
        .build();
  }

  @AfterEach
  void stop() {
    gateway.close();
    http.close();
  }

  private static ChatRequest ask(String text) {
    return ChatRequest.builder().messages(UserMessage.from(text)).build();
  }

  @Test
  void theSupplierIsAskedPerCallAndARequestsOwnKeyWins() {
    AtomicInteger asked = new AtomicInteger();
    PointsmanChatModel model = PointsmanChatModel.builder(gateway)
        .keys(request -> {
          asked.incrementAndGet();
          return "pm-not-a-known-key";
        })
        .defaultModel("gpt-4o-mini").build();

    assertThatThrownBy(() -> model.chat(ask("one")))
        .isInstanceOf(AuthenticationException.class).hasMessageContaining("401");
    assertThat(asked).hasValue(1);

    ChatResponse own = model.chat(ChatRequest.builder().messages(UserMessage.from("two"))
        .parameters(PointsmanChatRequestParameters.builder().virtualKey(KEY).build()).build());
    assertThat(own.aiMessage().text()).startsWith("Fixture reply");
    assertThat(asked).as("the request's key is used without asking").hasValue(1);
  }

  @Test
  void aModelNeedsAKeySource() {
    assertThatThrownBy(() -> PointsmanChatModel.builder(gateway).build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("keys");
    assertThatThrownBy(() -> PointsmanStreamingChatModel.builder(gateway).tag("bad tag").build())
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> PointsmanChatModel.builder(gateway).virtualKey(KEY)
        .tag("bad tag").build()).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void cacheControlComesFromTheDefaultsOrTheRequest() {
    PointsmanChatModel model = PointsmanChatModel.builder(gateway).virtualKey(KEY)
        .defaultModel("gpt-4o-mini").build();

    // The exact cache stores only deterministic requests (temperature 0).
    ChatRequest cacheable = ChatRequest.builder().messages(UserMessage.from("cache me"))
        .temperature(0.0).build();
    model.chat(cacheable);
    ChatResponse hit = model.chat(cacheable);
    assertThat(result(hit).cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(fixture.sends()).isEqualTo(1);

    ChatResponse bypass = model.chat(ChatRequest.builder().messages(UserMessage.from("cache me"))
        .parameters(PointsmanChatRequestParameters.builder().temperature(0.0)
            .cacheControl(CacheControl.NO_CACHE).build()).build());
    assertThat(result(bypass).cacheStatus().outcome()).isEqualTo(CacheOutcome.BYPASS);
    assertThat(fixture.sends()).isEqualTo(2);

    PointsmanChatModel noStore = PointsmanChatModel.builder(gateway).virtualKey(KEY)
        .defaultModel("gpt-4o-mini").defaultRequestParameters(PointsmanChatRequestParameters
            .builder().temperature(0.0).cacheControl(CacheControl.NO_STORE).build()).build();
    noStore.chat(ask("never stored"));
    noStore.chat(ask("never stored"));
    assertThat(fixture.sends()).isEqualTo(4);
  }

  private static io.pointsman.ChatResult result(ChatResponse response) {
    return ((PointsmanChatResponseMetadata) response.metadata()).result();
  }

  @Test
  void anUnknownModelIsModelNotFoundOnBothModels() throws Exception {
    PointsmanChatModel model = PointsmanChatModel.builder(gateway).virtualKey(KEY)
        .defaultModel("no-such-model").build();
    assertThatThrownBy(() -> model.chat(ask("x"))).isInstanceOf(ModelNotFoundException.class)
        .hasMessageContaining("404");

    PointsmanStreamingChatModel streaming = PointsmanStreamingChatModel.builder(gateway)
        .virtualKey(KEY).defaultModel("no-such-model").build();
    CompletableFuture<Throwable> error = new CompletableFuture<>();
    streaming.chat(ask("x"), new StreamingChatResponseHandler() {
      @Override
      public void onCompleteResponse(ChatResponse response) {
        error.complete(null);
      }

      @Override
      public void onError(Throwable e) {
        error.complete(e);
      }
    });
    assertThat(error.get(10, TimeUnit.SECONDS)).isInstanceOf(ModelNotFoundException.class);
  }

  private static String chunk(String delta, String finish) {
    return "data: {\"id\":\"chatcmpl-s\",\"object\":\"chat.completion.chunk\",\"created\":0,"
        + "\"model\":\"tool-mini\",\"choices\":[{\"index\":0,\"delta\":" + delta
        + ",\"finish_reason\":" + (finish == null ? "null" : "\"" + finish + "\"") + "}]}\n\n";
  }

  @Test
  void aStreamedToolCallArrivesInFragmentsThenWhole() throws Exception {
    http.enqueue(FixtureResponse.sse(List.of(
        chunk("{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"index\":0,"
            + "\"id\":\"call_9\",\"type\":\"function\",\"function\":{\"name\":\"temperature\","
            + "\"arguments\":\"\"}}]}", null),
        chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"city\\\":\"}}]}",
            null),
        chunk("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"Oslo\\\"}\"}}]}",
            null),
        chunk("{}", "tool_calls"),
        "data: {\"id\":\"chatcmpl-s\",\"object\":\"chat.completion.chunk\",\"created\":0,"
            + "\"model\":\"tool-mini\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,"
            + "\"completion_tokens\":12,\"total_tokens\":52}}\n\n",
        "data: [DONE]\n\n")));
    PointsmanStreamingChatModel model = PointsmanStreamingChatModel.builder(gateway)
        .virtualKey(KEY).defaultModel("tool-mini").build();
    List<PartialToolCall> partials = new CopyOnWriteArrayList<>();
    List<CompleteToolCall> completes = new CopyOnWriteArrayList<>();
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();

    model.chat(ChatRequest.builder().messages(UserMessage.from("How warm is Oslo?"))
        .toolSpecifications(ToolSpecification.builder().name("temperature")
            .parameters(JsonObjectSchema.builder().addStringProperty("city").build()).build())
        .build(), new StreamingChatResponseHandler() {
          @Override
          public void onPartialToolCall(PartialToolCall partial) {
            partials.add(partial);
          }

          @Override
          public void onCompleteToolCall(CompleteToolCall complete) {
            completes.add(complete);
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
    ChatResponse response = done.get(10, TimeUnit.SECONDS);

    assertThat(partials).extracting(PartialToolCall::index, PartialToolCall::id,
        PartialToolCall::name, PartialToolCall::partialArguments).containsExactly(
        org.assertj.core.groups.Tuple.tuple(0, "call_9", "temperature", "{\"city\":"),
        org.assertj.core.groups.Tuple.tuple(0, "call_9", "temperature", "\"Oslo\"}"));
    ToolExecutionRequest whole = ToolExecutionRequest.builder().id("call_9").name("temperature")
        .arguments("{\"city\":\"Oslo\"}").build();
    assertThat(completes).containsExactly(new CompleteToolCall(0, whole));
    assertThat(response.aiMessage().toolExecutionRequests()).containsExactly(whole);
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
    assertThat(response.tokenUsage().inputTokenCount()).isEqualTo(40);
    assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(12);
    assertThat(http.requests().get(0).bodyText()).contains("\"stream\":true",
        "\"include_usage\":true", "\"name\":\"temperature\"");
  }
}
