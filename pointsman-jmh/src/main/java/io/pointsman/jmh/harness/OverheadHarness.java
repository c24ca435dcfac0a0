package io.pointsman.jmh.harness;

import io.pointsman.jmh.Prompts;
import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.cache.semantic.MiniLmEmbedder;
import io.pointsman.cache.semantic.SemanticCache;
import io.pointsman.cache.tiered.TieredCache;
import io.pointsman.spi.ResponseCache;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.ledger.LedgerPool;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.ledger.ReconciliationReport;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.StreamOptions;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The end-to-end overhead harness: drives a gateway in the durable profile (file journal +
 * PostgreSQL settlement) in-process against a zero-delay fixture provider over HTTP on
 * loopback, and in the same run drives the fixture directly, open loop at fixed arrival rates.
 *
 * <p>Paths: {@code bypass} (the gateway with {@code no-cache}: every stage, the provider over
 * HTTP, two journal forces), {@code hit} (an exact L1 hit), {@code stream} (time to first token
 * and to completion), {@code semantic} (a new question every call: the exact layer misses, the
 * semantic layer embeds it with MiniLM, searches and misses, the provider answers). For each path, rate and prompt size the arms run in the order direct,
 * gateway, gateway, direct (A B B A), each gateway run on a fresh journal and a fresh database;
 * a warmup is discarded; after each gateway run the ledger is reconciled (one row per
 * acknowledged response, charges equal costs, journal drained, nothing held) and a run that
 * fails reconciliation fails the harness.
 *
 * <p>Output under {@code --out}: one CSV of latency percentiles per run, {@code summary.csv}
 * (one row per run), {@code reconciliation.csv}, {@code environment.txt}; the charts and the
 * tables of {@code docs/benchmarks.md} are rendered from these files by
 * {@link io.pointsman.jmh.report.BenchmarkPage}.
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -cp
 * pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.harness.OverheadHarness
 * --out=pointsman-jmh/results/harness/evidence}
 * (options: {@code --rates=50,500 --sizes=150,4096 --paths=bypass,hit,stream,semantic --warmup=2
 * --measure=8 --profile=durable|journal|memory --transport=jdk|apache --warm=60 --warm-rate=500
 * --mark-linger=PT0S --pauses --jfr=bypass-500rps-150B-2 --ramp} — {@code --warm} first warms
 * the JVM for that many seconds per
 * arm, unrecorded; {@code --mark-linger} sets the journal's {@link JournalConfig#markLinger()},
 * as an ISO-8601 duration; {@code --ramp} instead finds the highest rate the durable profile
 * sustains with p99 under 10 ms and no errors, at {@code --ramp-rates=50,100,...,4000}).
 * Besides the process's CPU per request, every window reports its JIT compiler threads' share
 * and the PostgreSQL server processes' CPU per request; with {@code --pauses}, also the JVM's
 * safepoints and garbage collection pauses in it (from a JDK Flight Recorder recording of the
 * window, see {@link Pauses}; reading the recording between windows is JIT work that can spill
 * into the next window, so it is not on by default); {@code --jfr=TEXT} keeps a full profile
 * recording of every measured run whose id contains TEXT, under {@code jfr/}.
 */
public final class OverheadHarness {
  private static final String MODEL = "gpt-fixture";
  private static final PrintStream OUT = System.out;

  private final HttpFixtureServer fixture;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();
  private final Path out;
  private final String profile;
  /** The adapter's transport: {@code jdk} (the adapter's default) or {@code apache}. */
  private String transport = "jdk";
  /** The journal's mark linger in gateway runs; null for the journal's default. */
  private static Duration markLinger;
  /** Runs whose id contains this keep a full JFR recording under {@code jfr/}; null for none. */
  private static String jfrRuns;
  /** Whether each measured window records the JVM's safepoints and GC pauses, --pauses. */
  private static boolean recordPauses;
  private final List<String> summary = new ArrayList<>();
  /** What the last measured window cost beyond latency (set by every run). */
  private Attribution lastAttribution = Attribution.NONE;
  private final List<String> reconciliation = new ArrayList<>();

  private OverheadHarness(Path out, String profile) {
    this.out = out;
    this.profile = profile;
    this.fixture = HttpFixtureServer.start().recording(false).respondWith(r ->
        r.bodyText().contains("\"stream\":true") ? streamed() : FixtureResponse.json(200,
            COMPLETION));
  }

  private static final String COMPLETION = "{\"id\":\"chatcmpl-fixture\",\"object\":"
      + "\"chat.completion\",\"created\":1733000000,\"model\":\"" + MODEL + "\",\"choices\":"
      + "[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"The pointsman sets the"
      + " switch.\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":40,"
      + "\"completion_tokens\":6,\"total_tokens\":46}}";

