package io.pointsman.springai;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import reactor.core.Disposable;

/**
 * The usage the package documentation shows (and docs/integrations.md prints), as written
 * there, on a gateway with a fixture provider.
 */
class DocumentedUsageTest {
  private Gateway gateway;
  private FixtureProvider fixture;

  @BeforeEach
  void gateway() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey("pm-my-service-key", KeySpec.builder("service").build());
    keys.addKey("pm-tenant-a-key", KeySpec.builder("tenant-a").build());
    fixture = FixtureProvider.builder().streamChunks(50).chunkInterval(Duration.ofMillis(20))
        .recordCalls(true).build();
    gateway = Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
            .price(Price.of(150_000, 600_000)).build()).build())
        .provider("fixture", fixture)
        .deployment(Deployment.of("d", "fixture", "gpt-4o-mini"))
        .build();
  }

  @AfterEach
  void close() {
    gateway.close();
  }

  @Test
  void singleTenantServiceWithChatClient() {
    // snippet: spring-ai-chat-client
    ChatModel chatModel = PointsmanChatModel.builder(gateway)
        .keys(CallerKeys.fixed("pm-my-service-key"))
        .defaultModel("gpt-4o-mini")
        .build();
    ChatClient chatClient = ChatClient.create(chatModel);
    String answer = chatClient.prompt().user("What does a pointsman do?").call().content();
    // end snippet

    assertThat(answer).startsWith("Fixture reply ");
  }

  @Test
  void aVirtualKeyPerCall() {
    ChatClient chatClient = ChatClient.create(PointsmanChatModel.builder(gateway)
        .keys(CallerKeys.fixed("pm-my-service-key")).defaultModel("gpt-4o-mini").build());
    String tenantKey = "pm-tenant-a-key";

    // snippet: spring-ai-per-call-key
    String answer = chatClient.prompt()
        .user("What does a pointsman do?")
        .options(PointsmanChatOptions.builder().virtualKey(tenantKey).build())
        .call().content();
    // end snippet

    assertThat(answer).startsWith("Fixture reply ");
  }

  @Test
  void disposingAStreamCancelsTheCall() throws Exception {
    ChatClient chatClient = ChatClient.create(PointsmanChatModel.builder(gateway)
        .keys(CallerKeys.fixed("pm-my-service-key")).defaultModel("gpt-4o-mini").build());
    StringBuffer out = new StringBuffer();

    // snippet: spring-ai-stream
    Disposable subscription = chatClient.prompt().user("Tell me a long story.")
        .stream().content()
        .subscribe(out::append);
    // end snippet
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (out.length() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    subscription.dispose();
    Thread.sleep(300);

    String full = chatClient.prompt().user("Tell me a long story.").call().content();
    assertThat(out.length()).as("the stream stopped early").isPositive()
        .isLessThan(full.length() / 2);
    assertThat(full).startsWith(out.toString());
  }
}
