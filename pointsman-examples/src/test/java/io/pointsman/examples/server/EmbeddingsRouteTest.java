package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code POST /v1/embeddings} on the facade, in front of its in-process fixture provider. */
class EmbeddingsRouteTest {
  @TempDir
  Path dir;

  private TestDatabase db;
  private FacadeServer server;
  private String key;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    key = VirtualKeys.generate();
    FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(),
        null, null, null, null, null, 0, 5, null,
        List.of(new FacadeConfig.ModelEntry("gpt-4o-mini", List.of(), 150_000, 600_000,
                75_000, 0, 0),
            new FacadeConfig.ModelEntry("text-embedding-3-small", List.of("small"), 20_000, 0,
                0, 8_191, 0, List.of(FacadeConfig.ModelEntry.EMBEDDINGS), 0)),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")), List.of());
    server = FacadeServer.start(Facade.open(config));
  }

  @AfterEach
  void tearDown() {
    server.close();
    db.close();
  }

  private HttpResponse<String> send(String method, String bearer, String body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + server.port() + "/v1/embeddings")).method(method, body == null
        ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static JsonNode json(HttpResponse<String> r) {
    return Json.read(r.body().getBytes(StandardCharsets.UTF_8), JsonNode.class);
  }

  @Test
  void anEmbeddingsRequestIsAnsweredInOpenAisShapeWithTheCostHeaders() throws Exception {
    HttpResponse<String> r = send("POST", key, "{\"model\":\"small\",\"input\":[\"a\",\"b\"]}");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = json(r);
    assertThat(body.get("object").asText()).isEqualTo("list");
    assertThat(body.get("data")).hasSize(2);
    assertThat(body.get("data").get(1).get("index").asInt()).isEqualTo(1);
    assertThat(body.get("data").get(0).get("embedding").isArray()).isTrue();
    assertThat(body.get("usage").get("prompt_tokens").asLong()).isPositive();
    assertThat(r.headers().firstValue("x-pointsman-cost-micros")).hasValue("1");
    assertThat(r.headers().firstValue("x-pointsman-cache")).hasValue("MISS(embeddings)");
    assertThat(r.headers().firstValue("x-pointsman-event-id")).isPresent();
    assertThat(r.headers().firstValue("x-request-id")).isPresent();
  }

  @Test
  void refusalsFollowTheOpenAiErrorContract() throws Exception {
    HttpResponse<String> get = send("GET", key, null);
    assertThat(get.statusCode()).isEqualTo(405);
    assertThat(get.headers().firstValue("allow")).hasValue("POST");

    HttpResponse<String> noKey = send("POST", null, "{\"model\":\"small\",\"input\":\"a\"}");
    assertThat(noKey.statusCode()).isEqualTo(401);
    assertThat(json(noKey).get("error").get("code").asText()).isEqualTo("invalid_api_key");

    HttpResponse<String> badKey = send("POST", VirtualKeys.generate(),
        "{\"model\":\"small\",\"input\":\"a\"}");
    assertThat(badKey.statusCode()).isEqualTo(401);

    HttpResponse<String> notJson = send("POST", key, "{\"model\":");
    assertThat(notJson.statusCode()).isEqualTo(400);
    assertThat(json(notJson).get("error").get("code").asText()).isEqualTo("invalid_json");

    HttpResponse<String> chatModel = send("POST", key,
        "{\"model\":\"gpt-4o-mini\",\"input\":\"a\"}");
    assertThat(chatModel.statusCode()).isEqualTo(400);
    JsonNode error = json(chatModel).get("error");
    assertThat(error.get("code").asText()).isEqualTo("unsupported_value");
    assertThat(error.get("param").asText()).isEqualTo("model");
    assertThat(chatModel.headers().firstValue("x-pointsman-rule"))
        .hasValue("capability:embeddings");

    HttpResponse<String> tokens = send("POST", key,
        "{\"model\":\"small\",\"input\":[[1,2],[3,-4]]}");
    assertThat(tokens.statusCode()).isEqualTo(400);
    assertThat(json(tokens).get("error").get("param").asText()).isEqualTo("input[1][1]");

    HttpResponse<String> unknown = send("POST", key, "{\"model\":\"nope\",\"input\":\"a\"}");
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(json(unknown).get("error").get("code").asText()).isEqualTo("model_not_found");
  }
}
