package io.pointsman.examples.spring;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.MeterRegistry;
import io.pointsman.Gateway;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The example application on its embedded defaults (a temporary journal, the embedded
 * PostgreSQL, the fixture provider), started whole on a random port and called over HTTP: the
 * answer of {@code POST /ask} through Spring AI's ChatClient, the {@code pointsman} health
 * component with its details, the Micrometer meters of pointsman-micrometer (in the registry
 * and on {@code /actuator/metrics}), and the ledger row the call produced on PostgreSQL.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class AskApplicationTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newHttpClient();

  @LocalServerPort
  int port;

  @Autowired
  DataSource dataSource;

  @Autowired
  MeterRegistry registry;

  @Autowired
  Gateway gateway;

  private JsonNode get(String path, int expectedStatus) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + port + path)).timeout(Duration.ofSeconds(30)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(path + ": " + r.body()).isEqualTo(expectedStatus);
    return JSON.readTree(r.body());
  }

  private long ledgerRows() throws Exception {
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pointsman.ledger_entries WHERE"
            + " key_id = 'ask-app' AND outcome = 'SUCCESS' AND cost_micros > 0")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void askAnswersOverHttpAndTheCallIsInTheHealthTheMetersAndTheLedger() throws Exception {
    assertThat(gateway.durability()).as("the starter built a durable gateway").isNotNull();
    HttpResponse<String> asked = http.send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + port + "/ask")).timeout(Duration.ofSeconds(30))
        .header("content-type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(
            "{\"question\":\"What does a pointsman do?\"}")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(asked.statusCode()).as(asked.body()).isEqualTo(200);
    JsonNode answer = JSON.readTree(asked.body());
    assertThat(answer.path("answer").asText()).isNotBlank();
    assertThat(answer.path("deployment").asText()).isEqualTo("fixture-mini");
    assertThat(answer.path("costMicros").asLong()).isPositive();
    String eventId = answer.path("eventId").asText();
    assertThat(eventId).isNotBlank();

    JsonNode health = get("/actuator/health", 200);
    JsonNode pointsman = health.path("components").path("pointsman");
    assertThat(pointsman.path("status").asText()).as(health.toString()).isEqualTo("UP");
    for (String part : new String[] {"journal", "settler", "counters", "database", "budgets"}) {
      assertThat(pointsman.path("details").path(part).path("status").asText())
          .as(part + " in " + pointsman).isEqualTo("UP");
    }
    assertThat(pointsman.path("details").path("durable").asBoolean()).isTrue();
    assertThat(pointsman.path("details").path("budgets").path("detail").asText())
        .contains("confirmed");

    assertThat(registry.find("pointsman.total").timer()).as("pointsman.total").isNotNull();
    assertThat(registry.find("pointsman.total").timer().count()).isEqualTo(1);
    assertThat(registry.find("pointsman.provider.attempt").timer().count()).isEqualTo(1);
    assertThat(registry.find("pointsman.cost").summary().totalAmount())
        .isEqualTo(answer.path("costMicros").asDouble());
    JsonNode total = get("/actuator/metrics/pointsman.total", 200);
    assertThat(total.path("measurements").get(0).path("statistic").asText()).isEqualTo("COUNT");
    assertThat(total.path("measurements").get(0).path("value").asDouble()).isEqualTo(1.0);

    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (ledgerRows() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(50);
    }
    assertThat(ledgerRows()).as("the settler put the call into PostgreSQL").isEqualTo(1);
    try (Connection c = dataSource.getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT model, deployment_id, cost_micros FROM"
            + " pointsman.ledger_entries WHERE event_id = '" + eventId + "'")) {
      assertThat(rs.next()).as("the answer's event id is the ledger row's").isTrue();
      assertThat(rs.getString(1)).isEqualTo("gpt-4o-mini");
      assertThat(rs.getString(2)).isEqualTo("fixture-mini");
      assertThat(rs.getLong(3)).isEqualTo(answer.path("costMicros").asLong());
    }
  }
}