  private static FixtureResponse streamed() {
    List<String> frames = new ArrayList<>();
    String[] words = {"The", " pointsman", " sets", " the", " switch."};
    for (int i = 0; i < words.length; i++) {
      frames.add("{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\""
          + MODEL + "\",\"choices\":[{\"index\":0,\"delta\":{" + (i == 0
              ? "\"role\":\"assistant\"," : "") + "\"content\":\"" + words[i]
          + "\"},\"finish_reason\":" + (i == words.length - 1 ? "\"stop\"" : "null") + "}]}");
    }
    frames.add("{\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\""
        + MODEL + "\",\"choices\":[],\"usage\":{\"prompt_tokens\":40,\"completion_tokens\":6,"
        + "\"total_tokens\":46}}");
    frames.add("[DONE]");
    List<String> events = new ArrayList<>();
    for (String f : frames) {
      events.add("data: " + f + "\n\n");
    }
    return FixtureResponse.sse(events);
  }

  /**
   * Runs the harness.
   *
   * @param args options, see the class documentation
   * @throws Exception when a run fails or does not reconcile
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = io.pointsman.jmh.Options.parse(args);
    Path out = Path.of(opts.getOrDefault("out", "pointsman-jmh/results/harness/evidence"));
    Files.createDirectories(out.resolve("runs"));
    OverheadHarness harness = new OverheadHarness(out, opts.getOrDefault("profile", "durable"));
    harness.transport = opts.getOrDefault("transport", "jdk");
    if (opts.containsKey("mark-linger")) {
      markLinger = Duration.parse(opts.get("mark-linger"));
    }
    jfrRuns = opts.get("jfr");
    recordPauses = opts.containsKey("pauses");
    try {
      harness.environment(opts);
      double warm = Double.parseDouble(opts.getOrDefault("warm", "0"));
      if (warm > 0) {
        harness.warm(opts.getOrDefault("paths", "bypass").split(",")[0],
            Integer.parseInt(opts.getOrDefault("warm-rate", "500")), warm);
      }
      if (opts.containsKey("ramp")) {
        harness.ramp(Double.parseDouble(opts.getOrDefault("measure", "5")),
            opts.getOrDefault("ramp-rates",
                "50,100,200,300,400,500,750,1000,1500,2000,3000,4000"));
      } else {
        for (String path : opts.getOrDefault("paths", "bypass,hit,stream").split(",")) {
          for (String rate : opts.getOrDefault("rates", "50,500").split(",")) {
            for (String size : opts.getOrDefault("sizes", "150,4096").split(",")) {
              harness.abba(path, Integer.parseInt(rate), Integer.parseInt(size),
                  Double.parseDouble(opts.getOrDefault("warmup", "2")),
                  Double.parseDouble(opts.getOrDefault("measure", "8")));
            }
          }
        }
      }
      harness.writeSummaries();
    } finally {
      harness.fixture.close();
    }
    OUT.println("done: " + out);
  }

  private void environment(Map<String, String> opts) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("cores: " + Runtime.getRuntime().availableProcessors());
    lines.add("cpu: " + cpuModel());
    lines.add("max heap: " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB");
    lines.add("jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty(
        "java.runtime.version"));
    lines.add("gc: " + java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()
        .stream().map(b -> b.getName()).reduce((a, b) -> a + ", " + b).orElse("?"));
    lines.add("jvm arguments: " + String.join(" ",
        java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments()));
    lines.add("os: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
    lines.add("journal disk: " + Files.getFileStore(Files.createTempDirectory("probe"))
        .toString());
    lines.add("postgresql: " + TestDatabases.server());
    lines.add("commit: " + git());
    lines.add("options: " + opts);
    lines.add("journal mark linger: " + (markLinger == null
        ? JournalConfig.DEFAULT_MARK_LINGER + " (default)" : markLinger));
    lines.add("provider transport: " + (transport.equals("apache")
        ? "ApacheHttpTransport (pointsman-httpclient5), also the direct arm's client (but for"
            + " streams)" : "the adapter's default (JDK HttpClient), also the direct arm's"));
    lines.add("ledger sessions: LedgerPool (HikariCP)");
    lines.add("profile: " + switch (profile) {
      case "journal" -> "journal only (file journal; records settle into an in-process tally)";
      case "memory" -> "in-memory accounting (nothing durable)";
      default -> "durable (file journal + PostgreSQL settlement)";
    } + "; provider: HTTP fixture on loopback, zero delay");
    Files.write(out.resolve("environment.txt"), lines);
  }

  private static String git() {
    try {
      Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return s.isEmpty() ? "unknown" : s;
    } catch (IOException | InterruptedException e) {
      return "unknown";
    }
  }


  /**
   * Warms the JVM once before anything is measured: a gateway run and a direct run of the
   * first path at 150 B, unrecorded (the gateway run is still reconciled). Without it the first
   * arms pay for the JIT compiler, which keeps compiling for tens of seconds.
   */
  private void warm(String path, int rate, double seconds) throws Exception {
    OUT.printf(Locale.ROOT, "warming the JVM: %s at %d/s for %.0f s per arm ...%n", path, rate,
        seconds);
    gateway("warm-gateway", path, rate, 150, seconds, 1);
    direct("warm-direct", path, rate, 150, seconds, 1);
    reconciliation.removeIf(line -> line.startsWith("warm-"));
    Files.deleteIfExists(out.resolve("runs").resolve("warm-gateway-stages.csv"));
    lastAttribution = Attribution.NONE;
  }

