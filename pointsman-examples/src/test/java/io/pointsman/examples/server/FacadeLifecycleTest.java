package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.Scope;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The facade's process lifecycle: where its durable state lives, stopping, starting. */
class FacadeLifecycleTest {
  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir
  Path dir;

  /**
   * Without a journal option the durable facade keeps its journal in the data directory, the
   * same one at every start and kept after a stop, so a crash's unsettled records are where
   * the next start looks (it used to take a new temporary directory each time).
   */
  @Test
  void withoutAJournalOptionTheJournalIsTheDataDirectorysAcrossStarts() throws Exception {
    Path data = dir.resolve("data");
    try (TestDatabase db = TestDatabases.create()) {
      FacadeConfig config = FacadeConfig.fromArgs("--data-dir", data.toString(),
          "--postgres-url", db.jdbcUrl(), "--port", "0");
      String first;
      try (Facade facade = Facade.open(config)) {
        first = journalLine(facade);
        String key = config.keys().get(0).key();
        facade.gateway().chat(Json.readRequest(FacadeHttp.chat("kept", false)
            .getBytes(StandardCharsets.UTF_8)), io.pointsman.CallOptions.builder(key).build());
      }
      Path journal = data.resolve("journal").toAbsolutePath();
      assertThat(first).isEqualTo("journal:    " + journal);
      try (Stream<Path> files = Files.list(journal)) {
        assertThat(files.count()).as("the journal outlives the process").isPositive();
      }
      try (Facade facade = Facade.open(config)) {
        assertThat(journalLine(facade)).isEqualTo(first);
      }
    }
  }

