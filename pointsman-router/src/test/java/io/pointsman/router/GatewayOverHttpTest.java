package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.HttpTimeouts;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.RetryPolicy;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The adapters, the router and the retry policy inside a real gateway, over loopback HTTP. */
class GatewayOverHttpTest {
  private static final String KEY = "pm-http-key-0001";
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final InMemoryAccounting accounting = new InMemoryAccounting();
  private final ModelCatalog catalog = ModelCatalog.builder()
      .model(ModelSpec.builder("big").contextWindow(8192).maxOutputTokens(256)
          .price(Price.of(1_000_000, 2_000_000)).build())
      .model(ModelSpec.builder("small").contextWindow(8192).maxOutputTokens(256)
          .price(Price.of(100_000, 200_000)).build())
      .build();

  @AfterEach
  void stop() {
    server.close();
  }

  private Gateway.Builder gateway(DeploymentRouter router, RetryPolicy policy) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
    OpenAiProvider provider = OpenAiProvider.builder().baseUri(server.uri())
        .timeouts(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5),
            Duration.ofSeconds(5), Duration.ofSeconds(30))).build();
    return Gateway.builder().authenticator(keys).models(catalog).accounting(accounting)
        .provider("http", provider)
        .router(router).retryPolicy(policy);
  }

  private static String completion(String text) {
    return "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text
        + "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,"
        + "\"completion_tokens\":5,\"total_tokens\":15}}";
  }

  private static ChatRequest ask(boolean stream) {
    ChatRequest.Builder b = ChatRequest.builder().model("big")
        .addMessage(Message.user("hello")).maxTokens(50);
    return stream ? b.stream(true).build() : b.build();
  }

  @Test
  void fallsBackToAnotherModelAtThatModelsPriceWithEveryAttemptAccounted() {
    DeploymentRouter router = DeploymentRouter.builder().catalog(catalog)
        .deployment(Deployment.of("big-1", "http", "big"))
        .deployment(Deployment.of("small-1", "http", "small"))
        .fallback("big", "small").build();
    // A 503 is a refusal before processing (not billed), so only small's answer is charged; a
    // 500 would be an unknown outcome charged its worst case (providers.md, billing).
    server.enqueue(FixtureResponse.json(503, "{\"error\":{\"message\":\"overloaded\"}}"));
    server.enqueue(FixtureResponse.json(200, completion("from small")));

    ChatResult result = gateway(router, RetryPolicy.attempts(2)).build()
        .chat(ask(false), CallOptions.of(KEY));

    assertThat(result.deploymentId()).isEqualTo("small-1");
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(accounting.intents()).hasSize(2);
    assertThat(server.requests().get(1).bodyText()).contains("\"model\":\"small\"");
    // 10 input at 0.1 + 5 output at 0.2 micro-units per token: small's price, not big's.
    assertThat(result.costMicros()).isEqualTo(2);
  }

  @Test
  void retryHonoursTheProvidersRetryAfter() {
    DeploymentRouter router = DeploymentRouter.builder()
        .deployment(Deployment.of("big-1", "http", "big")).build();
    List<Duration> pauses = new ArrayList<>();
    BackoffRetryPolicy backoff = BackoffRetryPolicy.builder().maxAttempts(3)
        .backoff(Duration.ofMillis(1), Duration.ofMillis(2)).random(new SplittableRandom(1))
        .build();
    RetryPolicy recording = new RetryPolicy() {
      @Override
      public int maxAttempts() {
        return backoff.maxAttempts();
      }

      @Override
      public Duration retryAfter(int attempt, ProviderException failure) {
        Duration d = backoff.retryAfter(attempt, failure);
        pauses.add(d);
        return d;
      }
    };
    server.enqueue(FixtureResponse.json(429, "{}").header("retry-after-ms", "120"));
    server.enqueue(FixtureResponse.json(200, completion("ok")));

    ChatResult result = gateway(router, recording).build().chat(ask(false),
        CallOptions.of(KEY));

    assertThat(result.response().firstText()).isEqualTo("ok");
    // Asked once with the hint (the pause taken: the retry goes to the same, only deployment)
    // and once without it (the pause had the retry gone to another deployment).
    assertThat(pauses).hasSize(2);
    assertThat(pauses.get(0)).isEqualTo(Duration.ofMillis(120));
    assertThat(pauses.get(1)).isLessThanOrEqualTo(Duration.ofMillis(2));
    assertThat(server.requests()).hasSize(2);
    assertThat(accounting.intents()).hasSize(2);
  }

  @Test
  void cancellingMidStreamSettlesInputPlusTheStreamedOutputAsEstimated() {
    DeploymentRouter router = DeploymentRouter.builder()
        .deployment(Deployment.of("big-1", "http", "big")).build();
    List<String> frames = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      frames.add("data: {\"id\":\"s\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
          + "\"delta\":{\"content\":\"word" + i + " \"},\"finish_reason\":null}]}\n\n");
    }
    frames.add("data: {\"id\":\"s\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":"
        + "{\"prompt_tokens\":10,\"completion_tokens\":50,\"total_tokens\":60}}\n\n");
    frames.add("data: [DONE]\n\n");
    server.enqueue(FixtureResponse.sse(frames).frameDelay(Duration.ofMillis(2)));
    List<ChatChunk> seen = new ArrayList<>();

    ChatResult result = gateway(router, RetryPolicy.attempts(1)).build().stream(ask(true),
        CallOptions.of(KEY), new StreamObserver() {
          private StreamControl control;

          @Override
          public void onStart(StreamControl c) {
            control = c;
          }

          @Override
          public void onChunk(ChatChunk chunk) {
            seen.add(chunk);
            if (seen.size() == 3) {
              control.cancel();
            }
          }
        });

    UsageRecord record = accounting.records().get(0);
    assertThat(seen).hasSize(3);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.CANCELLED);
    assertThat(record.costEstimated()).isTrue();
    assertThat(record.usage().completionTokens())
        .as("only what was streamed before the cancel").isBetween(3L, 12L);
    assertThat(record.usage().promptTokens()).isPositive();
    assertThat(result.outcome()).isEqualTo(UsageOutcome.CANCELLED);
  }
}
