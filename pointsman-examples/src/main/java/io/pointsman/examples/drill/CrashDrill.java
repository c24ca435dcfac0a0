package io.pointsman.examples.drill;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.examples.TempDirectories;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.model.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The whole-process crash drill. The facade runs as a child JVM on the file journal and a
 * PostgreSQL of the drill's own ({@link DrillPostgres}, which the drill stops and starts)
 * against a loopback upstream; each cycle drives load (every response answered), then holds
 * the upstream until at least 20 requests (plain, streamed before their first byte, streamed
 * after two frames, and one on a small budget) are dispatched and unanswered, kills the child
 * with SIGKILL, restarts it on the same journal and database, and checks the books. Each check
 * is printed PASS or FAIL; the count comes last.
 *
 * <p>Checks after each restart: ledger rows = acknowledged responses + interrupted requests;
 * each acknowledged response is one settled row charged what its response said; each
 * interrupted request is one {@code UNKNOWN} row with its reservation unresolved and a worst
 * case of attempts seen x the attempt's worst case; budgets in PostgreSQL equal settled +
 * held; the restarted counters equal PostgreSQL; nothing is charged twice; an accepted
 * attestation resolves a hold (ledger and counters); stale and under-floor attestations are
 * refused without writing; a hold whose window ended expires charged its worst case; and while
 * an attestation races a new request on a budget the hold exhausts, the request is refused, not
 * forwarded and not charged. At the end, a graceful stop and one more restart must change
 * nothing.
 *
 * <p>An outage cycle ({@link Outages}) stops PostgreSQL under load, keeps load going while it
 * is down, kills the facade with requests in flight, restarts it before the database returns
 * (it must serve calls no budget governs and refuse budgeted ones with 503
 * {@code budget.unconfirmed}), kills and restarts it once more, then starts PostgreSQL, waits
 * for the budgets to be confirmed and the journal to drain, and checks that nothing answered
 * during the outage is missing or doubled, besides the checks above.
 *
 * <p>Run: {@code mvn -q -B -pl pointsman-examples -am compile exec:java
 * -Dexec.mainClass=io.pointsman.examples.drill.CrashDrill
 * -Dexec.args="--kills 10 --outages alternate"}
 */
public final class CrashDrill {
  private static final String ADMIN = "drill-admin-token";
  private static final String MODEL = "gpt-4o-mini";
  /** The small budget of each cycle's race team: one 10,000-token reservation fits, two do not. */
  private static final long RACE_LIMIT = 10_000;
  private static final int RACE_MAX_TOKENS = 10_000;
  private static final Pattern COST = Pattern.compile("cost_micros=(\\d+)");
  private static final Duration WAIT = Duration.ofSeconds(90);

  private final Options options;
  private final PrintStream out;
  private final Path dir;
  private final DrillPostgres db;
  private final UpstreamFixture upstream;
  private final HttpClient http;
  private final Path config;
  private final String mainKey = VirtualKeys.generate();
  /** A key no budget governs: served while the budgets are not confirmed. */
  private final String freeKey = VirtualKeys.generate();
  private final List<String> raceKeys = new ArrayList<>();
  /** Request id to the cost its response reported (0 for a refusal). */
  private final Map<String, Long> acknowledged = new LinkedHashMap<>();
  /** Request ids dispatched and never answered, every cycle. */
  private final List<String> interrupted = new ArrayList<>();
  /** Request ids answered (200) while PostgreSQL was down, every outage cycle. */
  private final Set<String> answeredInOutage = new LinkedHashSet<>();
  /** Request ids refused with 503 budget.unconfirmed after a restart during an outage. */
  private final Set<String> refusedUnconfirmed = new LinkedHashSet<>();
  private int passed;
  private final List<String> failures = new ArrayList<>();

  /** Which cycles stop the drill's PostgreSQL during load and keep it down over the kill. */
  public enum Outages {
    /** No cycle: PostgreSQL stays up. */
    NONE,
    /** Every second cycle (2, 4, ...). */
    ALTERNATE,
    /** Every cycle. */
    ALL;

    boolean includes(int cycle) {
      return this == ALL || (this == ALTERNATE && cycle % 2 == 0);
    }
  }

  /**
   * The drill's parameters.
   *
   * @param kills how many SIGKILL cycles
   * @param answered requests answered per cycle before the kill (and again while PostgreSQL
   *     is down, in an outage cycle)
   * @param held requests held unanswered at each kill (at least 20), besides the race request
   * @param outages which cycles are outage cycles: PostgreSQL stopped during load, the facade
   *     killed and restarted while it is down, then PostgreSQL started again
   */
  public record Options(int kills, int answered, int held, Outages outages) {
    /**
     * Validates the parameters.
     *
     * @param kills how many SIGKILL cycles
     * @param answered requests answered per cycle before the kill (and again while PostgreSQL
     *     is down, in an outage cycle)
     * @param held requests held unanswered at each kill (at least 20), besides the race request
     * @param outages which cycles are outage cycles: PostgreSQL stopped during load, the facade
     *     killed and restarted while it is down, then PostgreSQL started again
     * @throws IllegalArgumentException if out of range
     * @throws NullPointerException if outages is null
     */
    public Options {
      if (kills < 1 || answered < 1 || held < 20) {
        throw new IllegalArgumentException("need kills >= 1, answered >= 1, held >= 20");
      }
      java.util.Objects.requireNonNull(outages, "outages");
    }

    /**
     * Returns how many cycles are outage cycles.
     *
     * @return the count
     */
    public int outageCycles() {
      int n = 0;
      for (int c = 1; c <= kills; c++) {
        n += outages.includes(c) ? 1 : 0;
      }
      return n;
    }
  }

  /**
   * What the drill found.
   *
   * @param passed checks that passed
   * @param failures the checks that failed, with what was seen
   */
  public record Report(int passed, List<String> failures) {
    /**
     * Returns whether every check passed.
     *
     * @return true when nothing failed and something was checked
     */
    public boolean ok() {
      return failures.isEmpty() && passed > 0;
    }
  }

