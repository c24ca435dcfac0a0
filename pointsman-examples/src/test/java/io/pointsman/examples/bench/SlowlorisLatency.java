package io.pointsman.examples.bench;

import io.pointsman.auth.VirtualKeys;
import io.pointsman.examples.server.Facade;
import io.pointsman.examples.server.FacadeConfig;
import io.pointsman.examples.server.FacadeServer;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * A normal client's latency beside slow header senders (slowloris), on the durable facade.
 *
 * <p>One facade ({@link FacadeServer} on its defaults: a 10 s header timeout, 4,096
 * connections) in this JVM, with its file journal and PostgreSQL settlement, in front of a
 * loopback fixture that answers at once. The normal client sends, one after another, a chat
 * call and a {@code GET /healthz}, alternately (JDK {@code HttpClient}, HTTP/1.1 keep-alive),
 * and each latency goes into HdrHistogram. Arms, in the order quiet, slowloris, slowloris,
 * quiet: <i>quiet</i> is the client alone; <i>slowloris</i> keeps {@code --slow} connections
 * (default 500) open that each sent the start of a request's headers and then one more header
 * byte every {@code --drip-ms} (default 1,000 ms), never the end of the headers; a connection
 * the server closes (its header timeout) is opened again at once, so the count stays at
 * {@code --slow}; the reopen count is reported. Before the first arm the facade is warmed with
 * {@code --warm} calls.
 *
 * <p>Run: {@code bash pointsman-examples/bench/run-bench.sh SlowlorisLatency
 * --out=pointsman-examples/bench/slowloris}; writes {@code runs.csv} and
 * {@code environment.txt}. At the end the ledger must hold one row per successful chat call
 * (warm-up included), else the run fails.
 */
public final class SlowlorisLatency {
  private static final String MODEL = "gpt-4o-mini";
  private static final String REPLY = "{\"id\":\"chatcmpl-s\",\"object\":\"chat.completion\","
      + "\"created\":1,\"model\":\"gpt-4o-mini\",\"choices\":[{\"index\":0,\"message\":"
      + "{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}],\"usage\":"
      + "{\"prompt_tokens\":5,\"completion_tokens\":1,\"total_tokens\":6}}";

  private SlowlorisLatency() {}

  /**
   * Runs the arms.
   *
   * @param args {@code --out=DIR --calls=N --warm=N --slow=N --drip-ms=MS --machine=TEXT}
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = BenchOptions.parse(args);
    Path out = Path.of(opts.getOrDefault("out", "pointsman-examples/bench/slowloris"));
    int calls = Integer.parseInt(opts.getOrDefault("calls", "2000"));
    int warm = Integer.parseInt(opts.getOrDefault("warm", "20000"));
    int slowCount = Integer.parseInt(opts.getOrDefault("slow", "500"));
    long dripMillis = Long.parseLong(opts.getOrDefault("drip-ms", "1000"));
    Files.createDirectories(out);
    Path dir = Files.createTempDirectory("pointsman-slowloris");
    String key = VirtualKeys.generate();
    List<String> rows = new ArrayList<>();
    rows.add("run,arm,slow_connections,calls,errors,p50_us,p90_us,p99_us,max_us,reopened");
    AtomicLong chats = new AtomicLong();
    String reconciliation;
    try (TestDatabase db = TestDatabases.create();
        HttpFixtureServer upstream = HttpFixtureServer.start()) {
      upstream.recording(false);
      upstream.respondWith(r -> FixtureResponse.json(200, REPLY));
      FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(),
          db.jdbcUrl(), null, null, upstream.uri().toString(), null, null, 0, 10, null,
          List.of(), List.of(new FacadeConfig.KeyEntry(key, "key-bench", "bench", "bench")),
          List.of(), dir.resolve("data").toString());
      try (FacadeServer server = FacadeServer.start(Facade.open(config))) {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .build();
        URI chat = URI.create("http://127.0.0.1:" + server.port() + "/v1/chat/completions");
        URI health = URI.create("http://127.0.0.1:" + server.port() + "/healthz");
        Client client = new Client(http, chat, health, key, chats);
        System.out.println("warming: " + warm + " calls");
        client.run(warm, new Histogram(3));
        int run = 0;
        for (String arm : List.of("quiet", "slowloris", "slowloris", "quiet")) {
          run++;
          Histogram h = new Histogram(3);
          long errors;
          long reopened = 0;
          if (arm.equals("slowloris")) {
            try (SlowSenders slow = new SlowSenders(server.port(), slowCount, dripMillis)) {
              errors = client.run(calls, h);
              reopened = slow.reopened.get();
            }
          } else {
            errors = client.run(calls, h);
          }
          String row = run + "," + arm + "," + (arm.equals("slowloris") ? slowCount : 0) + ","
              + calls + "," + errors + "," + h.getValueAtPercentile(50) / 1000 + ","
              + h.getValueAtPercentile(90) / 1000 + "," + h.getValueAtPercentile(99) / 1000
              + "," + h.getMaxValue() / 1000 + "," + reopened;
          System.out.println(row);
          rows.add(row);
        }
      }
      long ledger;
      try (Connection c = db.dataSource().getConnection(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM pointsman.ledger_entries")) {
        rs.next();
        ledger = rs.getLong(1);
      }
      reconciliation = chats.get() + " successful chat calls (warm-up included), " + ledger
          + " ledger rows after the facade closed";
      System.out.println(reconciliation);
      if (ledger != chats.get()) {
        throw new IllegalStateException("reconciliation failed: " + reconciliation);
      }
    }
    Files.write(out.resolve("runs.csv"), rows);
    Files.writeString(out.resolve("table.md"), table(rows));
    List<String> env = new ArrayList<>();
    env.add("cores: " + Runtime.getRuntime().availableProcessors());
    env.add("jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty(
        "java.vm.version"));
    env.add("os: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.add("options: " + opts);
    env.add("facade: FacadeServer defaults, in the harness JVM, durable (file journal +"
        + " PostgreSQL settlement at 127.0.0.1:5432); upstream: HttpFixtureServer, zero delay");
    env.add("client: one thread, closed loop, chat call and GET /healthz alternately, JDK"
        + " HttpClient HTTP/1.1 keep-alive; latency from send to the whole answer");
    env.add("reconciliation: " + reconciliation);
    env.add("machine: " + opts.getOrDefault("machine", "not stated"));
    Files.write(out.resolve("environment.txt"), env);
  }

  /**
   * The Markdown table of a {@code runs.csv}: every run in milliseconds.
   *
   * @param csv the lines of {@code runs.csv}, header first
   * @return the table
   */
  static String table(List<String> csv) {
    StringBuilder sb = new StringBuilder("| run | arm | slow connections | calls | errors |"
        + " p50 ms | p90 ms | p99 ms | max ms | reopened by the client |\n"
        + "|---|---|---|---|---|---|---|---|---|---|\n");
    for (String line : csv.subList(1, csv.size())) {
      if (line.isBlank()) {
        continue;
      }
      String[] c = line.split(",", -1);
      sb.append("| ").append(c[0]).append(" | ").append(c[1]).append(" | ").append(c[2])
          .append(" | ").append(c[3]).append(" | ").append(c[4]).append(" | ")
          .append(ms(c[5])).append(" | ").append(ms(c[6])).append(" | ").append(ms(c[7]))
          .append(" | ").append(ms(c[8])).append(" | ").append(c[9]).append(" |\n");
    }
    return sb.toString();
  }

