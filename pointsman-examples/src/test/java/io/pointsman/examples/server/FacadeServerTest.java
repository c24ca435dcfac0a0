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
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FacadeServerTest {
  private static final String ADMIN = "admin-token-for-tests";

  @TempDir
  Path dir;

  private TestDatabase db;
  private FacadeServer server;
  private String key;
  private String poorKey;
  private final HttpClient http = HttpClient.newHttpClient();

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    key = VirtualKeys.generate();
    poorKey = VirtualKeys.generate();
    FacadeConfig config = TestFacades.twoKeys(dir, db, key, poorKey, ADMIN);
    server = FacadeServer.start(Facade.open(config));
  }

  @AfterEach
  void tearDown() {
    server.close();
    db.close();
  }

  private HttpResponse<String> post(String path, String bearer, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + server.port() + path)).POST(HttpRequest.BodyPublishers.ofString(body));
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path, String bearer) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + server.port() + path)).GET();
    if (bearer != null) {
      b.header("Authorization", "Bearer " + bearer);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String chat(String text, boolean stream) {
    return "{\"model\":\"gpt-4o-mini\",\"temperature\":0,\"max_tokens\":50,\"stream\":" + stream
        + (stream ? ",\"stream_options\":{\"include_usage\":true}" : "")
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
  }

  @Test
  void plainCompletionCarriesTheOpenAiShapeAndTheAccountingHeaders() throws Exception {
    HttpResponse<String> r = post("/v1/chat/completions", key, chat("hello there", false),
        "X-Request-Id", "client-req-1");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = Json.mapper().readTree(r.body());
    assertThat(body.path("object").asText()).isEqualTo("chat.completion");
    assertThat(body.path("choices").get(0).path("message").path("content").asText()).isNotBlank();
    assertThat(body.path("usage").path("prompt_tokens").asLong()).isPositive();
    assertThat(r.headers().firstValue("x-request-id")).hasValue("client-req-1");
    assertThat(r.headers().firstValue("x-pointsman-cache")).hasValue("MISS(exact)");
    long cost = Long.parseLong(r.headers().firstValue("x-pointsman-cost-micros").orElseThrow());
    assertThat(cost).isPositive();
    String eventId = r.headers().firstValue("x-pointsman-event-id").orElseThrow();

    // The same question again is an exact hit; no-cache bypasses it; no-store neither reads
    // nor stores.
    HttpResponse<String> hit = post("/v1/chat/completions", key, chat("hello there", false));
    assertThat(hit.headers().firstValue("x-pointsman-cache")).hasValue("HIT(exact)");
    assertThat(hit.headers().firstValue("x-pointsman-cost-micros")).hasValue("0");
    HttpResponse<String> bypass = post("/v1/chat/completions", key, chat("hello there", false),
        "X-Cache-Control", "no-cache");
    assertThat(bypass.headers().firstValue("x-pointsman-cache")).hasValue("BYPASS(no-cache)");
    post("/v1/chat/completions", key, chat("never stored", false), "X-Cache-Control",
        "no-store");
    HttpResponse<String> after = post("/v1/chat/completions", key, chat("never stored", false));
    assertThat(after.headers().firstValue("x-pointsman-cache")).hasValue("MISS(exact)");
    HttpResponse<String> bad = post("/v1/chat/completions", key, chat("x", false),
        "X-Cache-Control", "sometimes");
    assertThat(bad.statusCode()).isEqualTo(400);

    // The graceful close drains the journal: every acknowledged call is a ledger row.
    server.close();
    assertThat(ledger("SELECT cost_micros FROM pointsman.ledger_entries WHERE event_id = '"
        + eventId + "'")).containsExactly(Long.toString(cost));
    // Five calls reached the gateway; the bad X-Cache-Control was refused before it.
    assertThat(ledger("SELECT count(*) FROM pointsman.ledger_entries"))
        .containsExactly("5");
  }

  @Test
  void streamedCompletionIsServerSentEventsEndingInDoneAfterTheCostComment() throws Exception {
    HttpResponse<String> r = post("/v1/chat/completions", key, chat("stream me", true));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    List<String> data = new ArrayList<>();
    String comment = null;
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data: ")) {
        data.add(line.substring(6));
      } else if (line.startsWith(": pointsman ")) {
        comment = line;
      }
    }
    assertThat(data.get(data.size() - 1)).isEqualTo("[DONE]");
    assertThat(data).hasSizeGreaterThan(2);
    StringBuilder text = new StringBuilder();
    boolean usageSeen = false;
    for (String d : data.subList(0, data.size() - 1)) {
      JsonNode chunk = Json.mapper().readTree(d);
      assertThat(chunk.path("object").asText()).isEqualTo("chat.completion.chunk");
      if (chunk.path("choices").size() > 0) {
        text.append(chunk.path("choices").get(0).path("delta").path("content").asText(""));
      }
      usageSeen |= chunk.path("usage").path("completion_tokens").asLong() > 0;
    }
    assertThat(text.toString()).isNotBlank();
    assertThat(usageSeen).as("include_usage gives a usage chunk").isTrue();
    assertThat(comment).contains("cost_micros=").contains("cost_micros=").contains("cache=SKIPPED(stream)");
    assertThat(r.body().indexOf(": pointsman")).isLessThan(r.body().indexOf("data: [DONE]"));
  }

  @Test
  void errorsAreTypedOpenAiErrorsWithTheGatewayStatus() throws Exception {
    HttpResponse<String> noKey = post("/v1/chat/completions", null, chat("x", false));
    assertThat(noKey.statusCode()).isEqualTo(401);
    assertThat(noKey.headers().firstValue("www-authenticate")).hasValue("Bearer");
    HttpResponse<String> badKey = post("/v1/chat/completions", "pm-garbage", chat("x", false));
    assertThat(badKey.statusCode()).isEqualTo(401);
    assertThat(Json.mapper().readTree(badKey.body()).path("error").path("message").asText())
        .contains("virtual key");
    assertThat(Json.mapper().readTree(badKey.body()).path("error").path("code").asText())
        .isEqualTo("invalid_api_key");
    assertThat(badKey.headers().firstValue("x-pointsman-stage")).hasValue("identity.auth");
    HttpResponse<String> badJson = post("/v1/chat/completions", key, "{\"model\":");
    assertThat(badJson.statusCode()).isEqualTo(400);
    assertThat(Json.mapper().readTree(badJson.body()).path("error").path("type").asText())
        .isEqualTo("invalid_request_error");
    HttpResponse<String> unknownModel = post("/v1/chat/completions", key,
        chat("x", false).replace("gpt-4o-mini", "no-such-model"));
    assertThat(unknownModel.statusCode()).isEqualTo(404);
    // The trial team's budget of 20 micro-units cannot hold a 50-token answer's reservation.
    HttpResponse<String> poor = post("/v1/chat/completions", poorKey, chat("x", false));
    assertThat(poor.statusCode()).isEqualTo(402);
    HttpResponse<String> poorStream = post("/v1/chat/completions", poorKey, chat("x", true));
    assertThat(poorStream.statusCode()).as("refused before any event").isEqualTo(402);
    assertThat(get("/nope", null).statusCode()).isEqualTo(404);
  }

  @Test
  void hostileInputIsATypedErrorAndNeverReachesTheLedger() throws Exception {
    List<String> bodies = List.of("", "null", "[]", "{\"model\":1}",
        "{\"model\":\"gpt-4o-mini\",\"messages\":\"hi\"}",
        "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"pirate\",\"content\":\"x\"}]}",
        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":-5,\"messages\":[{\"role\":\"user\","
            + "\"content\":\"x\"}]}",
        "{\"model\":\"gpt-4o-mini\",\"max_tokens\":99999999999,\"messages\":[]}",
        "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\",\"content\":\"\\ud800\"}]}");
    for (String body : bodies) {
      HttpResponse<String> r = post("/v1/chat/completions", key, body);
      assertThat(r.statusCode()).as(body).isBetween(400, 404);
      JsonNode error = Json.mapper().readTree(r.body()).path("error");
      assertThat(error.path("message").asText()).as(body).isNotBlank();
    }
    // A request id that is not well-formed is replaced, never echoed into a header.
    HttpResponse<String> r = post("/v1/chat/completions", key, chat("ids", false),
        "X-Request-Id", "has spaces and ; semicolons");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("x-request-id").orElseThrow()).startsWith("req-");
    server.close();
    // The facade closed its pool; read the ledger through the test's own connection.
    assertThat(io.pointsman.ledger.PostgresSettlement.create(db.dataSource()).unresolvedHolds()
        .unresolved()).isZero();
    assertThat(server.facade().limiter().budget(io.pointsman.limits.Scope.team("trial"))
        .heldMicros()).isZero();
  }

  @Test
  void modelsListOnlyWhatTheKeyMayUse() throws Exception {
    server.close();
    String narrow = VirtualKeys.generate();
    FacadeConfig config = new FacadeConfig(0, dir.resolve("journal2").toString(), db.jdbcUrl(),
        null, null, null, null, ADMIN, 0, 5, null,
        List.of(new FacadeConfig.ModelEntry("gpt-4o-mini", List.of(), 150_000, 600_000, 75_000,
            0, 0), new FacadeConfig.ModelEntry("gpt-4o", List.of(), 2_500_000, 10_000_000,
            1_250_000, 0, 0)),
        List.of(new FacadeConfig.KeyEntry(narrow, "key-narrow", "t", "o", List.of("gpt-4o")),
            new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")),
        List.of());
    server = FacadeServer.start(Facade.open(config));
    assertThat(Json.mapper().readTree(get("/v1/models", narrow).body()).path("data"))
        .extracting(n -> n.path("id").asText()).containsExactly("gpt-4o");
    assertThat(Json.mapper().readTree(get("/v1/models", key).body()).path("data"))
        .extracting(n -> n.path("id").asText()).containsExactlyInAnyOrder("gpt-4o", "gpt-4o-mini");
    assertThat(post("/v1/chat/completions", narrow, chat("x", false)).statusCode())
        .as("a model the key may not use").isEqualTo(403);
  }

  @Test
  void modelsNeedAValidKeyAndListTheCatalog() throws Exception {
    assertThat(get("/v1/models", null).statusCode()).isEqualTo(401);
    assertThat(get("/v1/models", "pm-garbage").statusCode()).isEqualTo(401);
    HttpResponse<String> r = get("/v1/models", key);
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode body = Json.mapper().readTree(r.body());
    assertThat(body.path("object").asText()).isEqualTo("list");
    assertThat(body.path("data").get(0).path("id").asText()).isEqualTo("gpt-4o-mini");
  }

  @Test
  void metricsExposeStageTimersAndRequestCountsAsPrometheusText() throws Exception {
    post("/v1/chat/completions", key, chat("metrics", false));
    post("/v1/chat/completions", null, chat("metrics", false));
    HttpResponse<String> r = get("/metrics", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type").orElseThrow()).startsWith("text/plain");
    assertThat(r.body())
        .contains("# TYPE pointsman_stage_seconds summary")
        .containsPattern("pointsman_stage_seconds_count\\{stage=\"identity.auth\"} [1-9]")
        .contains("pointsman_http_requests_total{route=\"chat\",code=\"200\"} 1")
        .contains("pointsman_http_requests_total{route=\"chat\",code=\"401\"} 1")
        .contains("pointsman_journal_backlog ")
        .contains("pointsman_unresolved_holds 0");
    for (String line : r.body().split("\n")) {
      assertThat(line).matches("(# (HELP|TYPE) .*|[a-z_]+(\\{[^}]*})? -?[0-9.]+)");
    }
  }

  @Test
  void adminEndpointsNeedTheAdminTokenAndShowBudgets() throws Exception {
    assertThat(get("/admin/budgets", key).statusCode()).isEqualTo(401);
    HttpResponse<String> r = get("/admin/budgets", ADMIN);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(Json.mapper().readTree(r.body()).path("budget:team:trial").path("limitMicros")
        .asLong()).isEqualTo(20);
    assertThat(get("/admin/holds/nope", ADMIN).statusCode()).isEqualTo(404);
    HttpResponse<String> attest = post("/admin/holds/nope/attest", ADMIN,
        "{\"costMicros\":1,\"epoch\":1,\"evidence\":\"x\"}");
    assertThat(attest.statusCode()).isEqualTo(409);
    assertThat(attest.body()).contains("NOT_FOUND");
    assertThat(post("/admin/holds/nope/attest", ADMIN, "{\"costMicros\":1}").statusCode())
        .isEqualTo(400);
  }

  @Test
  void closingRefusesNewRequestsAndDrainsTheJournal() throws Exception {
    post("/v1/chat/completions", key, chat("before close", false));
    server.close();
    assertThat(server.facade().accounting().backlog()).isZero();
    assertThat(ledger("SELECT count(*) FROM pointsman.ledger_entries")).containsExactly("1");
  }

  private List<String> ledger(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
