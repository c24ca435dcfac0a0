package io.pointsman.examples.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.Clock;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.ledger.PostgresBudgetStore;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.Scope;
import io.pointsman.model.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two facade processes sharing one Redis (budget counters and the exact cache's shared tier)
 * and one PostgreSQL, each with its own journal, under concurrent load on one team budget.
 */
class TwoInstanceTest {
  private static final String ADMIN = "two-instance-admin";
  private static final long LIMIT = 5_000;
  private static final int THREADS_PER_PROCESS = 12;

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  @Test
  void twoProcessesEnforceOneBudgetAndShareCacheEntries() throws Exception {
    String key = VirtualKeys.generate();
    try (TestRedis redis = TestRedis.start(); TestDatabase db = TestDatabases.create()) {
      ChildFacade a = null;
      ChildFacade b = null;
      try {
        a = ChildFacade.start(config(redis, db, key, "a"), dir.resolve("port-a"),
            dir.resolve("a.log"));
        b = ChildFacade.start(config(redis, db, key, "b"), dir.resolve("port-b"),
            dir.resolve("b.log"));

        // An entry cached by one process is hit by the other through Redis.
        HttpResponse<String> first = chat(a, key, "shared question", 64);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(first.headers().firstValue("x-pointsman-cache")).hasValue("MISS(exact+exact-redis)");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (redisKeys(redis, "exact:") == 0 && System.nanoTime() < deadline) {
          Thread.sleep(10);
        }
        HttpResponse<String> second = chat(b, key, "shared question", 64);
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.headers().firstValue("x-pointsman-cache"))
            .hasValue("HIT(exact-redis)");
        assertThat(second.body()).isEqualTo(first.body());

        // Both processes hammer one team budget until it runs out.
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        AtomicInteger other = new AtomicInteger();
        AtomicLong charged = new AtomicLong(
            Long.parseLong(first.headers().firstValue("x-pointsman-cost-micros").orElseThrow()));
        ExecutorService pool = Executors.newFixedThreadPool(2 * THREADS_PER_PROCESS);
        List<Future<?>> running = new ArrayList<>();
        for (int t = 0; t < 2 * THREADS_PER_PROCESS; t++) {
          ChildFacade target = t % 2 == 0 ? a : b;
          int thread = t;
          running.add(pool.submit(() -> {
            int consecutiveRefusals = 0;
            for (int i = 0; consecutiveRefusals < 5 && i < 10_000; i++) {
              HttpResponse<String> r = chat(target, key, "load " + thread + " " + i, 64);
              if (r.statusCode() == 200) {
                ok.incrementAndGet();
                charged.addAndGet(Long.parseLong(
                    r.headers().firstValue("x-pointsman-cost-micros").orElseThrow()));
                consecutiveRefusals = 0;
              } else if (r.statusCode() == 402) {
                refused.incrementAndGet();
                consecutiveRefusals++;
              } else {
                other.incrementAndGet();
              }
            }
            return null;
          }));
        }
        for (Future<?> f : running) {
          f.get();
        }
        pool.shutdown();
        assertThat(a.stop()).isEqualTo(143);
        assertThat(b.stop()).isEqualTo(143);
        a = null;
        b = null;

        PostgresBudgetStore budgets = PostgresBudgetStore.create(db.dataSource(), Clock.system());
        long spent = budgets.spent(Scope.team("shared"), Instant.EPOCH, null);
        System.out.printf("two processes x %d threads: %d succeeded, %d refused (402), %d other;"
            + " charged %d of %d micro-units (PostgreSQL %d)%n", THREADS_PER_PROCESS, ok.get(),
            refused.get(), other.get(), charged.get(), LIMIT, spent);
        assertThat(other.get()).isZero();
        assertThat(ok.get()).isPositive();
        assertThat(refused.get()).as("the budget ran out").isPositive();
        assertThat(spent).isEqualTo(charged.get()).isLessThanOrEqualTo(LIMIT);
        assertThat(budgets.held(Scope.team("shared"))).isZero();

        // After both drained, the shared counters hold nothing and agree with PostgreSQL.
        ChildFacade c = ChildFacade.start(config(redis, db, key, "a"), dir.resolve("port-c"),
            dir.resolve("c.log"));
        try {
          JsonNode live = Json.mapper().readTree(http.send(HttpRequest.newBuilder(
              URI.create("http://127.0.0.1:" + c.port() + "/admin/budgets"))
              .header("Authorization", "Bearer " + ADMIN).GET().build(),
              HttpResponse.BodyHandlers.ofString()).body()).path("budget:team:shared");
          assertThat(live.path("heldMicros").asLong(-1)).isZero();
          assertThat(live.path("spentMicros").asLong(-1)).isEqualTo(spent);
        } finally {
          c.stop();
        }
      } finally {
        if (a != null) {
          a.stop();
        }
        if (b != null) {
          b.stop();
        }
      }
    }
  }

  @Test
  void aCrashedInstancesHoldsStayCountedAndAreResolvedOnceWhicheverInstanceSeesIt()
      throws Exception {
    String key = VirtualKeys.generate();
    try (TestRedis redis = TestRedis.start(); TestDatabase db = TestDatabases.create();
        UpstreamFixture upstream = new UpstreamFixture()) {
      ChildFacade a = ChildFacade.start(config(redis, db, key, "a", upstream), dir.resolve("pa"),
          dir.resolve("a.log"));
      ChildFacade b = ChildFacade.start(config(redis, db, key, "b", upstream), dir.resolve("pb"),
          dir.resolve("b.log"));
      try {
        for (int i = 0; i < 3; i++) {
          assertThat(chat(b, key, "answered " + i, 64).statusCode()).isEqualTo(200);
        }
        // B dies with four calls dispatched and unanswered.
        upstream.hold();
        int before = upstream.received();
        List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> lost = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          lost.add(http.sendAsync(request(b, key, "lost " + i, 64),
              HttpResponse.BodyHandlers.ofString()));
        }
        assertThat(upstream.awaitReceived(before + 4, java.time.Duration.ofSeconds(30))).isTrue();
        assertThat(upstream.received() - before).isEqualTo(4);
        assertThat(b.kill()).isEqualTo(137);
        upstream.release();
        for (var f : lost) {
          assertThat(f).failsWithin(java.time.Duration.ofSeconds(30));
        }

        // Both instances restart and adopt the four holds the shared counters still keep.
        b = ChildFacade.start(config(redis, db, key, "b", upstream), dir.resolve("pb"),
            dir.resolve("b.log"));
        assertThat(a.stop()).isEqualTo(143);
        a = ChildFacade.start(config(redis, db, key, "a", upstream), dir.resolve("pa"),
            dir.resolve("a.log"));
        PostgresBudgetStore budgets = PostgresBudgetStore.create(db.dataSource(), Clock.system());
        long heldInLedger = budgets.held(Scope.team("shared"));
        assertThat(heldInLedger).isPositive();
        JsonNode live = admin(a, "GET", "/admin/budgets").path("budget:team:shared");
        assertThat(live.path("heldMicros").asLong()).isEqualTo(heldInLedger);
        assertThat(live.path("spentMicros").asLong())
            .isEqualTo(budgets.spent(Scope.team("shared"), Instant.EPOCH, null));

        // One hold is attested through A; B resolves the same hold again: it applies once.
        String eventId = unresolvedEvent(db);
        JsonNode hold = admin(a, "GET", "/admin/holds/" + eventId);
        long heldOne = hold.path("heldMicros").asLong();
        JsonNode decision = admin(a, "POST", "/admin/holds/" + eventId + "/attest",
            "{\"costMicros\":" + (heldOne / 2) + ",\"epoch\":" + hold.path("epoch").asLong()
                + ",\"evidence\":\"usage export\"}");
        assertThat(decision.path("verdict").asText()).isEqualTo("ACCEPTED");
        assertThat(admin(b, "POST", "/admin/holds/reconcile", "").path("unresolved").asInt())
            .isEqualTo(3);
        assertThat(admin(a, "POST", "/admin/holds/reconcile", "").path("unresolved").asInt())
            .isEqualTo(3);
        long spent = budgets.spent(Scope.team("shared"), Instant.EPOCH, null);
        for (ChildFacade f : List.of(a, b)) {
          JsonNode after = admin(f, "GET", "/admin/budgets").path("budget:team:shared");
          assertThat(after.path("spentMicros").asLong()).isEqualTo(spent);
          assertThat(after.path("heldMicros").asLong()).isEqualTo(heldInLedger - heldOne)
              .isEqualTo(budgets.held(Scope.team("shared")));
        }
      } finally {
        if (a.alive()) {
          a.stop();
        }
        if (b.alive()) {
          b.stop();
        }
      }
    }
  }

  private static String unresolvedEvent(TestDatabase db) throws Exception {
    try (var c = db.connect(); var s = c.createStatement(); var rs = s.executeQuery(
        "SELECT event_id FROM pointsman.reservations WHERE state = 'UNKNOWN'"
            + " ORDER BY event_id LIMIT 1")) {
      assertThat(rs.next()).isTrue();
      return rs.getString(1);
    }
  }

  private JsonNode admin(ChildFacade f, String method, String path, String... body)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.port()
        + path)).header("Authorization", "Bearer " + ADMIN);
    b = body.length == 0 ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofString(body[0]));
    return Json.mapper().readTree(http.send(b.build(), HttpResponse.BodyHandlers.ofString())
        .body());
  }

  private Path config(TestRedis redis, TestDatabase db, String key, String name,
      UpstreamFixture upstream) {
    Path file = dir.resolve("facade-" + name + ".json");
    new FacadeConfig(0, dir.resolve("journal-" + name).toString(), db.jdbcUrl(),
        redis.uri().toString(), redis.keyPrefix(), upstream.uri().toString(), null, ADMIN, 0, 10,
        null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-shared", "shared", "acme")),
        List.of(new FacadeConfig.BudgetEntry("team:shared", 1_000_000))).write(file);
    return file;
  }

  private Path config(TestRedis redis, TestDatabase db, String key, String name) {
    Path file = dir.resolve("facade-" + name + ".json");
    new FacadeConfig(0, dir.resolve("journal-" + name).toString(), db.jdbcUrl(),
        redis.uri().toString(), redis.keyPrefix(), null, null, ADMIN, 0, 10, null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-shared", "shared", "acme")),
        List.of(new FacadeConfig.BudgetEntry("team:shared", LIMIT))).write(file);
    return file;
  }

  private HttpResponse<String> chat(ChildFacade f, String key, String text, int maxTokens)
      throws Exception {
    return http.send(request(f, key, text, maxTokens), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(ChildFacade f, String key, String text, int maxTokens) {
    String body = "{\"model\":\"gpt-4o-mini\",\"temperature\":0,\"max_tokens\":" + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.port()
            + "/v1/chat/completions")).header("Authorization", "Bearer " + key)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  private static long redisKeys(TestRedis redis, String infix) {
    return redis.client().keys(redis.keyPrefix() + infix + "*").size();
  }
}