  private static String ms(String micros) {
    return String.format(java.util.Locale.ROOT, "%.2f", Long.parseLong(micros) / 1000.0);
  }

  /** The normal client: chat and health alternately, one at a time. */
  private static final class Client {
    private final HttpClient http;
    private final URI chat;
    private final URI health;
    private final String key;
    private final AtomicLong chats;
    private long sequence;

    Client(HttpClient http, URI chat, URI health, String key, AtomicLong chats) {
      this.http = http;
      this.chat = chat;
      this.health = health;
      this.key = key;
      this.chats = chats;
    }

    /** Sends {@code n} requests; returns how many failed. */
    long run(int n, Histogram h) throws InterruptedException {
      long errors = 0;
      for (int i = 0; i < n; i++) {
        boolean isChat = (sequence++ & 1) == 0;
        HttpRequest request = isChat
            ? HttpRequest.newBuilder(chat).timeout(Duration.ofSeconds(10))
                .header("Authorization", "Bearer " + key)
                .header("Content-Type", "application/json")
                .header("X-Cache-Control", "no-cache")
                .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"" + MODEL
                    + "\",\"max_tokens\":16,\"messages\":[{\"role\":\"user\",\"content\":"
                    + "\"call " + sequence + "\"}]}")).build()
            : HttpRequest.newBuilder(health).timeout(Duration.ofSeconds(10)).GET().build();
        long t = System.nanoTime();
        try {
          HttpResponse<byte[]> r = http.send(request, HttpResponse.BodyHandlers.ofByteArray());
          if (r.statusCode() != 200) {
            errors++;
          } else if (isChat) {
            chats.incrementAndGet();
          }
        } catch (IOException e) {
          errors++;
        }
        h.recordValue(Math.max(0, System.nanoTime() - t));
      }
      return errors;
    }
  }

  /** Connections that never finish their headers, reopened when the server closes them. */
  private static final class SlowSenders implements AutoCloseable {
    private static final byte[] START = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n"
        + "X-Slow: ").getBytes(StandardCharsets.US_ASCII);
    private final int port;
    private final Socket[] sockets;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread dripper;
    final AtomicLong reopened = new AtomicLong();

    SlowSenders(int port, int count, long dripMillis) throws IOException {
      this.port = port;
      this.sockets = new Socket[count];
      for (int i = 0; i < count; i++) {
        sockets[i] = open();
      }
      dripper = new Thread(() -> {
        while (running.get()) {
          for (int i = 0; i < sockets.length && running.get(); i++) {
            try {
              OutputStream o = sockets[i].getOutputStream();
              o.write('x');
              o.flush();
              if (sockets[i].getInputStream().available() > 0 || sockets[i].isClosed()) {
                throw new IOException("answered or closed");
              }
            } catch (IOException e) {
              close(sockets[i]);
              try {
                sockets[i] = open();
                reopened.incrementAndGet();
              } catch (IOException again) {
                // Tried again on the next round.
              }
            }
          }
          try {
            Thread.sleep(dripMillis);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "slowloris-drip");
      dripper.setDaemon(true);
      dripper.start();
    }

    private Socket open() throws IOException {
      Socket s = new Socket("127.0.0.1", port);
      s.getOutputStream().write(START);
      s.getOutputStream().flush();
      return s;
    }

    private static void close(Socket s) {
      try {
        s.close();
      } catch (IOException ignored) {
        // Closing is best effort.
      }
    }

    @Override
    public void close() {
      running.set(false);
      dripper.interrupt();
      try {
        dripper.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      for (Socket s : sockets) {
        close(s);
      }
    }
  }
}
