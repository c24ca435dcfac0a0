package io.pointsman.examples.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.Clock;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.ledger.PostgresBudgetStore;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * Two facade processes on one {@code redis-server} and one PostgreSQL database of the test's
 * own, 64 concurrent HTTP clients (32 per process) on one small team budget. Mid-run the
 * redis-server is SIGKILLed and started again empty on the same port (no persistence); later
 * one facade process is SIGKILLed with calls in flight and started again on its journal. A
 * sampler reads the team's shared counters straight from Redis every few milliseconds for the
 * whole run: spent + held never exceeds the limit at any committed sample. After both drained
 * and the interrupted calls were attested, the counters equal the ledger, nothing is held, the
 * ledger's spend is within the limit and every 200 has its ledger row.
 *
 * <p>{@code -Dpointsman.chaos.report=PATH} writes the figures to PATH;
 * {@code -Dpointsman.chaos.loadSeconds=N} sets the length of the load (default 40).
 */
class RedisChaosTest {
  private static final String ADMIN = "redis-chaos-admin";
  private static final String PREFIX = "chaos";
  private static final String TEAM = "shared";
  /** Small against 64 clients whose holds are up to about 2,400 micro-units each. */
  private static final long LIMIT = 150_000;
  private static final int CLIENTS_PER_PROCESS = 32;
  private static final long LOAD_SECONDS = Long.getLong("pointsman.chaos.loadSeconds", 40);
  private static final long REDIS_KILL_AT_MILLIS = 6_000;
  private static final long REDIS_DOWN_MILLIS = 1_000;
  private static final long FACADE_KILL_AT_MILLIS = 16_000;
  private static final long SAMPLE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
  /** The store's keys: {@code <redisPrefix>:limits{limits}:<name>} (see RedisCounterStore). */
  private static final String KEYS = PREFIX + ":limits{limits}:";
  private static final String GEN_KEY = KEYS + "~gen";
  private static final String BUDGET_KEY = KEYS + "budget:team:" + TEAM;
  private static final String SAMPLE_SCRIPT = "local g = redis.call('GET', KEYS[1])\n"
      + "local v = redis.call('HMGET', KEYS[2], 's', 'h')\n"
      + "return {g or '', v[1] or '0', v[2] or '0'}";