  private CrashDrill(Options options, PrintStream out) throws IOException {
    this.options = options;
    this.out = out;
    this.dir = TempDirectories.create("pointsman-drill");
    this.db = DrillPostgres.start(dir.resolve("postgres"));
    this.upstream = new UpstreamFixture();
    this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).build();
    List<FacadeConfig.KeyEntry> keys = new ArrayList<>();
    List<FacadeConfig.BudgetEntry> budgets = new ArrayList<>();
    keys.add(new FacadeConfig.KeyEntry(mainKey, "key-drill", "drill", "acme"));
    keys.add(new FacadeConfig.KeyEntry(freeKey, "key-free", "free", "acme"));
    budgets.add(new FacadeConfig.BudgetEntry("team:drill", 1_000_000_000_000L));
    for (int c = 1; c <= options.kills(); c++) {
      String k = VirtualKeys.generate();
      raceKeys.add(k);
      keys.add(new FacadeConfig.KeyEntry(k, "key-race-" + c, "race-" + c, "acme"));
      budgets.add(new FacadeConfig.BudgetEntry("team:race-" + c, RACE_LIMIT));
    }
    this.config = dir.resolve("facade.json");
    new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(), null, null,
        upstream.uri().toString(), null, ADMIN, 10, 5, null,
        List.of(new FacadeConfig.ModelEntry(MODEL, List.of(), 150_000, 600_000, 75_000, 128_000,
            16_384)), keys, budgets).write(config);
  }

  /**
   * Runs the drill from the command line: {@code --kills N} (default 1), {@code --answered N}
   * (default 30), {@code --held N} (default 24), {@code --outages none|alternate|all} (default
   * alternate). Exits 1 when a check failed.
   *
   * @param args the options
   * @throws Exception if the drill cannot run
   */
  public static void main(String[] args) throws Exception {
    int kills = 1;
    int answered = 30;
    int held = 24;
    Outages outages = Outages.ALTERNATE;
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--kills" -> kills = Integer.parseInt(args[i + 1]);
        case "--answered" -> answered = Integer.parseInt(args[i + 1]);
        case "--held" -> held = Integer.parseInt(args[i + 1]);
        case "--outages" -> outages = Outages.valueOf(args[i + 1].toUpperCase(Locale.ROOT));
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Report r = run(new Options(kills, answered, held, outages), System.out);
    System.exit(r.ok() ? 0 : 1);
  }

  /**
   * Runs the drill.
   *
   * @param options the parameters
   * @param out where to print the checks
   * @return what it found
   * @throws Exception if the drill cannot run (a failed check is not an exception)
   */
  public static Report run(Options options, PrintStream out) throws Exception {
    long t0 = System.nanoTime();
    CrashDrill d = new CrashDrill(options, out);
    try {
      d.drill();
    } finally {
      d.upstream.close();
      d.db.close();
      TempDirectories.delete(d.dir);
    }
    out.printf(Locale.ROOT, "drill time %.1f s%n", (System.nanoTime() - t0) / 1e9);
    out.printf(Locale.ROOT, "checks: %d passed, %d failed%n", d.passed, d.failures.size());
    return new Report(d.passed, List.copyOf(d.failures));
  }

  private void drill() throws Exception {
    Path portFile = dir.resolve("port");
    Path log = dir.resolve("facade.log");
    out.printf(Locale.ROOT, "crash drill: %d kill(s) (%d with PostgreSQL stopped during load"
        + " and over the kill and restart), %d answered and %d+1 held per cycle; %s%n",
        options.kills(), options.outageCycles(), options.answered(), options.held(), db);
    ChildFacade child = ChildFacade.start(config, portFile, log);
    try {
      check("first start: the ledger is empty", count("SELECT count(*) FROM"
          + " pointsman.ledger_entries") == 0, "rows present");
      for (int c = 1; c <= options.kills(); c++) {
        boolean outage = options.outages().includes(c);
        long cycleStart = System.nanoTime();
        out.printf(Locale.ROOT, "cycle %d%s (facade pid %d)%n", c, outage
            ? ", outage: PostgreSQL stopped during load, kill and restart while it is down" : "",
            child.pid());
        answeredLoad(child, c);
        Set<String> outageAnswers = new LinkedHashSet<>();
        if (outage) {
          stopDatabase(child, c, outageAnswers);
          outageLoad(child, c, outageAnswers);
        }
        List<String> heldNow = new ArrayList<>(heldLoadAndKill(child, c));
        long killedAt = System.nanoTime();
        child = ChildFacade.start(config, portFile, log);
        out.printf(Locale.ROOT, "  restarted (pid %d) in %.1f s%s%n", child.pid(),
            (System.nanoTime() - killedAt) / 1e9, outage ? " with PostgreSQL down" : "");
        if (outage) {
          whileDown(child, c, outageAnswers);
          // A second crash before the database is back: what the first restart recovered is
          // still only in the journal, and is recovered again.
          heldNow.addAll(killWhileDown(child, c));
          killedAt = System.nanoTime();
          child = ChildFacade.start(config, portFile, log);
          out.printf(Locale.ROOT, "  restarted again (pid %d) in %.1f s with PostgreSQL down%n",
              child.pid(), (System.nanoTime() - killedAt) / 1e9);
          servesWhileDown(child, c, outageAnswers);
          startDatabase(child, c);
          afterOutage(child, c, outageAnswers);
        }
        afterRestart(child, c, heldNow);
        out.printf(Locale.ROOT, "  cycle %d took %.1f s%n", c,
            (System.nanoTime() - cycleStart) / 1e9);
      }
      // A graceful stop drains; one more start replays the journal again: nothing changes.
      Answer plain = send(child, mainKey, "final-ack", "final question", false, 50).join();
      Answer streamed = send(child, mainKey, "final-ack-2", "final question 2", true, 50).join();
      check("the restarted facade serves plain and streamed calls", plain.status == 200
          && streamed.status == 200 && streamed.complete(), plain.status + " " + streamed.status);
      acknowledged.put("final-ack", cost(plain));
      acknowledged.put("final-ack-2", cost(streamed));
      int code = child.stop();
      String before = fingerprint();
      child = ChildFacade.start(config, portFile, log);
      check("graceful stop exits through the shutdown hook (143)", code == 143,
          "exit code " + code);
      check("a restart after a graceful stop replays nothing and charges nothing again",
          before.equals(fingerprint()), "the ledger changed on restart");
      check("a graceful stop settles every acknowledged response", count("SELECT count(*) FROM"
          + " pointsman.ledger_entries WHERE request_id LIKE 'final-ack%' AND status = 'SETTLED'")
          == 2 && rows().size() == acknowledged.size() + interrupted.size(),
          "final rows missing or unsettled");
      if (options.outageCycles() > 0) {
        // After every later crash and restart: what the outages answered or refused is still
        // there once, as it was settled.
        Map<String, Row> rows = rows();
        List<String> bad = new ArrayList<>();
        for (String id : answeredInOutage) {
          Row r = rows.get(id);
          if (r == null || !"SETTLED".equals(r.status) || r.cost != acknowledged.get(id)) {
            bad.add(id + "=" + r);
          }
        }
        for (String id : refusedUnconfirmed) {
          Row r = rows.get(id);
          if (r == null || !"SETTLED".equals(r.status) || r.cost != 0 || r.httpStatus != 503) {
            bad.add(id + "=" + r);
          }
        }
        List<String> all = new ArrayList<>(answeredInOutage);
        all.addAll(refusedUnconfirmed);
        long n = countIn("SELECT count(*) FROM pointsman.ledger_entries WHERE request_id"
            + " = ANY(?)", all);
        check("at the end, every call answered (" + answeredInOutage.size() + ") or refused ("
            + refusedUnconfirmed.size() + ") during the outages is still one settled row at its"
            + " cost", bad.isEmpty() && n == all.size(), bad + ", rows " + n);
      }
    } finally {
      if (child.alive()) {
        child.stop();
      }
      if (!failures.isEmpty()) {
        out.println("facade log: " + log);
        try (Stream<String> lines = Files.lines(log)) {
          List<String> all = lines.toList();
          all.subList(Math.max(0, all.size() - 40), all.size()).forEach(l -> out.println("  | "
              + l));
        }
      }
    }
  }

  private void answeredLoad(ChildFacade child, int c) {
    upstream.release();
    List<CompletableFuture<Answer>> fs = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < options.answered(); i++) {
      String id = "c" + c + "-ack-" + i;
      ids.add(id);
      fs.add(send(child, mainKey, id, "cycle " + c + " answered " + i, i % 2 == 1, 64));
    }
    int ok = 0;
    for (int i = 0; i < fs.size(); i++) {
      Answer a = fs.get(i).join();
      if (a.status == 200 && a.complete()) {
        ok++;
        acknowledged.put(ids.get(i), cost(a));
      }
    }
    check("cycle " + c + ": " + options.answered() + " requests answered before the kill",
        ok == options.answered(), ok + " of " + options.answered());
  }

  private List<String> heldLoadAndKill(ChildFacade child, int c) throws Exception {
    upstream.hold();
    int before = upstream.received();
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Answer>> fs = new ArrayList<>();
    for (int i = 0; i < options.held(); i++) {
      String id = "c" + c + "-held-" + i;
      ids.add(id);
      fs.add(send(child, mainKey, id, "cycle " + c + " held " + i, i % 2 == 1, 64));
    }
    String raceId = "c" + c + "-race";
    ids.add(raceId);
    fs.add(send(child, raceKeys.get(c - 1), raceId, "race " + c + " first", false,
        RACE_MAX_TOKENS));
    upstream.awaitReceived(before + ids.size(), WAIT);
    int dispatched = upstream.received() - before;
    long answered = fs.stream().filter(CompletableFuture::isDone).count();
    check("cycle " + c + ": >= 20 requests dispatched and unanswered at the kill",
        dispatched == ids.size() && dispatched >= 20 && answered == 0,
        dispatched + " dispatched, " + answered + " answered");
    int code = child.kill();
    check("cycle " + c + ": the facade died of SIGKILL (137)", code == 137, "exit code " + code);
    upstream.release();
    int acked = 0;
    for (CompletableFuture<Answer> f : fs) {
      try {
        Answer a = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        if (a.status == 200 && a.complete()) {
          acked++;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        // The connection broke off: not acknowledged, as expected.
      }
    }
    check("cycle " + c + ": no held request was acknowledged", acked == 0, acked
        + " completed");
    interrupted.addAll(ids);
    return ids;
  }

  // ------------------------------------------------------------------ outage

  /**
   * Stops the drill's PostgreSQL in the middle of load: a wave of calls is sent, and once a
   * quarter of them were answered (so the settler is busy with their records) the server is
   * stopped with fast shutdown while the rest are in flight. Every call of the wave must be
   * answered; then the facade's health check must see the database down.
   */
  private void stopDatabase(ChildFacade child, int c, Set<String> answers) throws Exception {
    upstream.release();
    int n = options.answered();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add("c" + c + "-stopping-" + i);
    }
    // Sent one every 25 ms from a thread of their own, so calls keep arriving while the
    // server stops.
    List<CompletableFuture<Answer>> fs = java.util.Collections.synchronizedList(
        new ArrayList<>());
    Thread sender = new Thread(() -> {
      for (int i = 0; i < n; i++) {
        fs.add(send(child, i % 3 == 2 ? freeKey : mainKey, ids.get(i), "cycle " + c
            + " as it stops " + i, i % 2 == 1, 64));
        try {
          Thread.sleep(25);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
    }, "drill-sender");
    sender.start();
    long target = Math.max(1, n / 4);
    awaitTrue(WAIT, 5, () -> answered(fs) >= target);
    long doneAtStop = answered(fs);
    long settledAtStop = countIn("SELECT count(*) FROM pointsman.ledger_entries WHERE request_id"
        + " = ANY(?)", ids);
    db.stop();
    sender.join();
    int ok = 0;
    List<String> other = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Answer a = fs.get(i).join();
      if (a.status == 200 && a.complete()) {
        ok++;
        acknowledged.put(ids.get(i), cost(a));
        answers.add(ids.get(i));
        answeredInOutage.add(ids.get(i));
      } else {
        other.add(ids.get(i) + "=" + a.status);
      }
    }
    Health[] h = new Health[1];
    boolean seen = awaitTrue(Duration.ofSeconds(30), () -> {
      h[0] = health(child);
      return h[0].failed().contains("database");
    });
    check("cycle " + c + ": PostgreSQL stopped under load (" + doneAtStop + " of " + n
        + " answered, " + settledAtStop + " in the ledger at the stop): every call answered,"
        + " /healthz reports the database down",
        ok == n && seen && h[0].status() == 503, ok + " answered; " + other + "; " + h[0]);
  }

  /**
   * Load while PostgreSQL is down and the budgets are confirmed (this process confirmed them
   * at start): every call is answered, its record waits in the journal.
   */
  private void outageLoad(ChildFacade child, int c, Set<String> answers) throws Exception {
    upstream.release();
    List<CompletableFuture<Answer>> fs = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < options.answered(); i++) {
      String id = "c" + c + "-down-" + i;
      ids.add(id);
      fs.add(send(child, i % 3 == 2 ? freeKey : mainKey, id, "cycle " + c + " while down " + i,
          i % 2 == 1, 64));
    }
    int ok = 0;
    List<String> other = new ArrayList<>();
    for (int i = 0; i < fs.size(); i++) {
      Answer a = fs.get(i).join();
      if (a.status == 200 && a.complete()) {
        ok++;
        acknowledged.put(ids.get(i), cost(a));
        answers.add(ids.get(i));
        answeredInOutage.add(ids.get(i));
      } else {
        other.add(ids.get(i) + "=" + a.status);
      }
    }
    check("cycle " + c + ": " + options.answered() + " requests (budgeted and not) answered while"
        + " PostgreSQL is down", ok == options.answered(), ok + " answered; " + other);
    long[] backlog = {-1};
    awaitTrue(Duration.ofSeconds(15), () -> {
      backlog[0] = metric(child, "pointsman_journal_backlog");
      return backlog[0] >= options.answered();
    });
    check("cycle " + c + ": their records wait in the journal (backlog >= " + options.answered()
        + ")", backlog[0] >= options.answered(), "backlog " + backlog[0]);
  }

  /**
   * After the restart with PostgreSQL still down: the facade serves calls no budget governs,
   * refuses budgeted ones (503 budget.unconfirmed, no provider call) and says why in /healthz.
   */
  private void whileDown(ChildFacade child, int c, Set<String> answers) throws Exception {
    upstream.release();
    String p = "c" + c + "-down-free-plain";
    String st = "c" + c + "-down-free-stream";
    Answer plain = send(child, freeKey, p, "cycle " + c + " free after restart", false, 64)
        .join();
    Answer streamed = send(child, freeKey, st, "cycle " + c + " free streamed after restart",
        true, 64).join();
    for (Map.Entry<String, Answer> e : Map.of(p, plain, st, streamed).entrySet()) {
      if (e.getValue().status == 200 && e.getValue().complete()) {
        acknowledged.put(e.getKey(), cost(e.getValue()));
        answers.add(e.getKey());
        answeredInOutage.add(e.getKey());
      }
    }
    check("cycle " + c + ": restarted while PostgreSQL is down, the facade serves calls no budget"
        + " governs (plain and streamed)", answers.contains(p) && answers.contains(st),
        plain.status + " " + streamed.status + " " + plain.body);

    String marker = "cycle " + c + " budgeted while unconfirmed";
    long forwarded = upstream.requestsContaining(marker);
    String id = "c" + c + "-down-unconfirmed";
    Answer refused = send(child, mainKey, id, marker, false, 64).join();
    acknowledged.put(id, 0L);
    refusedUnconfirmed.add(id);
    check("cycle " + c + ": a budgeted call is refused (503 budget.unconfirmed) and not forwarded",
        refused.status == 503 && "ratelimit.reserve".equals(refused.stage)
            && "budget.unconfirmed".equals(errorCode(refused))
            && upstream.requestsContaining(marker) == forwarded,
        refused.status + " stage " + refused.stage + " " + refused.body);

    Health h = health(child);
    check("cycle " + c + ": /healthz answers 503 naming the database and the budgets,"
        + " pointsman_budgets_confirmed 0", h.status() == 503
            && h.failed().contains("database") && h.failed().contains("budgets")
            && metric(child, "pointsman_budgets_confirmed") == 0, h.toString());

    // The ledger cannot be read: its admin endpoints say so rather than answer from nothing.
    String held = interrupted.get(interrupted.size() - 1);
    HttpResponse<String> hold = adminRaw(child, "GET", "/admin/holds/" + held, null);
    HttpResponse<String> attest = adminRaw(child, "POST", "/admin/holds/" + held + "/attest",
        "{\"costMicros\":1,\"epoch\":1,\"evidence\":\"while down\"}");
    check("cycle " + c + ": while PostgreSQL is down the ledger's admin endpoints answer 503",
        hold.statusCode() == 503 && attest.statusCode() == 503,
        hold.statusCode() + " " + hold.body() + " / " + attest.statusCode() + " "
            + attest.body());
  }

  /**
   * With PostgreSQL still down and the budgets unconfirmed, holds calls no budget governs at
   * the upstream (dispatched, unanswered) and kills the facade again.
   */
  private List<String> killWhileDown(ChildFacade child, int c) throws Exception {
    upstream.hold();
    int before = upstream.received();
    List<String> ids = new ArrayList<>();
    List<CompletableFuture<Answer>> fs = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      String id = "c" + c + "-down-held-" + i;
      ids.add(id);
      fs.add(send(child, freeKey, id, "cycle " + c + " held while down " + i, i % 2 == 1, 64));
    }
    upstream.awaitReceived(before + ids.size(), WAIT);
    int dispatched = upstream.received() - before;
    long answered = fs.stream().filter(CompletableFuture::isDone).count();
    int code = child.kill();
    upstream.release();
    int acked = 0;
    for (CompletableFuture<Answer> f : fs) {
      try {
        Answer a = f.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        if (a.status == 200 && a.complete()) {
          acked++;
        }
      } catch (java.util.concurrent.ExecutionException e) {
        // The connection broke off: not acknowledged, as expected.
      }
    }
    check("cycle " + c + ": killed again (137) while PostgreSQL is down, " + ids.size()
        + " unbudgeted calls dispatched and none acknowledged", code == 137
            && dispatched == ids.size() && answered == 0 && acked == 0,
        "exit " + code + ", " + dispatched + " dispatched, " + answered + " answered before, "
            + acked + " acknowledged");
    interrupted.addAll(ids);
    return ids;
  }

  /** After the second restart, still down: unbudgeted calls served, budgeted ones refused. */
  private void servesWhileDown(ChildFacade child, int c, Set<String> answers) throws Exception {
    upstream.release();
    String id = "c" + c + "-down-free-again";
    Answer a = send(child, freeKey, id, "cycle " + c + " free after the second restart", true,
        64).join();
    if (a.status == 200 && a.complete()) {
      acknowledged.put(id, cost(a));
      answers.add(id);
      answeredInOutage.add(id);
    }
    String refusedId = "c" + c + "-down-unconfirmed-again";
    Answer refused = send(child, mainKey, refusedId, "cycle " + c + " budgeted, second restart",
        false, 64).join();
    acknowledged.put(refusedId, 0L);
    refusedUnconfirmed.add(refusedId);
    check("cycle " + c + ": restarted again while down, it serves unbudgeted calls and refuses"
        + " budgeted ones (503 budget.unconfirmed)", answers.contains(id)
            && refused.status == 503 && "budget.unconfirmed".equals(errorCode(refused)),
        a.status + " " + refused.status + " " + refused.body);
  }

  /** Starts PostgreSQL again and waits until the budgets are confirmed and the journal drained. */
  private void startDatabase(ChildFacade child, int c) throws Exception {
    long t = System.nanoTime();
    db.startAgain();
    double started = (System.nanoTime() - t) / 1e9;
    Health[] h = new Health[1];
    long[] backlog = {-1};
    boolean ok = awaitTrue(WAIT, () -> {
      h[0] = health(child);
      backlog[0] = metric(child, "pointsman_journal_backlog");
      return h[0].status() == 200 && backlog[0] == 0
          && metric(child, "pointsman_budgets_confirmed") == 1;
    });
    out.printf(Locale.ROOT, "  PostgreSQL started in %.1f s; confirmed and drained %.1f s after%n",
        started, (System.nanoTime() - t) / 1e9 - started);
    check("cycle " + c + ": PostgreSQL back: the budgets are confirmed and the journal drains",
        ok, h[0] + ", backlog " + backlog[0]);
  }

  /** Checks specific to the outage, after the catch-up. */
  private void afterOutage(ChildFacade child, int c, Set<String> answers) throws Exception {
    Map<String, Row> rows = rows();
    List<String> bad = new ArrayList<>();
    for (String id : answers) {
      Row r = rows.get(id);
      if (r == null || !"SETTLED".equals(r.status) || r.cost != acknowledged.get(id)) {
        bad.add(id + "=" + r);
      }
    }
    List<String> ids = new ArrayList<>(answers);
    long rowCount = countIn("SELECT count(*) FROM pointsman.ledger_entries WHERE request_id"
        + " = ANY(?)", ids);
    long wrongCharges = countIn("SELECT count(*) FROM pointsman.charges ch JOIN"
        + " pointsman.ledger_entries e ON e.event_id = ch.event_id WHERE e.request_id = ANY(?)"
        + " AND ch.amount_micros <> e.cost_micros", ids);
    long keyCharges = countIn("SELECT count(*) FROM pointsman.charges ch JOIN"
        + " pointsman.ledger_entries e ON e.event_id = ch.event_id WHERE e.request_id = ANY(?)"
        + " AND ch.scope_kind = 'KEY'", ids);
    check("cycle " + c + ": every call answered during the outage (" + answers.size() + ") is"
        + " one settled row at its reported cost, each scope charged it once",
        bad.isEmpty() && rowCount == answers.size() && wrongCharges == 0
            && keyCharges == answers.size(),
        "bad " + bad + ", rows " + rowCount + ", wrong charges " + wrongCharges
            + ", key charges " + keyCharges);

    List<String> refusals = List.of("c" + c + "-down-unconfirmed",
        "c" + c + "-down-unconfirmed-again");
    bad.clear();
    for (String id : refusals) {
      Row r = rows.get(id);
      // A 5xx refusal is recorded FAILED (4xx ones REJECTED), with no attempt and no hold.
      if (r == null || !"SETTLED".equals(r.status) || !"FAILED".equals(r.outcome)
          || r.attempts != 0 || r.reservationState != null || r.cost != 0 || r.httpStatus != 503
          || !"budget.unconfirmed".equals(r.rule)) {
        bad.add(id + "=" + r);
      }
    }
    long charged = countIn("SELECT count(*) FROM pointsman.charges ch JOIN"
        + " pointsman.ledger_entries e ON e.event_id = ch.event_id WHERE e.request_id = ANY(?)"
        + " AND ch.amount_micros > 0", refusals);
    check("cycle " + c + ": each budget.unconfirmed refusal is one settled row (FAILED, 503, no"
        + " attempt, no hold), charged nothing", bad.isEmpty() && charged == 0,
        bad + ", positive charges " + charged);

    String again = "c" + c + "-after-outage";
    Answer a = send(child, mainKey, again, "cycle " + c + " budgeted after confirmation", false,
        64).join();
    boolean admitted = a.status == 200 && a.complete();
    if (admitted) {
      acknowledged.put(again, cost(a));
    }
    check("cycle " + c + ": once confirmed, budgeted calls are admitted again and settle",
        admitted && awaitRow(again) != null, a.status + " " + a.body);
  }

  private static long answered(List<CompletableFuture<Answer>> fs) {
    synchronized (fs) {
      return fs.stream().filter(CompletableFuture::isDone).count();
    }
  }

  /** What {@code /healthz} answered. */
  private record Health(int status, List<String> failed, String body) {}

  private Health health(ChildFacade child) {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.port()
        + "/healthz")).timeout(Duration.ofSeconds(10)).GET().build();
    try {
      HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
      List<String> failed = new ArrayList<>();
      Json.mapper().readTree(r.body()).path("failed").forEach(n -> failed.add(n.asText()));
      return new Health(r.statusCode(), failed, r.body());
    } catch (IOException e) {
      throw new UncheckedIOException("/healthz failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** One unlabelled sample of {@code /metrics}; -1 when absent. */
  private long metric(ChildFacade child, String name) {
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.port()
        + "/metrics")).timeout(Duration.ofSeconds(10)).GET().build();
    try {
      String body = http.send(req, HttpResponse.BodyHandlers.ofString()).body();
      for (String line : body.split("\n")) {
        if (line.startsWith(name + " ")) {
          return (long) Double.parseDouble(line.substring(name.length() + 1).trim());
        }
      }
      return -1;
    } catch (IOException e) {
      throw new UncheckedIOException("/metrics failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Polls a condition every 200 ms until it holds or the time is up. */
  private static boolean awaitTrue(Duration timeout, java.util.concurrent.Callable<Boolean> c)
      throws Exception {
    return awaitTrue(timeout, 200, c);
  }

  /** Polls a condition every {@code pollMillis} until it holds or the time is up. */
  private static boolean awaitTrue(Duration timeout, long pollMillis,
      java.util.concurrent.Callable<Boolean> c) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (Boolean.TRUE.equals(c.call())) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      Thread.sleep(pollMillis);
    }
  }

  /** The rule that refused a call, which the facade names in {@code x-pointsman-rule}. */
  private static String errorCode(Answer a) {
    return a.rule;
  }

  private void afterRestart(ChildFacade child, int c, List<String> heldNow) throws Exception {
    Map<String, Row> rows = rows();
    check("cycle " + c + ": ledger rows = acknowledged responses + interrupted requests",
        rows.size() == acknowledged.size() + interrupted.size(), rows.size() + " rows, "
            + acknowledged.size() + " acknowledged, " + interrupted.size() + " interrupted");
    List<String> bad = new ArrayList<>();
    for (Map.Entry<String, Long> e : acknowledged.entrySet()) {
      Row r = rows.get(e.getKey());
      if (r == null || !"SETTLED".equals(r.status) || r.cost != e.getValue()) {
        bad.add(e.getKey() + "=" + r);
      }
    }
    check("cycle " + c + ": each acknowledged response is one settled row charged what its"
        + " response said", bad.isEmpty(), bad.toString());
    bad.clear();
    for (String id : heldNow) {
      Row r = rows.get(id);
      // A budgeted call holds its worst case against its budgets; one no budget governs holds
      // nothing in the counters, but its reservation is unresolved all the same.
      boolean budgeted = !id.contains("-down-held-");
      if (r == null || !"UNKNOWN".equals(r.outcome) || !"UNKNOWN".equals(r.status)
          || !"UNKNOWN".equals(r.reservationState) || (budgeted ? r.held <= 0 : r.held != 0)) {
        bad.add(id + "=" + r);
      }
    }
    check("cycle " + c + ": each interrupted request is UNKNOWN with its reservation unresolved"
        + " (budgeted ones holding)", bad.isEmpty() && heldNow.size() >= 20, bad.toString());
    bad.clear();
    for (String id : heldNow) {
      Row r = rows.get(id);
      // One attempt each (the upstream held the first), no extension: expiry would charge
      // attempts seen x that attempt's worst case, which is what a budgeted call holds.
      boolean budgeted = !id.contains("-down-held-");
      if (r == null || r.attempts != 1 || r.worstCase <= 0
          || (budgeted && r.worstCase != (long) r.attempts * r.held)) {
        bad.add(id + "=" + r);
      }
    }
    check("cycle " + c + ": each interrupted hold's worst case = attempts seen x the attempt's"
        + " worst case", bad.isEmpty(), bad.toString());
    bad.clear();
    for (String id : interrupted) {
      Row r = rows.get(id);
      if (r == null || !"UNKNOWN".equals(r.outcome)) {
        bad.add(id + "=" + r);
      }
    }
    check("cycle " + c + ": every interrupted request of every cycle is still one UNKNOWN row",
        bad.isEmpty(), bad.toString());

    budgetChecks(child, c, "drill");
    check("cycle " + c + ": nothing charged twice (one row per request, charges = costs)",
        count("SELECT count(*) - count(DISTINCT request_id) FROM pointsman.ledger_entries") == 0
            && count("SELECT count(*) FROM pointsman.ledger_entries e WHERE"
                + " coalesce((SELECT sum(amount_micros) FROM pointsman.charges c WHERE"
                + " c.event_id = e.event_id AND c.scope_kind = 'KEY'), 0) <> e.cost_micros")
            == 0, "duplicate request rows or charges that differ from costs");

    attestationChecks(child, c, heldNow);
    expiryCheck(child, c, heldNow.get(3));
    raceCheck(child, c);
    budgetChecks(child, c, "drill");
  }

  private void budgetChecks(ChildFacade child, int c, String team) throws Exception {
    long spent = count("SELECT coalesce(sum(cost_micros), 0) FROM pointsman.ledger_entries"
        + " WHERE team_id = '" + team + "' AND status IN ('SETTLED', 'ATTESTED', 'EXPIRED')");
    long held = count("SELECT coalesce(sum(r.held_micros), 0) FROM pointsman.reservations r"
        + " JOIN pointsman.ledger_entries e ON e.event_id = r.event_id WHERE e.team_id = '"
        + team + "' AND r.state = 'UNKNOWN'");
    long chargedTeam = count("SELECT coalesce(sum(amount_micros), 0) FROM pointsman.charges"
        + " WHERE scope_kind = 'TEAM' AND scope_id = '" + team + "'");
    JsonNode live = admin(child, "GET", "/admin/budgets", null).path("budget:team:" + team);
    check("cycle " + c + ": team " + team + " charges in PostgreSQL = settled + resolved costs",
        chargedTeam == spent, "charges " + chargedTeam + ", rows " + spent);
    check("cycle " + c + ": team " + team + " counters after restart = settled + held",
        live.path("spentMicros").asLong(-1) == spent && live.path("heldMicros").asLong(-1) == held
            && held > 0,
        "live " + live + ", PostgreSQL spent " + spent + " held " + held);
  }

  private void attestationChecks(ChildFacade child, int c, List<String> heldNow)
      throws Exception {
    String accepted = eventOf(heldNow.get(0));
    JsonNode hold = admin(child, "GET", "/admin/holds/" + accepted, null);
    long epoch = hold.path("epoch").asLong();
    long heldMicros = hold.path("heldMicros").asLong();
    long floor = hold.path("floorMicros").asLong();
    long cost = Math.max(floor, heldMicros / 2);
    JsonNode before = admin(child, "GET", "/admin/budgets", null).path("budget:team:drill");
    String body = "{\"costMicros\":" + cost + ",\"epoch\":" + epoch + ",\"promptTokens\":10,"
        + "\"completionTokens\":5,\"evidence\":\"provider usage export, cycle " + c + "\"}";
    JsonNode decision = admin(child, "POST", "/admin/holds/" + accepted + "/attest", body);
    JsonNode after = admin(child, "GET", "/admin/budgets", null).path("budget:team:drill");
    Row row = rows().get(heldNow.get(0));
    check("cycle " + c + ": an accepted attestation resolves a hold in the ledger and the"
        + " counters", "ACCEPTED".equals(decision.path("verdict").asText())
            && row != null && "ATTESTED".equals(row.status) && row.cost == cost
            && "ATTESTED".equals(row.reservationState)
            && after.path("heldMicros").asLong() == before.path("heldMicros").asLong() - heldMicros
            && after.path("spentMicros").asLong() == before.path("spentMicros").asLong() + cost,
        decision + " row " + row + " before " + before + " after " + after);

    String print = fingerprint();
    JsonNode again = admin(child, "POST", "/admin/holds/" + accepted + "/attest", body);
    String other = eventOf(heldNow.get(1));
    long otherEpoch = admin(child, "GET", "/admin/holds/" + other, null).path("epoch").asLong();
    JsonNode stale = admin(child, "POST", "/admin/holds/" + other + "/attest", "{\"costMicros\":"
        + cost + ",\"epoch\":" + (otherEpoch + 7) + ",\"evidence\":\"an old export\"}");
    check("cycle " + c + ": stale attestations are refused without writing",
        "ALREADY_RESOLVED".equals(again.path("verdict").asText())
            && "STALE_EPOCH".equals(stale.path("verdict").asText())
            && print.equals(fingerprint()), again + " " + stale);

    String third = eventOf(heldNow.get(2));
    JsonNode h3 = admin(child, "GET", "/admin/holds/" + third, null);
    long floor3 = h3.path("floorMicros").asLong();
    JsonNode under = admin(child, "POST", "/admin/holds/" + third + "/attest", "{\"costMicros\":"
        + (floor3 - 1) + ",\"epoch\":" + h3.path("epoch").asLong()
        + ",\"evidence\":\"too cheap\"}");
    check("cycle " + c + ": an under-floor attestation is refused without writing",
        floor3 > 0 && "UNDER_FLOOR".equals(under.path("verdict").asText())
            && print.equals(fingerprint()), "floor " + floor3 + " " + under);
  }

  /**
   * Ends one hold's window (the drill moves its end into the past, as the 15 minutes would)
   * and lets the facade's housekeeping run (it runs after any attestation): the call is
   * charged its worst case, attempts seen x one attempt's worst case, in the ledger and the
   * counters.
   */
  private void expiryCheck(ChildFacade child, int c, String requestId) throws Exception {
    Row before = rows().get(requestId);
    JsonNode budgetBefore = admin(child, "GET", "/admin/budgets", null).path("budget:team:drill");
    execute("UPDATE pointsman.reservations SET hold_until = now() - interval '1 second'"
        + " WHERE event_id = ? AND state = 'UNKNOWN'", before.eventId);
    JsonNode none = admin(child, "POST", "/admin/holds/evt-drill-none/attest",
        "{\"costMicros\":1,\"epoch\":1,\"evidence\":\"runs the housekeeping\"}");
    Row after = rows().get(requestId);
    JsonNode budgetAfter = admin(child, "GET", "/admin/budgets", null).path("budget:team:drill");
    long worst = (long) before.attempts * before.held;
    long keyCharge = count("SELECT coalesce(sum(amount_micros), -1) FROM pointsman.charges"
        + " WHERE scope_kind = 'KEY' AND event_id = '" + before.eventId + "'");
    check("cycle " + c + ": a hold whose window ended expires charged attempts seen x worst case,"
        + " in the ledger and the counters", "NOT_FOUND".equals(none.path("verdict").asText())
            && "EXPIRED".equals(after.status) && "EXPIRED".equals(after.reservationState)
            && after.cost == before.worstCase && before.worstCase == worst && keyCharge == worst
            && budgetAfter.path("heldMicros").asLong()
                == budgetBefore.path("heldMicros").asLong() - before.held
            && budgetAfter.path("spentMicros").asLong()
                == budgetBefore.path("spentMicros").asLong() + worst,
        none + " before " + before + " after " + after + " key charge " + keyCharge
            + " counters " + budgetBefore + " -> " + budgetAfter);
  }

  private void raceCheck(ChildFacade child, int c) throws Exception {
    String raceEvent = eventOf("c" + c + "-race");
    JsonNode hold = admin(child, "GET", "/admin/holds/" + raceEvent, null);
    long w = hold.path("heldMicros").asLong();
    String newId = "c" + c + "-race-again";
    String marker = "race " + c + " again";
    long forwardedBefore = upstream.requestsContaining(marker);
    CountDownLatch go = new CountDownLatch(1);
    CompletableFuture<JsonNode> attest = CompletableFuture.supplyAsync(() -> {
      await(go);
      return admin(child, "POST", "/admin/holds/" + raceEvent + "/attest", "{\"costMicros\":" + w
          + ",\"epoch\":" + hold.path("epoch").asLong() + ",\"evidence\":\"race export\"}");
    });
    CompletableFuture<Answer> request = CompletableFuture.supplyAsync(() -> {
      await(go);
      return send(child, raceKeys.get(c - 1), newId, marker, false, RACE_MAX_TOKENS).join();
    });
    go.countDown();
    JsonNode decision = attest.join();
    Answer a = request.join();
    acknowledged.put(newId, 0L);
    // Settlement follows the answer in the background: wait for the row, then check it.
    Row row = awaitRow(newId);
    String team = "race-" + c;
    long teamCharged = count("SELECT coalesce(sum(amount_micros), 0) FROM pointsman.charges"
        + " WHERE scope_kind = 'TEAM' AND scope_id = '" + team + "'");
    JsonNode live = admin(child, "GET", "/admin/budgets", null).path("budget:team:" + team);
    check("cycle " + c + ": while an attestation races a new request, nothing is served,"
        + " forwarded or charged", w > RACE_LIMIT / 2 && w <= RACE_LIMIT
            && "ACCEPTED".equals(decision.path("verdict").asText()) && a.status == 402
            && upstream.requestsContaining(marker) == forwardedBefore
            && row != null && "REJECTED".equals(row.outcome) && row.cost == 0
            && teamCharged == w && live.path("spentMicros").asLong() == w
            && live.path("heldMicros").asLong() == 0,
        "hold " + w + ", " + decision + ", status " + a.status + ", row " + row + ", charged "
            + teamCharged + ", live " + live);
  }

  private static void await(CountDownLatch l) {
    try {
      l.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  // ------------------------------------------------------------------ HTTP

  /** A response as the drill's client saw it. */
  private record Answer(int status, String body, String costHeader, String stage,
      String rule) {
    boolean complete() {
      return !body.startsWith("data:") || body.contains("data: [DONE]");
    }
  }

  private CompletableFuture<Answer> send(ChildFacade child, String key, String requestId,
      String text, boolean stream, int maxTokens) {
    String body = "{\"model\":\"" + MODEL + "\",\"max_tokens\":" + maxTokens + ",\"stream\":"
        + stream + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]}";
    HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + child.port()
            + "/v1/chat/completions"))
        .header("Authorization", "Bearer " + key).header("X-Request-Id", requestId)
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString()).thenApply(r -> new Answer(
        r.statusCode(), r.body(), r.headers().firstValue("x-pointsman-cost-micros")
            .orElse(null), r.headers().firstValue("x-pointsman-stage").orElse(null),
        r.headers().firstValue("x-pointsman-rule").orElse(null)));
  }

  private static long cost(Answer a) {
    if (a.costHeader != null) {
      return Long.parseLong(a.costHeader);
    }
    Matcher m = COST.matcher(a.body);
    if (!m.find()) {
      throw new IllegalStateException("a response without its cost: " + a.body);
    }
    return Long.parseLong(m.group(1));
  }

  private HttpResponse<String> adminRaw(ChildFacade child, String method, String path,
      String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + child.port() + path)).header("Authorization", "Bearer " + ADMIN);
    b = body == null ? b.GET() : b.method(method, HttpRequest.BodyPublishers.ofString(body));
    try {
      return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException("admin call " + path + " failed", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private JsonNode admin(ChildFacade child, String method, String path, String body) {
    try {
      return Json.mapper().readTree(adminRaw(child, method, path, body).body());
    } catch (IOException e) {
      throw new UncheckedIOException("admin call " + path + " answered no JSON", e);
    }
  }


  // ------------------------------------------------------------------ ledger

  /** One ledger row with its reservation. */
  private record Row(String eventId, String status, String outcome, long cost, long held,
      String reservationState, int attempts, long worstCase, int httpStatus, String rule) {}

  private Map<String, Row> rows() throws SQLException {
    Map<String, Row> out = new HashMap<>();
    try (Connection conn = db.connect(); PreparedStatement ps = conn.prepareStatement(
        "SELECT e.request_id, e.event_id, e.status, e.outcome, e.cost_micros, e.held_micros,"
            + " r.state, e.attempts, coalesce(r.worst_case_micros, -1),"
            + " coalesce(e.http_status, 0), e.rule FROM pointsman.ledger_entries e"
            + " LEFT JOIN pointsman.reservations r ON r.event_id = e.event_id");
        ResultSet rs = ps.executeQuery()) {
      while (rs.next()) {
        out.put(rs.getString(1), new Row(rs.getString(2), rs.getString(3), rs.getString(4),
            rs.getLong(5), rs.getLong(6), rs.getString(7), rs.getInt(8), rs.getLong(9),
            rs.getInt(10), rs.getString(11)));
      }
    }
    return out;
  }

  /** The row of a request once settlement wrote it (it follows the answer), or null. */
  private Row awaitRow(String requestId) throws Exception {
    Row[] r = new Row[1];
    awaitTrue(Duration.ofSeconds(30), () -> (r[0] = rows().get(requestId)) != null);
    return r[0];
  }

  private String eventOf(String requestId) throws SQLException {
    Row r = rows().get(requestId);
    if (r == null) {
      throw new IllegalStateException("no ledger row for " + requestId);
    }
    return r.eventId;
  }

  private long count(String sql) throws SQLException {
    try (Connection conn = db.connect(); PreparedStatement ps = conn.prepareStatement(sql);
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** A count whose query takes one text array parameter. */
  private long countIn(String sql, List<String> values) throws SQLException {
    try (Connection conn = db.connect(); PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setArray(1, conn.createArrayOf("text", values.toArray()));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private void execute(String sql, String value) throws SQLException {
    try (Connection conn = db.connect(); PreparedStatement ps = conn.prepareStatement(sql)) {
      ps.setString(1, value);
      ps.executeUpdate();
    }
  }

  /** Every row of the ledger's tables, in order, as one string. */
  private String fingerprint() throws SQLException {
    StringBuilder sb = new StringBuilder();
    for (String sql : List.of(
        "SELECT e::text FROM pointsman.ledger_entries e ORDER BY event_id",
        "SELECT r::text FROM pointsman.reservations r ORDER BY reservation_id",
        "SELECT c::text FROM pointsman.charges c ORDER BY event_id, scope_kind, scope_id")) {
      try (Connection conn = db.connect(); PreparedStatement ps = conn.prepareStatement(sql);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          sb.append(rs.getString(1)).append('\n');
        }
      }
    }
    return sb.toString();
  }

  private void check(String name, boolean ok, String detail) {
    if (ok) {
      passed++;
      out.println("  PASS " + name);
    } else {
      failures.add(name + ": " + detail);
      out.println("  FAIL " + name + ": " + detail);
    }
  }
}
