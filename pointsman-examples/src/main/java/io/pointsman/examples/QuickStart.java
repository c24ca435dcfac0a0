package io.pointsman.examples;

import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.TimingSnapshot;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.guardrail.MessageBoundsGuardrail;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.PostgresLedger;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;
import io.pointsman.testing.FixtureProvider;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;

/**
 * The quickstart: a gateway in the durable profile — the file journal in a temporary directory
 * and PostgreSQL settlement, on an embedded PostgreSQL started from a Maven artifact unless
 * {@code POINTSMAN_PG_URL} names a server — with the fixture provider, and one call down each
 * path (miss, exact hit, {@code no-cache} bypass, budget denial, guardrail block), then the
 * ledger rows read back from PostgreSQL and the stage-timing table. Needs no server.
 *
 * <p>Run: {@code mvn -q -B -pl pointsman-examples -am compile exec:java}
 */
public final class QuickStart {
  private static final int WARMUP_ROUNDS = 5_000;

  private QuickStart() {}

  /**
   * Runs the quickstart.
   *
   * @param args ignored
   */
  public static void main(String[] args) {
    run(System.out);
  }

  /**
   * Runs the quickstart, printing to the given stream.
   *
   * @param out where to print
   * @return the number of calls that went the way the quickstart expected
   */
  public static int run(PrintStream out) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    String appKey = VirtualKeys.generate();
    String trialKey = VirtualKeys.generate();
    keys.addKey(appKey, KeySpec.builder("key-app").team("checkout").org("acme").build());
    keys.addKey(trialKey, KeySpec.builder("key-trial").team("trial").org("acme").build());

    // Warm the JIT on a twin gateway with in-memory accounting, limits and cache, so the
    // timing table shows steady-state figures rather than class loading.
    try (Gateway warm = builder(keys).accounting(new InMemoryAccounting()).build()) {
      for (int i = 0; i < WARMUP_ROUNDS; i++) {
        paths(warm, appKey, trialKey, "warmup " + i, null);
      }
    }

