package io.pointsman.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Journal;
import io.pointsman.spi.Ledger;
import io.pointsman.testing.FixtureProvider;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The example application with a {@code Gateway} bean of its own: the auto-configured gateway
 * and its parts (journal, ledger) back off, the Spring AI chat model, the caller key and the
 * health indicator apply to the application's gateway, and {@code POST /ask} is answered by it.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = {AskApplication.class, OwnGatewayTest.OwnGateway.class})
class OwnGatewayTest {
  private static final String REPLY = "answered by the application's own gateway";

  /** The application's own gateway: not durable, its own key, catalog and provider. */
  @TestConfiguration(proxyBeanMethods = false)
  static class OwnGateway {
    @Bean
    Gateway myGateway() {
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      keys.addKey("pm-example-ask-key-1", KeySpec.builder("own-key").build());
      return Gateway.builder().authenticator(keys)
          .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
              .price(Price.of(1_000, 2_000)).build()).build())
          .provider("own", FixtureProvider.builder().reply(request -> REPLY).build())
          .deployment(Deployment.of("own-mini", "own", "gpt-4o-mini"))
          .build();
    }
  }

  @LocalServerPort
  int port;

  @Autowired
  ApplicationContext context;

  @Test
  void theAutoConfiguredGatewayBacksOffForTheApplicationsOwn() throws Exception {
    assertThat(context.getBeansOfType(Gateway.class)).containsOnlyKeys("myGateway");
    assertThat(context.getBeansOfType(Journal.class)).isEmpty();
    assertThat(context.getBeansOfType(Ledger.class)).isEmpty();
    assertThat(context.getBean(Gateway.class).durability()).isNull();

    HttpClient http = HttpClient.newHttpClient();
    HttpResponse<String> asked = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + port + "/ask")).timeout(Duration.ofSeconds(30))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString("{\"question\":\"Who answers?\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(asked.statusCode()).as(asked.body()).isEqualTo(200);
    JsonNode answer = new ObjectMapper().readTree(asked.body());
    assertThat(answer.path("answer").asText()).isEqualTo(REPLY);
    assertThat(answer.path("deployment").asText()).isEqualTo("own-mini");

    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + port + "/actuator/health")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    JsonNode pointsman = new ObjectMapper().readTree(health.body()).path("components")
        .path("pointsman");
    assertThat(pointsman.path("status").asText()).isEqualTo("UP");
    assertThat(pointsman.path("details").path("durable").asBoolean(true)).isFalse();
  }
}