  private void abba(String path, int rate, int size, double warmup, double measure)
      throws Exception {
    String[] order = {"direct", "gateway", "gateway", "direct"};
    for (int i = 0; i < order.length; i++) {
      String arm = order[i];
      int rep = i < 2 ? 1 : 2;
      String id = String.format(Locale.ROOT, "%s-%drps-%dB-%d-%s", path, rate, size, i + 1,
          arm);
      OUT.printf(Locale.ROOT, "run %-32s warmup %.0fs, measure %.0fs ...%n", id, warmup,
          measure);
      OpenLoop.Result result = arm.equals("direct")
          ? direct(id, path, rate, size, warmup, measure)
          : gateway(id, path, rate, size, warmup, measure);
      record(id, path, rate, size, rep, i + 1, arm, result);
      // Written after every run, so a run that dies keeps what was measured before it.
      writeSummaries();
    }
  }

  private OpenLoop.Result direct(String id, String path, int rate, int size, double warmup,
      double measure)
      throws Exception {
    boolean stream = path.equals("stream");
    ChatRequest.Builder b = ChatRequest.builder().model(MODEL)
        .addMessage(Message.user(Prompts.ofBytes(size))).temperature(0.0).maxTokens(100);
    if (stream) {
      b.stream(true).streamOptions(new StreamOptions(true, null));
    }
    byte[] body = Json.writeBytes(b.build());
    HttpRequest request = HttpRequest.newBuilder(URI.create(fixture.uri()
            + "/v1/chat/completions"))
        .header("Content-Type", "application/json").header("Authorization", "Bearer sk-fixture")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build();
    io.pointsman.httpclient5.ApacheHttpTransport apache = !stream && transport.equals("apache")
        ? io.pointsman.httpclient5.ApacheHttpTransport.builder().build() : null;
    io.pointsman.provider.http.HttpTransportRequest viaApache = apache == null ? null
        : new io.pointsman.provider.http.HttpTransportRequest("POST", request.uri(),
            request.headers(), body, Duration.ofSeconds(10), false);
    OpenLoop.Request call = (scheduled, firstByte) -> {
      if (apache != null) {
        // The gateway's transport on the direct arm too, so that the CPU the gateway arm adds
        // is the gateway's own, not the difference between two HTTP clients.
        byte[] answer = readAll(apache.send(viaApache));
        Json.readResponse(answer);
        return;
      }
      if (!stream) {
        HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (r.statusCode() != 200) {
          throw new IOException("status " + r.statusCode());
        }
        Json.readResponse(r.body());
        return;
      }
      HttpResponse<InputStream> r = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (BufferedReader reader = new BufferedReader(new InputStreamReader(r.body(),
          StandardCharsets.UTF_8))) {
        boolean first = true;
        for (String line; (line = reader.readLine()) != null; ) {
          if (line.startsWith("data: ") && !line.equals("data: [DONE]")) {
            if (first) {
              firstByte.recordValue(Math.max(0, System.nanoTime() - scheduled));
              first = false;
            }
            Json.readChunk(line.substring(6).getBytes(StandardCharsets.UTF_8));
          }
        }
      }
    };
    try {
      OpenLoop.run(rate, warmup, call);
      Probe probe = Probe.start(null, recordingFor(id));
      OpenLoop.Result result = OpenLoop.run(rate, measure, call);
      lastAttribution = probe.stop(result.successes() + result.errors(), 0);
      return result;
    } finally {
      if (apache != null) {
        apache.close();
      }
    }
  }

  /** Reads a 200 answer's body to its end and ends the exchange; other statuses throw. */
  private static byte[] readAll(io.pointsman.provider.http.HttpExchange exchange)
      throws IOException, InterruptedException {
    try {
      if (exchange.status() != 200) {
        throw new IOException("status " + exchange.status());
      }
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(512);
      byte[] chunk = new byte[8192];
      for (int n; (n = exchange.read(chunk, 0, chunk.length, 10_000_000_000L)) >= 0; ) {
        out.write(chunk, 0, n);
      }
      return out.toByteArray();
    } finally {
      exchange.close();
    }
  }

  /** The journal of a gateway run: the defaults, but for {@code --mark-linger}. */
  private static JournalConfig journalConfig(Path journalDir) {
    JournalConfig.Builder b = JournalConfig.builder(journalDir);
    if (markLinger != null) {
      b.markLinger(markLinger);
    }
    return b.build();
  }