  @TempDir
  Path dir;

  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(2)).build();

  @Test
  void countersStayWithinTheLimitThroughRedisDataLossAndAFacadeCrash() throws Exception {
    String key = VirtualKeys.generate();
    long testStart = System.nanoTime();
    try (RedisServerProcess redis = RedisServerProcess.start();
        TestDatabase db = TestDatabases.create()) {
      Path configA = config(redis, db, key, "a");
      Path configB = config(redis, db, key, "b");
      List<ChildFacade> started = new CopyOnWriteArrayList<>();
      Sampler sampler = null;
      try {
        ChildFacade a = ChildFacade.start(configA, dir.resolve("port-a"),
            dir.resolve("a.log"));
        started.add(a);
        ChildFacade b = ChildFacade.start(configB, dir.resolve("port-b"),
            dir.resolve("b.log"));
        started.add(b);
        long startupMillis = millisSince(testStart);
        AtomicReference<ChildFacade> targetA = new AtomicReference<>(a);
        AtomicReference<ChildFacade> targetB = new AtomicReference<>(b);

        // The sampler's key layout is right: the first call writes the team's counter.
        HttpResponse<String> first = chat(a, key, "warm-up", 64);
        assertThat(first.statusCode()).isEqualTo(200);
        Figures fig = new Figures();
        fig.answered(first, "a");
        try (JedisPooled probe = jedis(redis)) {
          assertThat(probe.exists(BUDGET_KEY)).as(BUDGET_KEY).isTrue();
          assertThat(probe.exists(GEN_KEY)).as(GEN_KEY).isTrue();
        }

        sampler = new Sampler(redis);
        sampler.start();

        long loadStart = System.nanoTime();
        long loadEnd = loadStart + TimeUnit.SECONDS.toNanos(LOAD_SECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(2 * CLIENTS_PER_PROCESS);
        List<Future<?>> clients = new ArrayList<>();
        for (int t = 0; t < 2 * CLIENTS_PER_PROCESS; t++) {
          boolean onA = t % 2 == 0;
          AtomicReference<ChildFacade> target = onA ? targetA : targetB;
          String name = onA ? "a" : "b";
          int thread = t;
          clients.add(pool.submit(() -> {
            for (int i = 0; System.nanoTime() < loadEnd; i++) {
              int maxTokens = 256 + (i * 7 + thread) % 8 * 512;
              HttpResponse<String> r;
              ChildFacade f = target.get();
              fig.inFlight(name).incrementAndGet();
              try {
                r = http.send(request(f, key, "chaos " + thread + " " + i + " " + PADDING,
                    maxTokens), HttpResponse.BodyHandlers.ofString());
              } catch (IOException e) {
                fig.connectionErrors(name).incrementAndGet();
                // The process is down or restarting: try its successor shortly.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
                continue;
              } finally {
                fig.inFlight(name).decrementAndGet();
              }
              fig.answered(r, name);
            }
            return null;
          }));
        }

        // Chaos 1: Redis loses everything (SIGKILL, started again empty on its port).
        parkUntil(loadStart + TimeUnit.MILLISECONDS.toNanos(REDIS_KILL_AT_MILLIS));
        long sampledBefore = sampler.taken.get();
        redis.stop();
        long redisKilledAt = millisSince(loadStart);
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(REDIS_DOWN_MILLIS));
        redis.startAgain();
        long redisBackAt = millisSince(loadStart);
        String genBefore = sampler.lastGeneration.get();
        long committedAt = -1;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
          String g = sampler.lastGeneration.get();
          if (g != null && !g.isEmpty() && !g.equals(genBefore)) {
            committedAt = millisSince(loadStart);
            break;
          }
          LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        assertThat(committedAt).as("a rebuild committed a new generation").isPositive();
        assertThat(sampler.taken.get()).isGreaterThan(sampledBefore);

        // Chaos 2: facade B dies with calls in flight and restarts on its journal.
        parkUntil(loadStart + TimeUnit.MILLISECONDS.toNanos(FACADE_KILL_AT_MILLIS));
        int inFlightAtKill = fig.inFlight("b").get();
        long killedPid = b.pid();
        assertThat(b.kill()).isEqualTo(137);
        long facadeKilledAt = millisSince(loadStart);
        ChildFacade b2 = ChildFacade.start(configB, dir.resolve("port-b2"),
            dir.resolve("b.log"));
        started.add(b2);
        targetB.set(b2);
        long facadeBackAt = millisSince(loadStart);

        for (Future<?> c : clients) {
          c.get(5, TimeUnit.MINUTES);
        }
        pool.shutdown();
        long loadMillis = millisSince(loadStart);

        // Drain: both journals settled, no pending end left in either limiter.
        for (ChildFacade f : List.of(a, b2)) {
          awaitMetric(f, "pointsman_journal_backlog", 0);
          awaitMetric(f, "pointsman_limits_pending_ends", 0);
        }
        // Resolve the interrupted calls: attest each at half its hold, then reconcile.
        List<String> unknown = eventIds(db, "SELECT event_id FROM pointsman.reservations"
            + " WHERE state = 'UNKNOWN' ORDER BY event_id");
        for (String eventId : unknown) {
          JsonNode hold = admin(a, "GET", "/admin/holds/" + eventId);
          JsonNode decision = admin(a, "POST", "/admin/holds/" + eventId + "/attest",
              "{\"costMicros\":" + hold.path("heldMicros").asLong() / 2 + ",\"epoch\":"
                  + hold.path("epoch").asLong() + ",\"evidence\":\"chaos test\"}");
          assertThat(decision.path("verdict").asText()).as(eventId).isEqualTo("ACCEPTED");
        }
        for (ChildFacade f : List.of(a, b2)) {
          assertThat(admin(f, "POST", "/admin/holds/reconcile", "").path("unresolved").asInt())
              .isZero();
        }
        assertThat(eventIds(db, "SELECT event_id FROM pointsman.reservations"
            + " WHERE state IN ('HELD', 'UNKNOWN')")).isEmpty();
        for (ChildFacade f : List.of(a, b2)) {
          awaitMetric(f, "pointsman_limits_pending_ends", 0);
        }
        long rebuildsA = metric(a, "pointsman_limits_rebuilds_total");
        long rebuildsB2 = metric(b2, "pointsman_limits_rebuilds_total");
        long staleA = metric(a, "pointsman_limits_stale_refusals_total");
        long staleB2 = metric(b2, "pointsman_limits_stale_refusals_total");
        assertThat(a.stop()).isEqualTo(143);
        assertThat(b2.stop()).isEqualTo(143);
        started.clear();
        sampler.stop();

        // Holds taken by B between reservation and a durable dispatch intent name no ledger
        // row (limits.md, orphan holds): an operator sweep releases them; each must be B's.
        Set<String> ledgerReservations = new HashSet<>(eventIds(db,
            "SELECT reservation_id FROM pointsman.reservations"));
        // Holds still open whose call the ledger resolved: a rebuild restored them for an
        // instance that was killed before ending them; the sweep settles them with the
        // ledger's charge (the rebuild left that charge out of the spend it read).
        Map<String, String> orphans = new HashMap<>();
        int resolvedOpen = 0;
        try (JedisPooled j = jedis(redis)) {
          for (String id : j.zrange(KEYS + "~holds", 0, -1)) {
            Map<String, String> rec = j.hgetAll(KEYS + "~r:" + id);
            if (!rec.containsKey("e") && !ledgerReservations.contains(id)) {
              orphans.put(id, rec.get("o"));
            } else if (!rec.containsKey("e")) {
              resolvedOpen++;
            }
          }
        }
        int swept;
        long settledFromLedger;
        try (RedisConnection conn = RedisConnection.builder(redis.uri())
            .keyPrefix(PREFIX + ":limits").timeout(Duration.ofSeconds(2)).build();
            io.pointsman.ledger.PostgresLedger sweepLedger =
                io.pointsman.ledger.PostgresLedger.of(db.dataSource())) {
          CounterLimiter sweeper = CounterLimiter.builder(RedisCounterStore.builder(conn)
                  .build())
              .budget(Scope.team(TEAM), LIMIT).holdLease(Duration.ofMillis(1))
              .ledger(sweepLedger).build();
          swept = sweeper.sweepOrphanHolds();
          settledFromLedger = sweeper.holdsSettledFromLedger();
        }
        System.out.printf("holds settled from the ledger by the sweep: %d%n", settledFromLedger);
        assertThat(settledFromLedger).isEqualTo(resolvedOpen);
        assertThat(swept).isEqualTo(orphans.size() + resolvedOpen);
        // B's own, or restored by the rebuild from an instance's report (the record then names
        // the rebuild as owner): facade A stopped gracefully and ended every hold it took, so
        // an open hold with no ledger row is B's either way.
        assertThat(orphans.values()).allSatisfy(owner ->
            assertThat(owner).matches(java.util.regex.Pattern.quote(killedPid + "-") + ".*"
                + "|rebuild"));

        // Holds still open after the sweep, with what the ledger says about each.
        List<String> leftOpen = new ArrayList<>();
        try (JedisPooled j = jedis(redis)) {
          for (String id : j.zrange(KEYS + "~holds", 0, -1)) {
            Map<String, String> rec = j.hgetAll(KEYS + "~r:" + id);
            if (!rec.containsKey("e")) {
              leftOpen.add(id + " record " + rec + " ledger " + ledgerRow(db, id));
            }
          }
        }

        // The counters equal the ledger, nothing is held, the ledger is within the limit.
        long redisSpent;
        long redisHeld;
        try (JedisPooled j = jedis(redis)) {
          List<String> v = j.hmget(BUDGET_KEY, "s", "h");
          redisSpent = Long.parseLong(v.get(0));
          redisHeld = Long.parseLong(v.get(1));
        }
        PostgresBudgetStore budgets = PostgresBudgetStore.create(db.dataSource(), Clock.system());
        long ledgerSpent = budgets.spent(Scope.team(TEAM), Instant.EPOCH, null);
        long ledgerHeld = budgets.held(Scope.team(TEAM));

        // Every 200 has exactly one ledger row, with the cost the caller was told.
        Map<String, Long> rows = new HashMap<>();
        Map<String, Integer> rowCount = new HashMap<>();
        try (Connection c = db.connect(); Statement s = c.createStatement();
            ResultSet rs = s.executeQuery("SELECT event_id, cost_micros FROM"
                + " pointsman.ledger_entries")) {
          while (rs.next()) {
            rows.put(rs.getString(1), rs.getLong(2));
            rowCount.merge(rs.getString(1), 1, Integer::sum);
          }
        }
        List<String> missing = new ArrayList<>();
        List<String> wrongCost = new ArrayList<>();
        for (Map.Entry<String, Long> ok : fig.okEvents.entrySet()) {
          Long cost = rows.get(ok.getKey());
          if (cost == null || rowCount.get(ok.getKey()) != 1) {
            missing.add(ok.getKey());
          } else if (cost.longValue() != ok.getValue()) {
            wrongCost.add(ok.getKey() + ": answered " + ok.getValue() + ", ledger " + cost);
          }
        }

        String report = String.format(
            "RedisChaosTest: 2 facade processes x %d clients, team budget %d micro-units,"
                + " %d s of load (%d ms measured)%n"
                + "calls: %d succeeded (200), %d refused (402), %d unavailable (503),"
                + " %d other status %s, %d connection errors (a: %d, b: %d)%n"
                + "charged (sum of 200 cost headers): %d of %d; ledger spend %d, ledger held %d;"
                + " shared counters spent %d held %d%n"
                + "samples of spent + held: %d taken, max %d (limit %d), %d above the limit;"
                + " skipped %d (Redis down) + %d (no generation: before the rebuild committed)%n"
                + "generations seen by the sampler: %d (rebuilds seen %d); limiter rebuilds:"
                + " a %d, b after restart %d; stale refusals: a %d, b after restart %d%n"
                + "timeline (ms from load start): redis killed %d, back empty %d, rebuild"
                + " committed %d; facade b (pid %d) killed %d with %d calls in flight, listening"
                + " again %d; load ended %d; facades started in %d ms%n"
                + "interrupted calls attested: %d; orphan holds swept (no ledger row, owner b):"
                + " %d; 200s without their ledger row: %d; cost mismatches: %d%n",
            CLIENTS_PER_PROCESS, LIMIT, LOAD_SECONDS, loadMillis,
            fig.ok.get(), fig.refused.get(), fig.unavailable.get(), fig.other.get(),
            fig.otherStatuses, fig.connectionErrors("a").get() + fig.connectionErrors("b").get(),
            fig.connectionErrors("a").get(), fig.connectionErrors("b").get(),
            fig.charged.get(), LIMIT, ledgerSpent, ledgerHeld, redisSpent, redisHeld,
            sampler.taken.get(), sampler.max.get(), LIMIT, sampler.violations.size(),
            sampler.skippedDown.get(), sampler.skippedStale.get(),
            sampler.generations.size(), sampler.generationChanges.get(), rebuildsA, rebuildsB2,
            staleA, staleB2,
            redisKilledAt, redisBackAt, committedAt, killedPid, facadeKilledAt, inFlightAtKill,
            facadeBackAt, loadMillis, startupMillis,
            unknown.size(), swept, missing.size(), wrongCost.size());
        System.out.print(report);
        String reportPath = System.getProperty("pointsman.chaos.report");
        if (reportPath != null && !reportPath.isBlank()) {
          Path out = Path.of(reportPath);
          if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
          }
          Files.writeString(out, report + "violations (first 20): "
              + sampler.violations.subList(0, Math.min(20, sampler.violations.size()))
              + "\nholds open in the shared counters after the drain and sweep: " + leftOpen
              + "\ncommand: mvn -q -B -ntp -o -pl pointsman-examples -am test"
              + " -Dtest=RedisChaosTest -Dsurefire.failIfNoSpecifiedTests=false"
              + " -Dpointsman.chaos.report=" + reportPath + "\n");
        }

        assertThat(sampler.violations).as("samples with spent + held above %d", LIMIT)
            .isEmpty();
        assertThat(sampler.taken.get()).isPositive();
        assertThat(sampler.generationChanges.get()).as("rebuilds seen").isPositive();
        assertThat(fig.ok.get()).isPositive();
        assertThat(fig.refused.get()).as("the budget ran out").isPositive();
        assertThat(fig.other.get()).as("statuses other than 200/402/503: %s",
            fig.otherStatuses).isZero();
        assertThat(missing).as("200s without exactly one ledger row").isEmpty();
        assertThat(wrongCost).as("200s whose ledger cost differs").isEmpty();
        assertThat(ledgerHeld).isZero();
        assertThat(redisHeld).as("held in the shared counters after the drain").isZero();
        assertThat(redisSpent).as("shared counters' spent = ledger spend")
            .isEqualTo(ledgerSpent);
        assertThat(ledgerSpent).isLessThanOrEqualTo(LIMIT);
      } finally {
        if (sampler != null) {
          sampler.stop();
        }
        for (ChildFacade f : started) {
          if (f.alive()) {
            f.kill();
          }
        }
      }
    }
  }

  private static final String PADDING = "lorem ipsum dolor sit amet ".repeat(12);

  /** Call outcomes, per process where it matters. Thread-safe. */
  private static final class Figures {
    final AtomicInteger ok = new AtomicInteger();
    final AtomicInteger refused = new AtomicInteger();
    final AtomicInteger unavailable = new AtomicInteger();
    final AtomicInteger other = new AtomicInteger();
    final Map<Integer, Integer> otherStatuses = new ConcurrentHashMap<>();
    final AtomicLong charged = new AtomicLong();
    final Map<String, Long> okEvents = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> connectionErrors = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();

    AtomicInteger connectionErrors(String process) {
      return connectionErrors.computeIfAbsent(process, p -> new AtomicInteger());
    }

    AtomicInteger inFlight(String process) {
      return inFlight.computeIfAbsent(process, p -> new AtomicInteger());
    }

    void answered(HttpResponse<String> r, String process) {
      switch (r.statusCode()) {
        case 200 -> {
          ok.incrementAndGet();
          long cost = Long.parseLong(r.headers().firstValue("x-pointsman-cost-micros")
              .orElseThrow());
          charged.addAndGet(cost);
          String event = r.headers().firstValue("x-pointsman-event-id").orElseThrow();
          if (okEvents.put(event, cost) != null) {
            // Two 200s naming one event: recorded as a mismatch below.
            okEvents.put(event + "#duplicate", -1L);
          }
        }
        case 402 -> refused.incrementAndGet();
        case 503 -> unavailable.incrementAndGet();
        default -> {
          other.incrementAndGet();
          otherStatuses.merge(r.statusCode(), 1, Integer::sum);
        }
      }
    }
  }

  /** Reads the team's spent + held and the generation from Redis every few ms. */
  private static final class Sampler {
    final AtomicLong taken = new AtomicLong();
    final AtomicLong skippedDown = new AtomicLong();
    final AtomicLong skippedStale = new AtomicLong();
    final AtomicLong max = new AtomicLong();
    final AtomicInteger generationChanges = new AtomicInteger();
    final AtomicReference<String> lastGeneration = new AtomicReference<>();
    final Set<String> generations = ConcurrentHashMap.newKeySet();
    final List<String> violations = new CopyOnWriteArrayList<>();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final JedisPooled jedis;
    private final Thread thread;
    private final long started = System.nanoTime();

    Sampler(RedisServerProcess redis) {
      this.jedis = jedis(redis);
      this.thread = new Thread(this::run, "chaos-sampler");
      thread.setDaemon(true);
    }

    void start() {
      thread.start();
    }

    void stop() throws InterruptedException {
      if (running.getAndSet(false)) {
        thread.join(10_000);
        jedis.close();
      }
    }

    private void run() {
      String previous = null;
      while (running.get()) {
        List<?> v;
        try {
          v = (List<?>) jedis.eval(SAMPLE_SCRIPT, List.of(GEN_KEY, BUDGET_KEY), List.of());
        } catch (RuntimeException e) {
          skippedDown.incrementAndGet();
          LockSupport.parkNanos(SAMPLE_EVERY_NANOS);
          continue;
        }
        String gen = String.valueOf(v.get(0));
        if (gen.isEmpty()) {
          skippedStale.incrementAndGet();
        } else {
          long spent = Long.parseLong(String.valueOf(v.get(1)));
          long held = Long.parseLong(String.valueOf(v.get(2)));
          long total = spent + held;
          taken.incrementAndGet();
          max.accumulateAndGet(total, Math::max);
          if (total > LIMIT) {
            violations.add(String.format("t=%d ms gen=%s spent=%d held=%d",
                millisSince(started), gen, spent, held));
          }
          if (generations.add(gen) && previous != null) {
            generationChanges.incrementAndGet();
          }
          previous = gen;
          lastGeneration.set(gen);
        }
        LockSupport.parkNanos(SAMPLE_EVERY_NANOS);
      }
    }
  }

  private static JedisPooled jedis(RedisServerProcess redis) {
    return new JedisPooled(new HostAndPort("127.0.0.1", redis.port()),
        DefaultJedisClientConfig.builder().connectionTimeoutMillis(200).socketTimeoutMillis(500)
            .build());
  }

  private static long millisSince(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - nanos);
  }

  private static void parkUntil(long nanoTime) {
    long left;
    while ((left = nanoTime - System.nanoTime()) > 0) {
      LockSupport.parkNanos(left);
    }
  }

  private static List<String> eventIds(TestDatabase db, String sql) throws Exception {
    List<String> out = new ArrayList<>();
    try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(sql);
        ResultSet rs = s.executeQuery()) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static String ledgerRow(TestDatabase db, String reservationId) throws Exception {
    try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
        "SELECT r.state, r.held_micros, r.charged_micros, e.status, e.outcome, e.cost_micros,"
            + " e.started_at, e.recorded_at FROM pointsman.reservations r JOIN"
            + " pointsman.ledger_entries e ON e.event_id = r.event_id"
            + " WHERE r.reservation_id = ?")) {
      s.setString(1, reservationId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          return "{no row}";
        }
        return "{state=" + rs.getString(1) + ", held=" + rs.getLong(2) + ", charged="
            + rs.getString(3) + ", entry " + rs.getString(4) + "/" + rs.getString(5)
            + " cost=" + rs.getLong(6) + ", started " + rs.getString(7) + ", recorded "
            + rs.getString(8) + "}";
      }
    }
  }

  private long metric(ChildFacade f, String name) throws Exception {
    String text = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + f.port()
        + "/metrics")).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
    Matcher m = Pattern.compile("(?m)^" + name + " ([0-9.eE+-]+)$").matcher(text);
    if (!m.find()) {
      return -1;
    }
    return (long) Double.parseDouble(m.group(1));
  }

  /** Waits (at most a minute) until a facade's metric reads {@code value}. */
  private void awaitMetric(ChildFacade f, String name, long value) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    long last;
    while ((last = metric(f, name)) != value) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(name + " stayed at " + last + " on port " + f.port());
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
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

  private Path config(RedisServerProcess redis, TestDatabase db, String key, String name) {
    Path file = dir.resolve("facade-" + name + ".json");
    new FacadeConfig(0, dir.resolve("journal-" + name).toString(), db.jdbcUrl(),
        redis.uri().toString(), PREFIX, null, null, ADMIN, 0, 10, null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-shared", TEAM, "acme")),
        List.of(new FacadeConfig.BudgetEntry("team:" + TEAM, LIMIT))).write(file);
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
        .timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }
}