  private static String journalLine(Facade facade) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    facade.describe(new PrintStream(out, true, StandardCharsets.UTF_8));
    return out.toString(StandardCharsets.UTF_8).lines().map(String::trim)
        .filter(l -> l.startsWith("journal:")).findFirst().orElseThrow();
  }

  /**
   * A stream that outlives the drain window is cancelled through the gateway: the client gets
   * an error event (not a cut connection), and the call is settled as cancelled for what was
   * streamed, with nothing left held.
   */
  @Test
  void aGracefulStopCancelsAStreamLongerThanTheDrainWindowAndSettlesIt() throws Exception {
    String key = VirtualKeys.generate();
    List<String> frames = new ArrayList<>();
    String head = "data: {\"id\":\"chatcmpl-long\",\"object\":\"chat.completion.chunk\","
        + "\"created\":1741569952,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,"
        + "\"delta\":";
    frames.add(head + "{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}\n\n");
    for (int i = 0; i < 1_000; i++) {
      frames.add(head + "{\"content\":\"word" + i + " \"},\"finish_reason\":null}]}\n\n");
    }
    frames.add(head + "{},\"finish_reason\":\"stop\"}]}\n\n");
    frames.add("data: [DONE]\n\n");
    try (TestDatabase db = TestDatabases.create();
        HttpFixtureServer upstream = HttpFixtureServer.start()) {
      // A thousand frames 100 ms apart: far longer than the one-second drain window.
      upstream.respondWith(r -> FixtureResponse.sse(frames).frameDelay(Duration.ofMillis(100)));
      FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(),
          db.jdbcUrl(), null, null, upstream.uri().toString(), null, null, 0, 1, null,
          List.of(), List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme")),
          List.of(new FacadeConfig.BudgetEntry("team:checkout", 50_000_000)));
      FacadeServer server = FacadeServer.start(Facade.open(config));
      FacadeHttp http = new FacadeHttp(server.port());
      CountDownLatch firstFrame = new CountDownLatch(1);
      List<String> lines = java.util.Collections.synchronizedList(new ArrayList<>());
      HttpResponse<Stream<String>> response = http.client().send(HttpRequest.newBuilder(
              http.uri("/v1/chat/completions")).header("Authorization", "Bearer " + key)
          .POST(HttpRequest.BodyPublishers.ofString(FacadeHttp.chat("a long one", true)))
          .build(), HttpResponse.BodyHandlers.ofLines());
      assertThat(response.statusCode()).isEqualTo(200);
      CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
        try (Stream<String> body = response.body()) {
          body.forEach(l -> {
            lines.add(l);
            if (l.startsWith("data: {")) {
              firstFrame.countDown();
            }
          });
        } catch (RuntimeException e) {
          lines.add("CLOSED: " + e);
        }
      });
      assertThat(firstFrame.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      server.close();
      reading.get(WAIT.toSeconds(), TimeUnit.SECONDS);

      List<String> events = lines.stream().filter(l -> l.startsWith("data: ")).toList();
      assertThat(events).doesNotContain("data: [DONE]");
      JsonNode last = Json.mapper().readTree(events.get(events.size() - 1).substring(6));
      assertThat(last.path("error").path("code").asText()).as(lines.toString())
          .isEqualTo("shutting_down");
      assertThat(last.path("error").path("message").asText()).contains("cancelled");
      assertThat(lines).anyMatch(l -> l.startsWith(": pointsman event_id="));

      // Settled as cancelled, charged, nothing held: not an UNKNOWN hold for the next start.
      assertThat(query(db, "SELECT outcome || '/' || (cost_micros > 0) FROM"
          + " pointsman.ledger_entries")).containsExactly("CANCELLED/true");
      assertThat(query(db, "SELECT state FROM pointsman.reservations"))
          .containsExactly("SETTLED");
      assertThat(server.facade().limiter().budget(Scope.team("checkout")).heldMicros())
          .isZero();
      assertThat(server.facade().accounting().backlog()).isZero();
    }
  }

  /**
   * Starting while PostgreSQL is down: the facade starts and recovers its journal; calls no
   * budget governs are served, budgeted calls are refused (503, budget.unconfirmed) until the
   * database is back and the counters are rebuilt from it; then budgets admit again, the
   * counters include what was spent before, and every record is in the ledger once.
   */
  @Test
  void startingWhilePostgresIsDownServesUnbudgetedCallsAndRefusesBudgetedOnesUntilItIsBack()
      throws Exception {
    String key = VirtualKeys.generate();
    String budgeted = VirtualKeys.generate();
    try (OwnPostgres pg = OwnPostgres.start(dir.resolve("pg"))) {
      FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(),
          pg.jdbcUrl(), null, null, null, null, "admin", 0, 1, null, List.of(),
          List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme"),
              new FacadeConfig.KeyEntry(budgeted, "key-budgeted", "trial", "acme")),
          List.of(new FacadeConfig.BudgetEntry("team:trial", 1_000_000)));
      List<String> events = new ArrayList<>();
      long spentBefore = 0;
      // A first run spends on the budget, then loses its database: those records stay in its
      // journal when it stops.
      FacadeServer first = FacadeServer.start(Facade.open(config));
      try {
        FacadeHttp http = new FacadeHttp(first.port());
        HttpResponse<String> r = http.post("/v1/chat/completions", budgeted,
            FacadeHttp.chat("spent before", false));
        assertThat(r.statusCode()).isEqualTo(200);
        events.add(r.headers().firstValue("x-pointsman-event-id").orElseThrow());
        spentBefore += cost(r);
        pg.stop();
        r = http.post("/v1/chat/completions", budgeted, FacadeHttp.chat("spent while down",
            false));
        assertThat(r.statusCode()).isEqualTo(200);
        events.add(r.headers().firstValue("x-pointsman-event-id").orElseThrow());
        spentBefore += cost(r);
      } finally {
        first.close();
      }

      // Start again with the database still down.
      FacadeServer server = FacadeServer.start(Facade.open(config));
      try {
        FacadeHttp http = new FacadeHttp(server.port());
        assertThat(server.facade().accounting().recovery().resettled())
            .as("recovered from the journal").isNotEmpty();
        HttpResponse<String> free = http.post("/v1/chat/completions", key,
            FacadeHttp.chat("no budget", false));
        assertThat(free.statusCode()).as(free.body()).isEqualTo(200);
        events.add(free.headers().firstValue("x-pointsman-event-id").orElseThrow());
        HttpResponse<String> refused = http.post("/v1/chat/completions", budgeted,
            FacadeHttp.chat("budgeted", false));
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("x-pointsman-stage"))
            .hasValue("ratelimit.reserve");
        assertThat(refused.headers().firstValue("x-pointsman-rule"))
            .hasValue("budget.unconfirmed");
        assertThat(FacadeHttp.json(refused).path("error").path("code").asText())
            .isEqualTo("service_unavailable");
        assertThat(FacadeHttp.failed(http.awaitHealth(h -> FacadeHttp.failed(h, "budgets"),
            WAIT), "database")).isTrue();

        pg.startAgain();
        // Healthy: the database answers and the budgets are confirmed.
        http.awaitHealth(h -> h.statusCode() == 200, WAIT);
        // The rebuilt counters hold what the first run spent (its journal settled first).
        assertThat(server.facade().limiter().budget(Scope.team("trial")).spentMicros())
            .isEqualTo(spentBefore);
        HttpResponse<String> admitted = http.post("/v1/chat/completions", budgeted,
            FacadeHttp.chat("budgeted again", false));
        assertThat(admitted.statusCode()).as(admitted.body()).isEqualTo(200);
        events.add(admitted.headers().firstValue("x-pointsman-event-id").orElseThrow());
      } finally {
        server.close();
      }
      // Every call is one row: the served ones by event id, the refused one as its refusal.
      String in = "('" + String.join("', '", events) + "')";
      assertThat(pg.query("SELECT count(*) FROM pointsman.ledger_entries WHERE event_id IN "
          + in)).containsExactly(Integer.toString(events.size()));
      assertThat(pg.query("SELECT http_status || '/' || rule FROM pointsman.ledger_entries"
          + " WHERE event_id NOT IN " + in)).containsExactly("503/budget.unconfirmed");
      assertThat(pg.query("SELECT count(*) FROM pointsman.reservations WHERE state IN"
          + " ('HELD', 'UNKNOWN')")).containsExactly("0");
    }
  }

  private static long cost(HttpResponse<String> r) {
    return Long.parseLong(r.headers().firstValue("x-pointsman-cost-micros").orElseThrow());
  }

  private static List<String> query(TestDatabase db, String sql) throws Exception {
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