  /** Where a gateway run's usage goes, and how it is reconciled afterwards. */
  private interface Books extends AutoCloseable {
    Accounting accounting();

    /** Reconciles after the gateway closed; returns the CSV line, ending in passed/FAILED. */
    String reconcile(String id, long acknowledged, InMemoryLimiter limiter);

    /** Snapshots of the journal's counters, or {@code null} when nothing is journaled. */
    default java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal() {
      return null;
    }

    /** Records made durable but not yet settled, or 0 when nothing is journaled. */
    default long backlog() {
      return 0;
    }

    @Override
    void close();
  }

  /**
   * Journal + PostgreSQL settlement on a fresh database: the durable profile. Settlement runs
   * on a {@link LedgerPool}, as a deployment's does: an unpooled data source opens a new
   * server session (a new PostgreSQL backend process) for every batch.
   */
  private static final class DurableBooks implements Books {
    final TestDatabase db = TestDatabases.create();
    final LedgerPool pool = pool(db);
    final PostgresSettlement settlement = PostgresSettlement.create(pool.dataSource());
    final JournalAccounting accounting;

    private static LedgerPool pool(TestDatabase db) {
      LedgerPool.Builder b = LedgerPool.builder(db.jdbcUrl()).user(db.server().user())
          .name("harness-ledger");
      if (db.server().password() != null) {
        b.password(db.server().password());
      }
      return b.build();
    }

    DurableBooks(Path journalDir) {
      accounting = JournalAccounting.builder(journalConfig(journalDir),
          settlement).open();
    }

    @Override
    public java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal() {
      return accounting::journalMetrics;
    }

    @Override
    public long backlog() {
      return accounting.backlog();
    }

    @Override
    public Accounting accounting() {
      return accounting;
    }

    @Override
    public String reconcile(String id, long acknowledged, InMemoryLimiter limiter) {
      ReconciliationReport report = settlement.reconcile(acknowledged, accounting.backlog());
      boolean passed = report.balanced() && report.heldCount() == 0
          && report.settledRows() == acknowledged && report.journalBacklog() == 0
          && limiter.budget(io.pointsman.limits.Scope.team("bench")).heldMicros() == 0;
      return String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%s", id, acknowledged,
          report.settledRows(), report.missingRows(), report.costMicros(),
          report.chargedMicros(), report.heldCount(), report.journalBacklog(),
          passed ? "passed" : "FAILED");
    }

