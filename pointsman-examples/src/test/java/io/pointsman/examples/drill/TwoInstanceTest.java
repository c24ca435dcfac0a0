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
    String body = "{\"model\":\"gpt-4o-mini\",\"temperature\":0,\"max_tokens\":" + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.port()
            + "/v1/chat/completions")).header("Authorization", "Bearer " + key)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static long redisKeys(TestRedis redis, String infix) {
    return redis.client().keys(redis.keyPrefix() + infix + "*").size();
  }
}
