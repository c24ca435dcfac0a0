package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /healthz} reports the journal, the settler, the counters, the database and the
 * budgets separately, from background checks; {@code /metrics} answers from background
 * samples. A component that dies is named, and neither endpoint waits on it.
 */
class FacadeHealthTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir
  Path dir;

  private static FacadeConfig config(Path dir, String postgresUrl, String redisUrl, String key,
      String poorKey) {
    return new FacadeConfig(0, dir.resolve("journal").toString(), postgresUrl, redisUrl,
        "pmtest:" + UUID.randomUUID(), null, null, "admin", 0, 1, null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme"),
            new FacadeConfig.KeyEntry(poorKey, "key-budgeted", "trial", "acme")),
        List.of(new FacadeConfig.BudgetEntry("team:trial", 1_000_000)));
  }

  @Test
  void healthyIs200WithEveryComponentUp() throws Exception {
    try (TestDatabase db = TestDatabases.create()) {
      FacadeServer server = FacadeServer.start(Facade.open(config(dir, db.jdbcUrl(), null,
          VirtualKeys.generate(), VirtualKeys.generate())));
      try {
        FacadeHttp http = new FacadeHttp(server.port());
        HttpResponse<String> r = http.awaitHealth(h -> h.statusCode() == 200, WAIT);
        JsonNode body = FacadeHttp.json(r);
        assertThat(body.path("status").asText()).isEqualTo("ok");
        assertThat(body.path("failed")).isEmpty();
        for (String c : List.of("journal", "settler", "counters", "database", "budgets")) {
          assertThat(body.path("components").path(c).path("status").asText()).as(c)
              .isEqualTo("up");
          assertThat(body.path("components").path(c).path("checkedAt").asText()).as(c)
              .isNotBlank();
        }
      } finally {
        server.close();
      }
    }
  }

  @Test
  void redisDownIs503NamingTheCounters() throws Exception {
    int port = freePort();
    Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no")
        .redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
    try (TestDatabase db = TestDatabases.create()) {
      awaitRedis(port);
      FacadeServer server = FacadeServer.start(Facade.open(config(dir, db.jdbcUrl(),
          "redis://127.0.0.1:" + port, VirtualKeys.generate(), VirtualKeys.generate())));
      try {
        FacadeHttp http = new FacadeHttp(server.port());
        http.awaitHealth(h -> h.statusCode() == 200, WAIT);

        redis.destroyForcibly().waitFor();

        HttpResponse<String> r = http.awaitHealth(h -> FacadeHttp.failed(h, "counters"), WAIT);
        JsonNode body = FacadeHttp.json(r);
        assertThat(body.path("status").asText()).isEqualTo("failing");
        assertThat(body.path("failed")).extracting(JsonNode::asText)
            .containsExactly("counters");
        assertThat(body.path("components").path("counters").path("detail").asText())
            .contains("Redis");
        assertThat(body.path("components").path("database").path("status").asText())
            .isEqualTo("up");
      } finally {
        server.close();
      }
    } finally {
      redis.destroyForcibly().waitFor();
    }
  }

  @Test
  void databaseDownIs503NamingTheDatabaseWhileCallsAreServedAndMetricsAnswer()
      throws Exception {
    String key = VirtualKeys.generate();
    String budgeted = VirtualKeys.generate();
    try (OwnPostgres pg = OwnPostgres.start(dir.resolve("pg"))) {
      FacadeServer server = FacadeServer.start(Facade.open(config(dir, pg.jdbcUrl(), null, key,
          budgeted)));
      Set<String> events = new HashSet<>();
      try {
        FacadeHttp http = new FacadeHttp(server.port());
        http.awaitHealth(h -> h.statusCode() == 200, WAIT);
        events.add(served(http.post("/v1/chat/completions", budgeted,
            FacadeHttp.chat("before", false))));

        pg.stop();

        HttpResponse<String> r = http.awaitHealth(h -> FacadeHttp.failed(h, "database"), WAIT);
        assertThat(FacadeHttp.json(r).path("components").path("database").path("detail")
            .asText()).contains("unreachable");
        // Calls go on: their records wait in the journal; budgets were confirmed at start and
        // the in-process counters are exact, so budgeted calls are admitted too.
        events.add(served(http.post("/v1/chat/completions", key,
            FacadeHttp.chat("unbudgeted while down", false))));
        events.add(served(http.post("/v1/chat/completions", budgeted,
            FacadeHttp.chat("budgeted while down", false))));

        // Metrics answer from background samples, with the backlog the outage builds.
        HttpResponse<String> m = http.get("/metrics", null);
        assertThat(m.statusCode()).isEqualTo(200);
        Matcher backlog = Pattern.compile("(?m)^pointsman_journal_backlog (\\d+)$")
            .matcher(m.body());
        assertThat(backlog.find()).as(m.body()).isTrue();
        assertThat(m.body()).contains(
            "pointsman_gauge_refreshed_timestamp_seconds{gauge=\"pointsman_journal_backlog\"}")
            .contains("pointsman_health_up{component=\"database\"} 0");
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!m.body().matches("(?s).*\npointsman_journal_backlog [1-9].*")
            && System.nanoTime() < deadline) {
          Thread.sleep(100);
          m = http.get("/metrics", null);
        }
        assertThat(m.body()).containsPattern("(?m)^pointsman_journal_backlog [1-9]");

        pg.startAgain();
        http.awaitHealth(h -> h.statusCode() == 200, WAIT);
      } finally {
        server.close();
      }
      // Once the database is back, the journal settles every record exactly once.
      assertThat(pg.query("SELECT event_id FROM pointsman.ledger_entries"))
          .containsExactlyInAnyOrderElementsOf(events);
    }
  }

  @Test
  void metricsAnswerFromBackgroundSamplesWhileTheDatabaseIsDown() throws Exception {
    String key = VirtualKeys.generate();
    try (OwnPostgres pg = OwnPostgres.start(dir.resolve("pg"))) {
      FacadeServer server = FacadeServer.start(Facade.open(config(dir, pg.jdbcUrl(), null, key,
          VirtualKeys.generate())));
      try {
        FacadeHttp http = new FacadeHttp(server.port());
        assertThat(http.get("/metrics", null).body()).contains("pointsman_unresolved_holds ");
        pg.stop();
        assertThat(http.post("/v1/chat/completions", key, FacadeHttp.chat("while down", false))
            .statusCode()).isEqualTo(200);

        HttpResponse<String> m = http.get("/metrics", null);
        assertThat(m.statusCode()).as(m.body()).isEqualTo(200);
        assertThat(m.body()).containsPattern("(?m)^pointsman_journal_backlog \\d+$")
            .contains("pointsman_gauge_refreshed_timestamp_seconds{gauge=\"pointsman_journal_"
                + "backlog\"}")
            .contains("pointsman_gauge_refreshed_timestamp_seconds{gauge=\"pointsman_unresolved_"
                + "holds\"}");
        for (String line : m.body().split("\n")) {
          assertThat(line).matches("(# (HELP|TYPE) .*|[a-z_]+(\\{[^}]*})? -?[0-9.]+)");
        }
        pg.startAgain();
      } finally {
        server.close();
      }
    }
  }

  private static String served(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.headers().firstValue("x-pointsman-event-id").orElseThrow();
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void awaitRedis(int port) throws InterruptedException {
    long deadline = System.nanoTime() + WAIT.toNanos();
    List<String> errors = new ArrayList<>();
    while (System.nanoTime() < deadline) {
      try {
        new java.net.Socket("127.0.0.1", port).close();
        return;
      } catch (IOException e) {
        errors.add(e.getMessage());
        Thread.sleep(20);
      }
    }
    throw new AssertionError("redis-server did not listen on " + port + ": " + errors);
  }
}