    String url = System.getenv("POINTSMAN_PG_URL");
    Path journalDir = TempDirectories.create("pointsman-quickstart-journal");
    int expected;
    try (LedgerDatabase database = LedgerDatabase.open(url)) {
      Map<String, TimingSnapshot> timings;
      // The durable profile: the gateway opens and recovers the journal, settles into the
      // ledger, rebuilds the budget counters from it, and closes both.
      try (Gateway gateway = builder(keys).journal(JournalAccounting.at(journalDir))
          .ledger(PostgresLedger.of(database.dataSource())).build()) {
        out.println("Pointsman quickstart: durable profile (file journal + PostgreSQL), fixture"
            + " provider");
        out.println("  journal:    " + journalDir);
        out.println("  PostgreSQL: " + database.description()
            + (database.embedded() ? " (set POINTSMAN_PG_URL to use your own)" : ""));
        out.println();
        out.printf(Locale.ROOT, "%-16s %-6s %-22s %10s  %s%n", "path", "status", "cache",
            "cost (µ)", "detail");
        expected = paths(gateway, appKey, trialKey, "What does a railway pointsman do?", out);
        timings = gateway.timers().snapshot();
      } // closing the gateway drains the journal into PostgreSQL

      out.println();
      out.println("Ledger rows in PostgreSQL (one per authenticated call; settled after the"
          + " journal made each durable):");
      printLedger(database.dataSource(), out);

      out.println();
      out.println("Stage timings of the five calls above (µs; each stage's own work; total is"
          + " the whole call, including two journal fsyncs per provider call; after "
          + WARMUP_ROUNDS + " warmup rounds on an in-memory twin):");
      out.printf(Locale.ROOT, "  %-18s %6s %9s %9s %9s %9s%n", "stage", "count", "mean",
          "p50", "p99", "max");
      for (Map.Entry<String, TimingSnapshot> e : timings.entrySet()) {
        TimingSnapshot s = e.getValue();
        out.printf(Locale.ROOT, "  %-18s %6d %9.1f %9.1f %9.1f %9.1f%n", e.getKey(), s.count(),
            s.meanNanos() / 1e3, s.p50Nanos() / 1e3, s.p99Nanos() / 1e3, s.maxNanos() / 1e3);
      }
      out.println();
      out.println("Stages, in order: " + String.join(" → ", Stages.ORDER));
    } finally {
      TempDirectories.delete(journalDir);
    }
    return expected;
  }

  private static void printLedger(DataSource dataSource, PrintStream out) {
    String sql = "SELECT key_id, outcome, status, http_status, cache_outcome, cost_micros,"
        + " cost_estimated, attempts, decided_by FROM pointsman.ledger_entries"
        + " ORDER BY started_at, event_id";
    out.printf(Locale.ROOT, "  %-10s %-10s %-8s %6s %-8s %9s %9s %8s  %s%n", "key", "outcome",
        "status", "http", "cache", "cost (µ)", "estimated", "attempts", "decided by");
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      while (rs.next()) {
        out.printf(Locale.ROOT, "  %-10s %-10s %-8s %6d %-8s %9d %9s %8d  %s%n",
            rs.getString(1), rs.getString(2), rs.getString(3), rs.getInt(4), rs.getString(5),
            rs.getLong(6), rs.getBoolean(7), rs.getInt(8),
            rs.getString(9) == null ? "-" : rs.getString(9));
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the ledger", e);
    }
  }

  private static Gateway.Builder builder(InMemoryKeyStore keys) {
    ModelCatalog models = ModelCatalog.builder()
        .model(ModelSpec.builder("gpt-4o-mini").aliases("mini").contextWindow(128_000)
            .maxOutputTokens(16_384).price(new Price(150_000, 600_000, 75_000)).build())
        .build();
    // The trial team may spend 500 micro-units (0.0005 currency units) in all.
    CounterLimiter limits = CounterLimiter.builder(new InProcessCounterStore())
        .budget(Scope.team("trial"), 500)
        .budget(Scope.org("acme"), 1_000_000_000)
        .build();
    return Gateway.builder()
        .authenticator(keys)
        .models(models)
        .limiter(limits)
        .inputGuardrail(MessageBoundsGuardrail.of(100, 2_000, 8_000))
        .provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"));
  }

  /** Sends one call down each path; prints a line per call when {@code out} is not null. */
  private static int paths(Gateway gateway, String appKey, String trialKey, String text,
      PrintStream out) {
    ChatRequest question = ChatRequest.builder().model("mini")
        .addMessage(Message.system("Answer in one sentence."))
        .addMessage(Message.user(text))
        .temperature(0.0).maxTokens(200).build();
    int expected = 0;
    expected += line(out, "miss", () -> gateway.chat(question, CallOptions.of(appKey)));
    expected += line(out, "exact hit", () -> gateway.chat(question, CallOptions.of(appKey)));
    expected += line(out, "no-cache bypass", () -> gateway.chat(question,
        CallOptions.builder(appKey).cacheControl(CacheControl.NO_CACHE).build()));
    expected += line(out, "budget denial", () -> gateway.chat(
        question.toBuilder().maxTokens(4_000).build(), CallOptions.of(trialKey)));
    expected += line(out, "guardrail block", () -> gateway.chat(
        question.withMessages(java.util.List.of(Message.user("x".repeat(3_000)))),
        CallOptions.of(appKey)));
    return expected;
  }

  private interface Call {
    ChatResult run();
  }

  private static int line(PrintStream out, String path, Call call) {
    try {
      ChatResult r = call.run();
      if (out != null) {
        out.printf(Locale.ROOT, "%-16s %-6s %-22s %10d  %s%n", path, "200",
          r.cacheStatus().label(), r.costMicros(), "\"" + abbreviate(r.response().firstText())
              + "\"");
      }
      return path.equals("miss") || path.equals("exact hit") || path.equals("no-cache bypass")
          ? 1 : 0;
    } catch (PointsmanException e) {
      if (out != null) {
        out.printf(Locale.ROOT, "%-16s %-6d %-22s %10d  %s%n", path, e.status().httpStatus(),
          "-", 0, e.stage() + (e.rule() == null ? "" : " / " + e.rule()) + ": "
              + e.getMessage());
      }
      return path.equals("budget denial") || path.equals("guardrail block") ? 1 : 0;
    }
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 39) + "…";
  }
}