    @Override
    public void close() {
      pool.close();
      db.close();
    }
  }

  /** The journal alone: records settle into an in-process tally (no database). */
  private static final class JournalBooks implements Books {
    final Map<String, Long> tally = new java.util.concurrent.ConcurrentHashMap<>();
    final JournalAccounting accounting;

    JournalBooks(Path journalDir) {
      accounting = JournalAccounting.builder(journalConfig(journalDir),
          new Settlement() {
            @Override
            public void settle(List<UsageRecord> records) {
              records.forEach(r -> tally.putIfAbsent(r.eventId(), r.costMicros()));
            }

            @Override
            public void interrupted(List<InterruptedCall> calls) {
              throw new IllegalStateException("no call can be interrupted in a clean run");
            }
          }).open();
    }

    @Override
    public java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal() {
      return accounting::journalMetrics;
    }

    @Override
    public long backlog() {
      return accounting.backlog();
    }

    @Override
    public Accounting accounting() {
      return accounting;
    }

    @Override
    public String reconcile(String id, long acknowledged, InMemoryLimiter limiter) {
      return tallied(id, acknowledged, tally.size(), tally.values().stream()
          .mapToLong(Long::longValue).sum(), accounting.backlog(), limiter);
    }

    @Override
    public void close() {}
  }

  /** In-memory accounting: nothing durable (tests and demos). */
  private static final class MemoryBooks implements Books {
    final InMemoryAccounting accounting = new InMemoryAccounting();

    @Override
    public Accounting accounting() {
      return accounting;
    }

    @Override
    public String reconcile(String id, long acknowledged, InMemoryLimiter limiter) {
      List<UsageRecord> records = accounting.records();
      return tallied(id, acknowledged, records.size(), records.stream()
          .mapToLong(UsageRecord::costMicros).sum(), 0, limiter);
    }

    @Override
    public void close() {}
  }

  private static String tallied(String id, long acknowledged, long rows, long cost,
      long backlog, InMemoryLimiter limiter) {
    var budget = limiter.budget(io.pointsman.limits.Scope.team("bench"));
    boolean passed = rows == acknowledged && cost == budget.spentMicros()
        && budget.heldMicros() == 0 && backlog == 0;
    return String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%s", id, acknowledged, rows,
        acknowledged - rows, cost, budget.spentMicros(), budget.heldMicros(), backlog,
        passed ? "passed" : "FAILED");
  }

  private Books books(Path journalDir) {
    switch (profile) {
      case "durable": return new DurableBooks(journalDir);
      case "journal": return new JournalBooks(journalDir);
      case "memory": return new MemoryBooks();
      default: throw new IllegalArgumentException("unknown profile " + profile
          + ": durable, journal or memory");
    }
  }

  private OpenLoop.Result gateway(String id, String path, int rate, int size, double warmup,
      double measure) throws Exception {
    Path journalDir = Files.createTempDirectory("harness-journal");
    try (Books books = books(journalDir)) {
      InMemoryLimiter limiter = InMemoryLimiter.builder()
          .budget(io.pointsman.limits.Scope.team("bench"), 1_000_000_000_000L).build();
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      String key = VirtualKeys.generate();
      keys.addKey(key, KeySpec.builder("harness").team("bench").org("acme").build());
      AtomicLong acknowledged = new AtomicLong();
      AtomicLong failed = new AtomicLong();
      AtomicLong unique = new AtomicLong();
      OpenLoop.Result result;
      boolean semantic = path.equals("semantic");
      MiniLmEmbedder embedder = semantic ? MiniLmEmbedder.builder().build() : null;
      SemanticCache semanticCache = semantic ? SemanticCache.builder(embedder).build() : null;
      ResponseCache cache = semantic
          ? TieredCache.of(InMemoryExactCache.ofDefaults(Clock.system()), semanticCache)
          : InMemoryExactCache.ofDefaults(Clock.system());
      io.pointsman.httpclient5.ApacheHttpTransport apache = transport.equals("apache")
          ? io.pointsman.httpclient5.ApacheHttpTransport.builder().build() : null;
      OpenAiProvider.Builder provider = OpenAiProvider.builder().baseUri(URI.create(
          fixture.uri() + "/v1")).credential(Credential.of("sk-fixture"));
      if (apache != null) {
        provider.transport(apache);
      }
      try (Gateway gateway = Gateway.builder()
          .cache(cache)
          .authenticator(keys)
          .models(ModelCatalog.builder().model(ModelSpec.builder(MODEL).contextWindow(128_000)
              .maxOutputTokens(1_000).price(Price.of(150_000, 600_000)).build()).build())
          .limiter(limiter)
          .accounting(books.accounting())
          .provider("openai", provider.build())
          .deployment(Deployment.of("fixture", "openai", MODEL))
          .build()) {
        ChatRequest request = ChatRequest.builder().model(MODEL)
            .addMessage(Message.user(Prompts.ofBytes(size))).temperature(0.0).maxTokens(100)
            .streamOptions(path.equals("stream") ? new StreamOptions(true, null) : null)
            .build();
        CallOptions options = path.equals("bypass")
            ? CallOptions.builder(key).cacheControl(CacheControl.NO_CACHE).build()
            : CallOptions.of(key);
        if (path.equals("hit")) {
          gateway.chat(request, options);
          acknowledged.incrementAndGet();
        }
        OpenLoop.Request call = (scheduled, firstByte) -> {
          if (semantic) {
            // A new question every time: the exact layer misses, the semantic layer embeds the
            // question, searches and misses, the provider answers, both layers store.
            gateway.chat(ChatRequest.builder().model(MODEL).addMessage(Message.user(
                "question " + unique.incrementAndGet() + ": " + Prompts.ofBytes(size)))
                .temperature(0.0).maxTokens(100).build(), options);
          } else if (path.equals("stream")) {
            boolean[] first = {true};
            gateway.stream(request, options, chunk -> {
              if (first[0]) {
                firstByte.recordValue(Math.max(0, System.nanoTime() - scheduled));
                first[0] = false;
              }
            });
          } else {
            try {
              gateway.chat(request, options);
            } catch (io.pointsman.spi.ProviderException e) {
              // The attempt failed after admission: the call is recorded (and charged what it
              // may have cost), so the ledger holds a row for it too.
              failed.incrementAndGet();
              throw e;
            }
          }
          acknowledged.incrementAndGet();
        };
        OpenLoop.run(rate, warmup, call);
        gateway.timers().reset();
        Probe probe = Probe.start(books.journal(), recordingFor(id));
        result = OpenLoop.run(rate, measure, call);
        lastAttribution = probe.stop(result.successes() + result.errors(), books.backlog());
        writeStages(id, gateway.timers().snapshot());
      } finally {
        if (apache != null) {
          apache.close();
        }
        if (semanticCache != null) {
          semanticCache.close();
          embedder.close();
        }
      } // closing the gateway closes the accounting: drains the journal into settlement
      // Every call that ended after admission has one row: the acknowledged ones and those
      // whose provider attempt failed (recorded as failed, charged what they may have cost).
      String line = books.reconcile(id, acknowledged.get() + failed.get(), limiter);
      reconciliation.add(line);
      String[] f = line.split(",");
      OUT.printf(Locale.ROOT, "  reconciliation %s: %s recorded calls (%d of them failed),"
          + " %s ledger rows, %s missing, cost %s = charged %s, held %s, journal backlog %s%n",
          f[8], f[1], failed.get(), f[2], f[3], f[4], f[5], f[6], f[7]);
      if (!line.endsWith("passed")) {
        throw new IllegalStateException("run " + id + " failed reconciliation: " + line);
      }
      return result;
    } finally {
      try (var files = Files.walk(journalDir)) {
        files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
  }

  private void record(String id, String path, int rate, int size, int rep, int position,
      String arm, OpenLoop.Result r) throws IOException {
    writePercentiles(out.resolve("runs").resolve(id + ".csv"), r.latency());
    boolean stream = path.equals("stream");
    if (stream) {
      writePercentiles(out.resolve("runs").resolve(id + "-ttft.csv"), r.firstByte());
    }
    Histogram h = r.latency();
    Histogram f = r.firstByte();
    summary.add(String.format(Locale.ROOT, "%s,%s,%d,%d,%d,%d,%s,%d,%d,%.1f,%.1f,%.1f,%.1f,%s,%s,%s,%s",
        id, path, rate, size, rep, position, arm, r.successes(), r.errors(),
        us(h.getValueAtPercentile(50)), us(h.getValueAtPercentile(99)),
        us(h.getValueAtPercentile(99.9)), us(h.getMaxValue()),
        stream ? fmt(us(f.getValueAtPercentile(50))) : "",
        stream ? fmt(us(f.getValueAtPercentile(99))) : "",
        stream ? fmt(us(f.getValueAtPercentile(99.9))) : "", lastAttribution.csv()));
    OUT.printf(Locale.ROOT, "  %-8s ok %6d err %3d  p50 %9.1f µs  p99 %9.1f µs  p99.9 %9.1f µs%s%n",
        arm, r.successes(), r.errors(), us(h.getValueAtPercentile(50)),
        us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)),
        stream ? String.format(Locale.ROOT, "  ttft p50 %.1f µs", us(f.getValueAtPercentile(50)))
            : "");
  }

  private static String fmt(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** The processor's model name from {@code /proc/cpuinfo}, or "?" where it cannot be read. */
  static String cpuModel() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
        if (line.startsWith("model name")) {
          return line.substring(line.indexOf(':') + 1).trim();
        }
      }
    } catch (IOException e) {
      // not Linux
    }
    return "?";
  }

  /** Where a run keeps its full JFR recording ({@code --jfr}), or null. */
  private Path recordingFor(String id) {
    return jfrRuns != null && !id.startsWith("warm-") && id.contains(jfrRuns)
        ? out.resolve("jfr").resolve(id + ".jfr") : null;
  }

  /** Each stage timer of a gateway run's measured window, in {@code runs/<id>-stages.csv}. */
  private void writeStages(String id, Map<String, io.pointsman.TimingSnapshot> stages)
      throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("stage,count,p50_us,p99_us,max_us,mean_us");
    for (io.pointsman.TimingSnapshot t : stages.values()) {
      if (t.count() > 0) {
        lines.add(String.format(Locale.ROOT, "%s,%d,%.1f,%.1f,%.1f,%.1f", t.stage(), t.count(),
            us(t.p50Nanos()), us(t.p99Nanos()), us(t.maxNanos()), t.meanNanos() / 1_000.0));
      }
    }
    Files.write(out.resolve("runs").resolve(id + "-stages.csv"), lines);
  }

  /**
   * The process-wide costs of a measured window: process CPU (user + system, every thread:
   * the generator, the fixture and, in a gateway run, the gateway), GC pauses, and the
   * journal's forces (all of them, and those made for delivered marks alone) and their latency.
   */
  record Attribution(double cpuPerRequestMicros, long gcMillis, long gcCount,
      double forcesPerRequest, double forceP50Micros, double forceP99Micros, long backlog,
      double markForcesPerRequest, double jitPerRequestMicros,
      double postgresPerRequestMicros, Pauses.Summary pauses) {
    static final String HEADER = "cpu_us_per_request,gc_ms,gc_count,forces_per_request,"
        + "force_p50_us,force_p99_us,settle_backlog,mark_forces_per_request,"
        + "jit_us_per_request,postgres_us_per_request,safepoints,safepoint_ms,"
        + "safepoint_max_us,gc_pause_ms,gc_pause_max_us";
    static final Attribution NONE = new Attribution(Double.NaN, 0, 0, Double.NaN, Double.NaN,
        Double.NaN, 0, Double.NaN, Double.NaN, Double.NaN, Pauses.Summary.NONE);

    String csv() {
      return cpuText() + "," + gcMillis + "," + gcCount + "," + forcesText() + ","
          + opt(forceP50Micros) + "," + forceP99Text() + "," + backlog + ","
          + (Double.isNaN(markForcesPerRequest) ? ""
              : String.format(Locale.ROOT, "%.3f", markForcesPerRequest)) + ","
          + opt(jitPerRequestMicros) + "," + opt(postgresPerRequestMicros) + ","
          + pauses.safepoints() + "," + opt2(pauses.safepointMillis()) + ","
          + opt(pauses.safepointMaxMicros()) + "," + opt2(pauses.gcPauseMillis()) + ","
          + opt(pauses.gcPauseMaxMicros());
    }

    static String opt2(double v) {
      return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.2f", v);
    }

    String cpuText() {
      return opt(cpuPerRequestMicros);
    }

    String forcesText() {
      return Double.isNaN(forcesPerRequest) ? ""
          : String.format(Locale.ROOT, "%.3f", forcesPerRequest);
    }

    String forceP99Text() {
      return opt(forceP99Micros);
    }

    static String opt(double v) {
      return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.1f", v);
    }
  }

  /** Counters read before a measured window, compared after it. */
  private static final class Probe {
    private final long cpuNanos;
    private final long jitTicks = Proc.jitTicks();
    private final long postgresTicks = Proc.postgresTicks();
    private final long gcMillis;
    private final long gcCount;
    private final io.pointsman.journal.JournalMetrics journalBefore;
    private final java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal;
    private final Pauses pauses;

    private Probe(java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal,
        Path keepRecording) {
      this.journal = journal;
      this.journalBefore = journal == null ? null : journal.get();
      this.pauses = recordPauses || keepRecording != null ? Pauses.start(keepRecording) : null;
      this.cpuNanos = processCpuNanos();
      long[] gc = gc();
      this.gcMillis = gc[0];
      this.gcCount = gc[1];
    }

    /**
     * Starts a window's probe.
     *
     * @param journal the gateway's journal metrics, or null for a direct run
     * @param keepRecording where to keep a full JFR recording of the window, or null
     */
    static Probe start(java.util.function.Supplier<io.pointsman.journal.JournalMetrics> journal,
        Path keepRecording) {
      return new Probe(journal, keepRecording);
    }

    Attribution stop(long requests, long backlog) {
      long cpu = processCpuNanos() - cpuNanos;
      long[] gc = gc();
      double forces = Double.NaN;
      double markForces = Double.NaN;
      double p50 = Double.NaN;
      double p99 = Double.NaN;
      if (journal != null) {
        io.pointsman.journal.JournalMetrics after = journal.get();
        forces = requests == 0 ? Double.NaN
            : (double) (after.forces() - journalBefore.forces()) / requests;
        markForces = requests == 0 ? Double.NaN
            : (double) (after.markOnlyForces() - journalBefore.markOnlyForces()) / requests;
        org.HdrHistogram.Histogram h = after.forceLatencyNanos();
        h.subtract(journalBefore.forceLatencyNanos());
        p50 = h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(50) / 1_000.0;
        p99 = h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(99) / 1_000.0;
      }
      double jit = Proc.perRequestMicros(Proc.jitTicks() - jitTicks, requests);
      double postgres = Proc.perRequestMicros(Proc.postgresTicks() - postgresTicks, requests);
      // Last: reading the recording is work of its own, outside the window's figures.
      Pauses.Summary paused = pauses == null ? Pauses.Summary.NONE : pauses.stop();
      return new Attribution(requests == 0 ? Double.NaN : cpu / 1_000.0 / requests,
          gc[0] - gcMillis, gc[1] - gcCount, forces, p50, p99, backlog, markForces, jit,
          postgres, paused);
    }

    private static long processCpuNanos() {
      java.lang.management.OperatingSystemMXBean os =
          java.lang.management.ManagementFactory.getOperatingSystemMXBean();
      return os instanceof com.sun.management.OperatingSystemMXBean sun
          ? sun.getProcessCpuTime() : -1;
    }

    private static long[] gc() {
      long time = 0;
      long count = 0;
      for (var b : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
        time += Math.max(0, b.getCollectionTime());
        count += Math.max(0, b.getCollectionCount());
      }
      return new long[] {time, count};
    }
  }

  /**
   * CPU time from {@code /proc} (Linux), in clock ticks of 10 ms: the JIT compiler threads of
   * this process (part of its CPU, but a cost of warming up, not of a call), and every
   * PostgreSQL server process on the machine (the ledger's cost outside this process). Returns
   * -1 where {@code /proc} cannot be read.
   */
  static final class Proc {
    private static final double TICK_MICROS = 10_000.0;

    private Proc() {}

    static long jitTicks() {
      return sum(Path.of("/proc/self/task"), comm -> comm.startsWith("C1 CompilerThre")
          || comm.startsWith("C2 CompilerThre"));
    }

    static long postgresTicks() {
      return sum(Path.of("/proc"), comm -> comm.equals("postgres"));
    }

    static double perRequestMicros(long ticks, long requests) {
      return ticks < 0 || requests == 0 ? Double.NaN : ticks * TICK_MICROS / requests;
    }

    private static long sum(Path dir, java.util.function.Predicate<String> which) {
      long total = 0;
      try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
        for (Path e : (Iterable<Path>) entries::iterator) {
          String name = e.getFileName().toString();
          if (name.isEmpty() || !Character.isDigit(name.charAt(0))) {
            continue;
          }
          try {
            String stat = Files.readString(e.resolve("stat"));
            int open = stat.indexOf('(');
            int close = stat.lastIndexOf(')');
            if (open < 0 || close < open || !which.test(stat.substring(open + 1, close))) {
              continue;
            }
            // After the command: state (field 3) ... utime (14), stime (15).
            String[] f = stat.substring(close + 2).split(" ");
            total += Long.parseLong(f[11]) + Long.parseLong(f[12]);
          } catch (IOException | RuntimeException gone) {
            // The thread or process ended between the listing and the read.
          }
        }
      } catch (IOException e) {
        return -1;
      }
      return total;
    }
  }

  private static double us(long nanos) {
    return nanos / 1_000.0;
  }

  private static void writePercentiles(Path file, Histogram h) throws IOException {
    List<String> lines = new ArrayList<>();
    lines.add("percentile,latency_us,count_total");
    double[] ps = {0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 100};
    for (double p : ps) {
      lines.add(String.format(Locale.ROOT, "%s,%.1f,%d", p, us(p == 100 ? h.getMaxValue()
          : h.getValueAtPercentile(p)), h.getTotalCount()));
    }
    Files.write(file, lines);
  }

  private void writeSummaries() throws IOException {
    List<String> s = new ArrayList<>();
    s.add("run,path,rate,size,rep,position,arm,ok,errors,p50_us,p99_us,p999_us,max_us,"
        + "ttft_p50_us,ttft_p99_us,ttft_p999_us," + Attribution.HEADER);
    s.addAll(summary);
    if (!summary.isEmpty()) {
      Files.write(out.resolve("summary.csv"), s);
    }
    List<String> r = new ArrayList<>();
    r.add("run,acknowledged,ledger_rows,missing_rows,cost_micros,charged_micros,held,"
        + "journal_backlog,result");
    r.addAll(reconciliation);
    if (!reconciliation.isEmpty()) {
      Files.write(out.resolve("reconciliation.csv"), r);
    }
  }

  private void ramp(double measure, String rates) throws Exception {
    List<String> lines = new ArrayList<>();
    lines.add("rate,ok,errors,p50_us,p99_us,p999_us,sustained,cpu_us_per_request,"
        + "forces_per_request,force_p99_us,jit_us_per_request,postgres_us_per_request,"
        + "safepoint_ms,safepoint_max_us,gc_pause_ms");
    // One discarded run warms the JIT, the fixture and the disk path before the first step.
    gateway("ramp-warmup", "bypass", 200, 150, 3, 3);
    reconciliation.clear();
    for (String step : rates.split(",")) {
      int rate = Integer.parseInt(step.trim());
      String id = "ramp-" + rate + "rps-150B";
      OUT.printf(Locale.ROOT, "ramp %d rps ...%n", rate);
      OpenLoop.Result r = gateway(id, "bypass", rate, 150, 2, measure);
      Histogram h = r.latency();
      boolean ok = r.errors() == 0 && h.getValueAtPercentile(99) < 10_000_000L;
      Pauses.Summary paused = lastAttribution.pauses();
      lines.add(String.format(Locale.ROOT, "%d,%d,%d,%.1f,%.1f,%.1f,%s,%s,%s,%s,%s,%s,%s,%s,%s",
          rate,
          r.successes(), r.errors(), us(h.getValueAtPercentile(50)),
          us(h.getValueAtPercentile(99)), us(h.getValueAtPercentile(99.9)), ok ? "yes" : "no",
          lastAttribution.cpuText(), lastAttribution.forcesText(),
          lastAttribution.forceP99Text(), Attribution.opt(lastAttribution.jitPerRequestMicros()),
          Attribution.opt(lastAttribution.postgresPerRequestMicros()),
          Attribution.opt2(paused.safepointMillis()), Attribution.opt(paused.safepointMaxMicros()),
          Attribution.opt2(paused.gcPauseMillis())));
      OUT.printf(Locale.ROOT, "  ok %d err %d p99 %.1f µs -> %s%n", r.successes(), r.errors(),
          us(h.getValueAtPercentile(99)), ok ? "sustained" : "not sustained");
    }
    Files.write(out.resolve("ramp.csv"), lines);
  }

  static {
    // Keep provider and journal logging quiet during load.
    System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
  }
}
