package io.pointsman.examples.bench;

import io.pointsman.auth.VirtualKeys;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The facade's overhead beside direct calls and beside Portkey's open-source gateway
 * ({@code @portkey-ai/gateway}, installed from {@code pointsman-jmh/portkey/package-lock.json}
 * and started by this harness with {@code node}), on the same loopback fixture upstream and the
 * same open-loop generator. Each arm is its own process, started once: the facade is
 * {@code FacadeMain} in a child JVM (durable: its file journal and PostgreSQL settlement, on a
 * fresh database and journal); Portkey is a {@code node} process (no accounting). Every arm is
 * first warmed the same way ({@code --warm} seconds at {@code --warm-rate}, default 60 s at
 * 500/s), so that the JVM's compilers and V8 have finished before anything is measured; then,
 * per rate, the arms run direct, facade, portkey, portkey, facade, direct, each run with its
 * own short warm-up, discarded.
 *
 * <p>Latency runs from each request's scheduled send time (no coordinated omission) into
 * HdrHistogram; CPU per request is the arm process's user + system time over the measured
 * window (from {@code /proc}) divided by the requests sent. At the end the facade is stopped
 * gracefully and its ledger must hold one row per successful response (warm-up included),
 * else the harness fails.
 *
 * <p>Run (after {@code npm ci --prefix pointsman-jmh/portkey}):
 * {@code mvn -B -q -pl pointsman-examples -am test-compile exec:java
 * -Dexec.classpathScope=test -Dexec.mainClass=io.pointsman.examples.bench.FacadeOverhead
 * -Dexec.args="--rates=50,500,2000 --warmup=2 --measure=5
 * --out=pointsman-examples/bench/overhead"}; {@code --table} re-renders {@code table.md} from
 * the committed {@code runs.csv} without generating load.
 */
public final class FacadeOverhead {
  private static final String MODEL = "gpt-4o-mini";
  private static final String REPLY = "{\"id\":\"chatcmpl-b\",\"object\":\"chat.completion\","
      + "\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":"
      + "{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],\"usage\":"
      + "{\"prompt_tokens\":12,\"completion_tokens\":1,\"total_tokens\":13}}";
  private static final String BODY = "{\"model\":\"" + MODEL + "\",\"max_tokens\":16,"
      + "\"messages\":[{\"role\":\"user\",\"content\":\"a short question of about a hundred"
      + " and fifty bytes in all, as a small chat request\"}]}";
  private static final String HEADER = "run,rate,arm,requests,errors,p50_us,p90_us,p99_us,"
      + "max_us,cpu_us_per_request,ledger_rows";

  /** Failed requests by kind (status code or exception class), for the run in progress. */
  private static final Map<String, AtomicLong> ERRORS =
      new java.util.concurrent.ConcurrentSkipListMap<>();

  private FacadeOverhead() {}

  /**
   * Runs the comparison, or re-renders the table ({@code --table}).
   *
   * @param args {@code --rates=50,500,2000 --warm=S --warm-rate=R --warmup=S --measure=S
   *     --out=DIR [--arms=...] [--generator=apache|jdk] [--stages] [--facade-jvm="OPTIONS"]
   *     [--machine=TEXT] [--table]}
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = BenchOptions.parse(args);
    Path out = Path.of(opts.getOrDefault("out", "pointsman-examples/bench/overhead"));
    if (opts.containsKey("table")) {
      Files.writeString(out.resolve("table.md"), table(Files.readAllLines(
          out.resolve("runs.csv"))));
      return;
    }
    Files.createDirectories(out);
    double warmup = Double.parseDouble(opts.getOrDefault("warmup", "2"));
    double measure = Double.parseDouble(opts.getOrDefault("measure", "5"));
    double warm = Double.parseDouble(opts.getOrDefault("warm", "60"));
    int warmRate = Integer.parseInt(opts.getOrDefault("warm-rate", "500"));
    String generatorKind = opts.getOrDefault("generator", "apache");
    generator(generatorKind);
    List<String> rows = new ArrayList<>();
    rows.add(HEADER);
    HttpFixtureServer upstream = HttpFixtureServer.start();
    upstream.recording(false);
    upstream.respondWith(r -> FixtureResponse.json(200, REPLY));
    Path portkeyDir = Path.of(opts.getOrDefault("portkey", "pointsman-jmh/portkey"));
    List<String> arms = List.of(opts.getOrDefault("arms",
        "direct,facade,portkey,portkey,facade,direct").split(","));
    Map<String, Target> targets = new LinkedHashMap<>();
    String reconciliation = "";
    int run = 0;
    try (TestDatabase db = TestDatabases.create()) {
      for (String arm : arms) {
        if (!targets.containsKey(arm)) {
          Target t = switch (arm) {
            case "direct" -> direct(upstream);
            case "facade" -> facade(upstream, db, out.resolve("logs"),
                opts.getOrDefault("facade-jvm", ""));
            default -> portkey(upstream, portkeyDir);
          };
          targets.put(arm, t);
          // Every arm is warmed the same way, once, before any rate is measured: long enough
          // for the JVM's compilers (the facade, the generator) and V8 (Portkey) to finish.
          System.out.println("warming " + arm + ": " + warm + " s at " + warmRate + "/s");
          openLoop(t.call, warmRate, warm);
        }
      }
      for (String rateText : opts.getOrDefault("rates", "50,500,2000").split(",")) {
        int rate = Integer.parseInt(rateText.trim());
        for (String arm : arms) {
          run++;
          Target t = targets.get(arm);
          String row = run + "," + rate + "," + arm + ","
              + measured(t.call, rate, warmup, measure, t.pid) + ",";
          System.out.println(row);
          rows.add(row);
          Files.write(out.resolve("runs.csv"), rows);
        }
        Target measuredFacade = targets.get("facade");
        if (opts.containsKey("stages") && measuredFacade != null) {
          Files.writeString(out.resolve("logs").resolve("stages-" + rate + ".txt"),
              measuredFacade.metrics.get());
        }
      }
      for (Target t : targets.values()) {
        t.close();
      }
      Target f = targets.get("facade");
      if (f != null) {
        long ledger = count(db, "SELECT count(*) FROM pointsman.ledger_entries");
        reconciliation = "facade: " + f.ok.get() + " successful responses (warm-up included), "
            + ledger + " ledger rows after a graceful stop";
        System.out.println(reconciliation);
        if (ledger != f.ok.get()) {
          throw new IllegalStateException("reconciliation failed: " + reconciliation);
        }
      }
    } finally {
      for (Target t : targets.values()) {
        t.close();
      }
      upstream.close();
    }
    Files.writeString(out.resolve("table.md"), table(rows));
    List<String> env = new ArrayList<>();
    env.add("cores: " + Runtime.getRuntime().availableProcessors());
    env.add("jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty(
        "java.vm.version"));
    env.add("os: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.add("node: " + command("node", "--version"));
    env.add("options: " + opts);
    env.add("payload: request " + BODY.length() + " B, response " + REPLY.length() + " B,"
        + " HTTP/1.1 keep-alive; generator: " + (generatorKind.equals("jdk") ? "JDK HttpClient"
            : "Apache HttpClient 5 (ApacheHttpTransport)") + ", open loop, the same for every"
        + " arm; upstream: HttpFixtureServer on loopback, zero delay");
    env.add("warm-up: each arm's process is started once and warmed " + warm + " s at "
        + warmRate + "/s before any rate is measured; then each run has its own " + warmup
        + " s warm-up, discarded");
    env.add("facade: FacadeMain child JVM (-Xmx512m), durable (file journal + PostgreSQL"
        + " settlement at 127.0.0.1:5432), X-Cache-Control: no-cache");
    env.add("portkey: @portkey-ai/gateway (version in pointsman-jmh/portkey/package-lock.json),"
        + " node, x-portkey-provider: openai, x-portkey-custom-host: the fixture; no"
        + " accounting");
    env.add("reconciliation: " + reconciliation);
    env.add("machine: " + opts.getOrDefault("machine", "not stated"));
    Files.write(out.resolve("environment.txt"), env);
    // The clients' and the fixture's pools are not daemon threads.
    System.exit(0);
  }

  // ---------------------------------------------------------------- arms

  /** A started arm: what one request does, the process measured, and how to stop it. */
  private static final class Target {
    final Call call;
    final long pid;
    final AtomicLong ok;
    final java.util.function.Supplier<String> metrics;
    private final Process process;

    Target(Call call, long pid, AtomicLong ok, java.util.function.Supplier<String> metrics,
        Process process) {
      this.call = call;
      this.pid = pid;
      this.ok = ok;
      this.metrics = metrics;
      this.process = process;
    }

    /** Stops the arm's process gracefully (the facade drains its journal into PostgreSQL). */
    void close() throws InterruptedException {
      if (process != null && process.isAlive()) {
        process.destroy();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      }
    }
  }

  private static Target direct(HttpFixtureServer upstream) {
    URI uri = URI.create(upstream.uri() + "/v1/chat/completions");
    Call call = () -> post(uri, Map.of("Authorization", "Bearer upstream-key"));
    return new Target(call, ProcessHandle.current().pid(), new AtomicLong(), () -> "", null);
  }

  private static Target facade(HttpFixtureServer upstream, TestDatabase db, Path logs,
      String jvmOptions) throws Exception {
    Files.createDirectories(logs);
    Path dir = Files.createTempDirectory("pointsman-overhead");
    String key = VirtualKeys.generate();
    Path config = dir.resolve("facade.json");
    new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(), null, null,
        upstream.uri().toString(), null, null, 0, 10, null, List.of(),
        List.of(new FacadeConfig.KeyEntry(key, "key-bench", "bench", "bench")), List.of(),
        dir.resolve("data").toString()).write(config);
    Path portFile = dir.resolve("port");
    List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"),
        "bin", "java").toString(), "-Xmx512m"));
    for (String option : jvmOptions.split(" ")) {
      if (!option.isBlank()) {
        cmd.add(option);
      }
    }
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
        "io.pointsman.examples.server.FacadeMain", "--config", config.toString(),
        "--port-file", portFile.toString()));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logs.resolve("facade.log")
            .toFile())).start();
    AtomicLong ok = new AtomicLong();
    int port = awaitPort(p, portFile);
    HttpClient client = client();
    URI uri = URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
    Call call = () -> {
      post(uri, Map.of("Authorization", "Bearer " + key, "X-Cache-Control", "no-cache"));
      ok.incrementAndGet();
    };
    java.util.function.Supplier<String> metrics = () -> {
      try {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
            + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
      } catch (IOException | InterruptedException e) {
        return "metrics unavailable: " + e;
      }
    };
    return new Target(call, p.pid(), ok, metrics, p);
  }

  private static Target portkey(HttpFixtureServer upstream, Path dir) throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path script = dir.resolve("node_modules/@portkey-ai/gateway/build/start-server.js");
    if (!Files.exists(script)) {
      throw new IllegalStateException(script + " is missing: run npm ci --prefix " + dir);
    }
    Process p = new ProcessBuilder("node", script.toString(), "--port=" + port, "--headless")
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    URI uri = URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
    Call call = () -> post(uri, Map.of("Authorization", "Bearer upstream-key",
        "x-portkey-provider", "openai", "x-portkey-custom-host", upstream.uri() + "/v1"));
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (true) {
      try {
        call.run();
        break;
      } catch (IOException e) {
        if (System.nanoTime() > deadline || !p.isAlive()) {
          p.destroyForcibly();
          throw new IllegalStateException("Portkey did not answer on port " + port, e);
        }
        Thread.sleep(200);
      }
    }
    return new Target(call, p.pid(), new AtomicLong(), () -> "", p);
  }

  // ---------------------------------------------------------------- plumbing

  /** One request; throws on anything but a 200. */
  @FunctionalInterface
  private interface Call {
    void run() throws Exception;
  }

  private static HttpClient client() {
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .executor(Executors.newFixedThreadPool(4)).build();
  }

  /**
   * The open-loop generator's client, the same for every arm: Apache HttpClient 5 through the
   * gateway's own transport ({@code --generator=apache}, the default: about a third of the JDK
   * client's CPU per request, measured by {@code ClientChoice}, which leaves more of the two
   * cores to the arm under test) or the JDK client ({@code --generator=jdk}).
   */
  private static io.pointsman.httpclient5.ApacheHttpTransport apache;
  private static HttpClient jdk;

  private static void generator(String kind) {
    switch (kind) {
      case "apache" -> apache = io.pointsman.httpclient5.ApacheHttpTransport.builder().build();
      case "jdk" -> jdk = client();
      default -> throw new IllegalArgumentException("--generator must be apache or jdk: "
          + kind);
    }
  }

  /** POSTs the request body with the given headers; throws on anything but a 200. */
  private static void post(URI uri, Map<String, String> headers) throws Exception {
    if (jdk != null) {
      HttpRequest.Builder b = HttpRequest.newBuilder(uri);
      headers.forEach(b::header);
      send(jdk, b);
      return;
    }
    Map<String, List<String>> map = new LinkedHashMap<>();
    headers.forEach((k, v) -> map.put(k, List.of(v)));
    map.put("Content-Type", List.of("application/json"));
    io.pointsman.provider.http.HttpExchange ex = apache.send(
        new io.pointsman.provider.http.HttpTransportRequest("POST", uri,
            java.net.http.HttpHeaders.of(map, (k, v) -> true),
            BODY.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(10), false));
    try {
      java.io.ByteArrayOutputStream body = new java.io.ByteArrayOutputStream(512);
      byte[] chunk = new byte[8192];
      for (int n; (n = ex.read(chunk, 0, chunk.length, 10_000_000_000L)) >= 0; ) {
        body.write(chunk, 0, n);
      }
      if (ex.status() != 200) {
        throw new IOException("status " + ex.status() + ": "
            + body.toString(StandardCharsets.UTF_8));
      }
    } finally {
      ex.close();
    }
  }

  private static void send(HttpClient client, HttpRequest.Builder b) throws Exception {
    HttpResponse<byte[]> r = client.send(b.timeout(Duration.ofSeconds(10))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
    if (r.statusCode() != 200) {
      throw new IOException("status " + r.statusCode() + ": "
          + new String(r.body(), StandardCharsets.UTF_8));
    }
  }

  /** Warmup (discarded), then the measured window; returns the row's measured columns. */
  private static String measured(Call call, int rate, double warmup, double measure,
      long pid) throws Exception {
    openLoop(call, rate, warmup);
    long cpuBefore = cpuMicros(pid);
    long[] counts = new long[2];
    ERRORS.clear();
    Histogram h = openLoop(call, rate, measure, counts);
    long cpu = cpuMicros(pid) - cpuBefore;
    if (!ERRORS.isEmpty()) {
      System.out.println("errors by kind at " + rate + "/s: " + ERRORS);
    }
    long requests = counts[0] + counts[1];
    return requests + "," + counts[1] + "," + h.getValueAtPercentile(50) / 1000 + ","
        + h.getValueAtPercentile(90) / 1000 + "," + h.getValueAtPercentile(99) / 1000 + ","
        + h.getMaxValue() / 1000 + "," + (requests == 0 ? 0 : cpu / requests);
  }

  private static Histogram openLoop(Call call, int rate, double seconds) throws Exception {
    return openLoop(call, rate, seconds, new long[2]);
  }

  /**
   * Launches {@code rate × seconds} requests on a fixed schedule and measures each from its
   * scheduled time; {@code counts} gets successes and errors.
   */
  private static Histogram openLoop(Call call, int rate, double seconds, long[] counts)
      throws Exception {
    Recorder latency = new Recorder(3);
    AtomicLong ok = new AtomicLong();
    AtomicLong failed = new AtomicLong();
    long count = Math.round(rate * seconds);
    long period = 1_000_000_000L / rate;
    ExecutorService workers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "overhead-worker");
      t.setDaemon(true);
      return t;
    });
    long start = System.nanoTime() + 5_000_000;
    for (long i = 0; i < count; i++) {
      long scheduled = start + i * period;
      long wait;
      while ((wait = scheduled - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      workers.execute(() -> {
        try {
          call.run();
          ok.incrementAndGet();
        } catch (Exception e) {
          failed.incrementAndGet();
          String kind = e.getMessage() != null && e.getMessage().startsWith("status ")
              ? e.getMessage().substring(0, Math.min(e.getMessage().length(), 10))
              : e.getClass().getSimpleName();
          ERRORS.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
        } finally {
          latency.recordValue(Math.max(0, System.nanoTime() - scheduled));
        }
      });
    }
    workers.shutdown();
    if (!workers.awaitTermination(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("requests still running two minutes after the schedule");
    }
    counts[0] = ok.get();
    counts[1] = failed.get();
    return latency.getIntervalHistogram();
  }

  /** User + system CPU time of a process, from /proc (clock ticks of 10 ms). */
  private static long cpuMicros(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
    return ticks * 10_000;
  }

  private static int awaitPort(Process p, Path portFile) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(180);
    while (!Files.exists(portFile)) {
      if (!p.isAlive() || System.nanoTime() > deadline) {
        throw new IllegalStateException("the facade did not start");
      }
      Thread.sleep(20);
    }
    return Integer.parseInt(Files.readString(portFile).trim());
  }

  private static long count(TestDatabase db, String sql) throws Exception {
    try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String command(String... cmd) {
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return s;
    } catch (IOException | InterruptedException e) {
      return "unknown (" + e.getMessage() + ")";
    }
  }

  // ---------------------------------------------------------------- the table

  /**
   * The Markdown table of a {@code runs.csv}: every run, then per rate the quantile shifts of
   * the facade and of Portkey over direct, per repetition (the first direct run beside the
   * first of each arm, the last beside the last).
   */
  static String table(List<String> csv) {
    List<String[]> runs = new ArrayList<>();
    for (String line : csv.subList(1, csv.size())) {
      if (!line.isBlank()) {
        runs.add(line.split(",", -1));
      }
    }
    StringBuilder sb = new StringBuilder();
    sb.append("| run | rate/s | arm | requests | errors | p50 ms | p90 ms | p99 ms | max ms |"
        + " CPU µs/request | ledger rows |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (String[] r : runs) {
      sb.append("| ").append(r[0]).append(" | ").append(r[1]).append(" | ").append(r[2])
          .append(" | ").append(r[3]).append(" | ").append(r[4]).append(" | ")
          .append(ms(r[5])).append(" | ").append(ms(r[6])).append(" | ").append(ms(r[7]))
          .append(" | ").append(ms(r[8])).append(" | ").append(r[9]).append(" | ")
          .append(r[10].isEmpty() ? "–" : r[10]).append(" |\n");
    }
    sb.append("\nQuantile shift over direct (arm − direct), repetition 1 / repetition 2:\n\n"
        + "| rate/s | facade p50 ms | facade p99 ms | portkey p50 ms | portkey p99 ms |\n"
        + "|---|---|---|---|---|\n");
    Map<String, List<String[]>> byRate = new LinkedHashMap<>();
    for (String[] r : runs) {
      byRate.computeIfAbsent(r[1], k -> new ArrayList<>()).add(r);
    }
    for (Map.Entry<String, List<String[]>> e : byRate.entrySet()) {
      List<String[]> d = new ArrayList<>();
      List<String[]> f = new ArrayList<>();
      List<String[]> p = new ArrayList<>();
      for (String[] r : e.getValue()) {
        (switch (r[2]) {
          case "direct" -> d;
          case "facade" -> f;
          default -> p;
        }).add(r);
      }
      if (d.size() < 2 || f.size() < 2 || p.size() < 2) {
        continue;
      }
      sb.append("| ").append(e.getKey()).append(" | ").append(shift(f, d, 5)).append(" | ")
          .append(shift(f, d, 7)).append(" | ").append(shift(p, d, 5)).append(" | ")
          .append(shift(p, d, 7)).append(" |\n");
    }
    return sb.toString();
  }

  private static String shift(List<String[]> arm, List<String[]> direct, int column) {
    // Run order A B C C B A: the first arm run sits beside the first direct run.
    double one = Double.parseDouble(arm.get(0)[column]) - Double.parseDouble(direct.get(0)[column]);
    double two = Double.parseDouble(arm.get(1)[column]) - Double.parseDouble(direct.get(1)[column]);
    return String.format(Locale.ROOT, "%.2f / %.2f", one / 1000, two / 1000);
  }

  private static String ms(String micros) {
    return String.format(Locale.ROOT, "%.2f", Double.parseDouble(micros) / 1000);
  }
}
