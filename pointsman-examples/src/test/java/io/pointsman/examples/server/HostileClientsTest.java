package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's HTTP server under hostile clients and a hanging upstream: slow header senders,
 * a provider that never answers, clients that leave mid-call, and its exact routes. The
 * upstream is a loopback OpenAI-compatible fixture: {@value #SLOW} never answers (its headers
 * are delayed for minutes, or a stream goes silent after two frames), {@code gpt-4o-mini}
 * answers at once.
 */
class HostileClientsTest {
  private static final String SLOW = "slow-model";
  private static final String FAST = "gpt-4o-mini";
  private static final String ADMIN = "admin-token-for-tests";

  @TempDir
  Path dir;

  private TestDatabase db;
  private HttpFixtureServer upstream;
  private FacadeServer server;
  private String key;
  private final AtomicInteger slowReceived = new AtomicInteger();
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    key = VirtualKeys.generate();
    upstream = HttpFixtureServer.start();
    upstream.recording(false);
    upstream.respondWith(this::respond);
    FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(),
        null, null, upstream.uri().toString(), null, ADMIN, 0, 1, null,
        List.of(model(FAST), model(SLOW)),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")), List.of());
    server = FacadeServer.start(Facade.open(config));
  }

  @AfterEach
  void tearDown() {
    server.close();
    upstream.close();
    db.close();
  }

  private static FacadeConfig.ModelEntry model(String name) {
    return new FacadeConfig.ModelEntry(name, List.of(), 150_000, 600_000, 75_000, 0, 0);
  }

  private FixtureResponse respond(RecordedRequest r) {
    String body = new String(r.body(), StandardCharsets.UTF_8);
    boolean stream = body.contains("\"stream\":true");
    if (body.contains("drip")) {
      // A stream that keeps coming, slowly, for a minute.
      return FixtureResponse.sse(600, i -> frame("{\"content\":\"w" + i + " \"}")
          .getBytes(StandardCharsets.UTF_8)).frameDelay(Duration.ofMillis(100));
    }
    if (body.contains(SLOW)) {
      slowReceived.incrementAndGet();
      if (stream) {
        return FixtureResponse.sse(List.of(frame("{\"role\":\"assistant\",\"content\":\"\"}"),
            frame("{\"content\":\"Hello\"}"), frame("{\"content\":\" never\"}"))).hangAfter(2);
      }
      return answer().headersDelay(Duration.ofMinutes(3));
    }
    if (stream) {
      return FixtureResponse.sse(List.of(frame("{\"role\":\"assistant\",\"content\":\"hi\"}"),
          "data: [DONE]\n\n"));
    }
    return answer();
  }

  private static String frame(String delta) {
    return "data: {\"id\":\"chatcmpl-h\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":" + delta
        + ",\"finish_reason\":null}]}\n\n";
  }

  private static FixtureResponse answer() {
    return FixtureResponse.json(200, "{\"id\":\"chatcmpl-h\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
        + "\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],\"usage\":"
        + "{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}");
  }

  private static String chat(String model, String text, boolean stream) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":20,\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
  }

  private HttpRequest.Builder request(String path) {
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
        .timeout(Duration.ofSeconds(10));
  }

  private HttpResponse<String> post(String path, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = request(path).POST(HttpRequest.BodyPublishers.ofString(body))
        .header("Authorization", "Bearer " + key);
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path) throws Exception {
    return http.send(request(path).GET().header("Authorization", "Bearer " + key).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> send(String method, String path) throws Exception {
    return http.send(request(path).method(method, HttpRequest.BodyPublishers.noBody())
        .header("Authorization", "Bearer " + key).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void routesAreExactAndAWrongMethodIs405WithAllow() throws Exception {
    HttpResponse<String> suffixed = post("/v1/chat/completionsXYZ", chat(FAST, "x", false));
    assertThat(suffixed.statusCode()).isEqualTo(404);
    assertThat(post("/v1/chat/completions/extra", chat(FAST, "x", false)).statusCode())
        .isEqualTo(404);
    HttpResponse<String> wrong = get("/v1/chat/completions");
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("allow")).hasValue("POST");
    assertThat(Json.mapper().readTree(wrong.body()).path("error").path("code").asText())
        .isEqualTo("method_not_allowed");
    HttpResponse<String> deleteModels = send("DELETE", "/v1/models");
    assertThat(deleteModels.statusCode()).isEqualTo(405);
    assertThat(deleteModels.headers().firstValue("allow")).hasValue("GET");
    assertThat(send("POST", "/healthz").statusCode()).isEqualTo(405);
    assertThat(get("/v1/modelsXYZ").statusCode()).isEqualTo(404);
    HttpResponse<String> adminWrong = http.send(request("/admin/budgets")
        .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + ADMIN)
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(adminWrong.statusCode()).isEqualTo(405);
    assertThat(adminWrong.headers().firstValue("allow")).hasValue("GET");
  }

  @Test
  void oneModelByIdIsThatModelAndAnUnknownIdIs404() throws Exception {
    HttpResponse<String> one = get("/v1/models/" + SLOW);
    assertThat(one.statusCode()).isEqualTo(200);
    JsonNode m = Json.mapper().readTree(one.body());
    assertThat(m.path("id").asText()).isEqualTo(SLOW);
    assertThat(m.path("object").asText()).isEqualTo("model");
    assertThat(m.has("data")).isFalse();
    HttpResponse<String> none = get("/v1/models/no-such-model");
    assertThat(none.statusCode()).isEqualTo(404);
    assertThat(Json.mapper().readTree(none.body()).path("error").path("code").asText())
        .isEqualTo("model_not_found");
    assertThat(Json.mapper().readTree(get("/v1/models").body()).path("data")).hasSize(2);
  }

  @Test
  void fiveHundredSlowHeaderSendersStopNeitherCallsNorHealthAndAreClosed() throws Exception {
    List<Socket> slow = new ArrayList<>();
    try {
      for (int i = 0; i < 500; i++) {
        Socket s = new Socket("127.0.0.1", server.port());
        s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n")
            .getBytes(StandardCharsets.US_ASCII));
        slow.add(s);
      }
      long[] micros = new long[200];
      for (int i = 0; i < micros.length; i++) {
        for (Socket s : slow.subList(0, 20)) {
          // A header byte now and then keeps an idle timeout from ending them.
          s.getOutputStream().write('X');
        }
        long t = System.nanoTime();
        HttpResponse<String> r = i % 2 == 0 ? post("/v1/chat/completions",
            chat(FAST, "slowloris " + i, false)) : get("/healthz");
        micros[i] = (System.nanoTime() - t) / 1_000;
        assertThat(r.statusCode()).as("call %d", i).isEqualTo(200);
      }
      Arrays.sort(micros);
      System.out.printf("normal client beside 500 slow header senders: p50 %.2f ms, p99 %.2f"
          + " ms over %d calls%n", micros[micros.length / 2] / 1000.0,
          micros[(int) (micros.length * 0.99)] / 1000.0, micros.length);
      // Past the header timeout the server closes every one of them.
      for (Socket s : slow) {
        s.setSoTimeout(30_000);
        InputStream in = s.getInputStream();
        assertThat(in.read()).as("closed by the server").isEqualTo(-1);
      }
    } finally {
      for (Socket s : slow) {
        s.close();
      }
    }
  }

  @Test
  void aHangingUpstreamFillsOnlyItsOwnBulkhead() throws Exception {
    int bulkhead = 64; // ServerLimits.defaults().deploymentConcurrency()
    List<CompletableFuture<HttpResponse<String>>> hanging = new ArrayList<>();
    HttpClient many = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    for (int i = 0; i < bulkhead; i++) {
      hanging.add(many.sendAsync(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
          + server.port() + "/v1/chat/completions")).timeout(Duration.ofMinutes(2))
          .header("Authorization", "Bearer " + key)
          .POST(HttpRequest.BodyPublishers.ofString(chat(SLOW, "hang " + i, false))).build(),
          HttpResponse.BodyHandlers.ofString()));
    }
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (slowReceived.get() < bulkhead && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(slowReceived.get()).as("calls held by the upstream").isEqualTo(bulkhead);

    HttpResponse<String> refused = post("/v1/chat/completions", chat(SLOW, "one more", false));
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("retry-after")).hasValue("1");
    assertThat(Json.mapper().readTree(refused.body()).path("error").path("code").asText())
        .isEqualTo("deployment_busy");
    assertThat(get("/healthz").statusCode()).isEqualTo(200);
    assertThat(get("/metrics").statusCode()).isEqualTo(200);
    assertThat(post("/v1/chat/completions", chat(FAST, "other deployment", false))
        .statusCode()).isEqualTo(200);
    assertThat(slowReceived.get()).as("the refused call never reached the upstream")
        .isEqualTo(bulkhead);
    hanging.forEach(f -> f.cancel(true));
  }

  @Test
  void aClientThatLeavesAPlainCallCancelsIt() throws Exception {
    Socket s = rawPost(chat(SLOW, "leaving", false), "leave-plain");
    awaitSlow(1);
    s.close();
    awaitMetric("chat", "499", 1);
    // The call ended: the deployment's slot is free and the call is recorded, not as a 500.
    server.close();
    List<String> row = ledger("SELECT outcome || ' ' || coalesce(http_status::text, '-')"
        + " FROM pointsman.ledger_entries WHERE request_id = 'leave-plain'");
    assertThat(row).hasSize(1);
    assertThat(row.get(0)).doesNotEndWith(" 500");
  }

  @Test
  void aClientThatLeavesAStreamCancelsItAsCancelled() throws Exception {
    Socket s = rawPost(chat(FAST, "drip", true), "leave-stream");
    readHead(s);
    s.close();
    awaitMetric("chat", "499", 1);
    server.close();
    assertThat(ledger("SELECT outcome FROM pointsman.ledger_entries"
        + " WHERE request_id = 'leave-stream'")).containsExactly("CANCELLED");
  }

  @Test
  void aClientThatLeavesASilentStreamEndsTheCall() throws Exception {
    Socket s = rawPost(chat(SLOW, "leaving stream", true), "leave-silent");
    readHead(s);
    s.close();
    awaitMetric("chat", "499", 1);
    server.close();
    // The upstream went silent after sending: recorded as the gateway decides, never as a
    // success and never as a server error.
    List<String> row = ledger("SELECT outcome || ' ' || coalesce(http_status::text, '-')"
        + " FROM pointsman.ledger_entries WHERE request_id = 'leave-silent'");
    assertThat(row).hasSize(1);
    assertThat(row.get(0)).doesNotStartWith("SUCCESS").doesNotEndWith(" 500");
  }

  private static void readHead(Socket s) throws Exception {
    InputStream in = s.getInputStream();
    s.setSoTimeout(10_000);
    byte[] head = new byte[4096];
    int n = in.read(head);
    assertThat(new String(head, 0, n, StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
  }

  @Test
  void aBodyOverTheLimitIs413BeforeItIsRead() throws Exception {
    try (Socket s = new Socket("127.0.0.1", server.port())) {
      s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
          + "Authorization: Bearer " + key + "\r\nContent-Length: "
          + (FacadeServer.MAX_BODY_BYTES + 1) + "\r\n\r\n{").getBytes(
              StandardCharsets.US_ASCII));
      s.setSoTimeout(10_000);
      byte[] head = new byte[4096];
      int n = s.getInputStream().read(head);
      assertThat(new String(head, 0, n, StandardCharsets.US_ASCII))
          .startsWith("HTTP/1.1 413").contains("request_too_large");
    }
  }

  @Test
  void aBodyThatDoesNotArriveInTimeIs408AndTheConnectionCloses() throws Exception {
    FacadeConfig config = new FacadeConfig(0, dir.resolve("journal-2").toString(),
        db.jdbcUrl(), null, null, upstream.uri().toString(), null, ADMIN, 0, 1, null,
        List.of(model(FAST)),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")), List.of());
    ServerLimits limits = ServerLimits.defaults().withTimeouts(Duration.ofSeconds(30),
        Duration.ofSeconds(10), Duration.ofSeconds(2));
    try (FacadeServer quick = FacadeServer.start(Facade.open(config), limits);
        Socket s = new Socket("127.0.0.1", quick.port())) {
      s.getOutputStream().write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
          + "Authorization: Bearer " + key + "\r\nContent-Length: 100\r\n\r\n{\"mo")
          .getBytes(StandardCharsets.US_ASCII));
      s.setSoTimeout(20_000);
      InputStream in = s.getInputStream();
      String answer = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("request_timeout");
    }
  }

  private Socket rawPost(String body, String requestId) throws Exception {
    Socket s = new Socket("127.0.0.1", server.port());
    byte[] b = body.getBytes(StandardCharsets.UTF_8);
    OutputStream out = s.getOutputStream();
    out.write(("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + key
        + "\r\nX-Request-Id: " + requestId + "\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + b.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
    out.write(b);
    out.flush();
    return s;
  }

  private void awaitSlow(int n) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (slowReceived.get() < n && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    assertThat(slowReceived.get()).isGreaterThanOrEqualTo(n);
  }

  private void awaitMetric(String route, String status, int atLeast) throws Exception {
    String line = "pointsman_http_requests_total{route=\"" + route + "\",code=\"" + status
        + "\"} ";
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    String text = "";
    while (System.nanoTime() < deadline) {
      text = get("/metrics").body();
      for (String l : text.split("\n")) {
        if (l.startsWith(line) && Double.parseDouble(l.substring(line.length())) >= atLeast) {
          return;
        }
      }
      Thread.sleep(50);
    }
    throw new AssertionError("no " + line + ">= " + atLeast + " within 20 s:\n" + text);
  }

  private List<String> ledger(String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }
}
