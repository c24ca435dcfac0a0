package io.pointsman.jmh.harness;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import org.HdrHistogram.Histogram;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * Measures the HTTP servers the facade could run on, each in its own child JVM with the same
 * trivial handler (read a small JSON body, answer 200 with a small JSON body): the JDK's
 * {@code com.sun.net.httpserver} as the facade shipped it (Nagle's algorithm on), the same with
 * {@code -Dsun.net.httpserver.nodelay=true}, and Jetty 12 (no-delay). Two figures per arm:
 *
 * <ul>
 *   <li>latency of a keep-alive POST at a fixed open-loop rate (from the scheduled send time,
 *       HdrHistogram), over HTTP/1.1 with the JDK client;</li>
 *   <li>heap per idle connection: 1,000 connections each complete one request and stay open;
 *       the server's used heap after a full GC, before and after, divided by 1,000.</li>
 * </ul>
 *
 * <p>Arms run A B C C B A; every run is printed and written to {@code runs.csv}. Run with:
 * {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -cp
 * pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.harness.ServerChoice --rate=300
 * --seconds=10 --out=pointsman-jmh/results/server}
 */
public final class ServerChoice {
  private static final byte[] REPLY = ("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
      + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},"
      + "\"finish_reason\":\"stop\"}]}").getBytes(StandardCharsets.UTF_8);
  private static final String BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":"
      + "\"user\",\"content\":\"hello there, a short question of about two hundred bytes in"
      + " all, as a small chat request would be\"}]}";
  private static final int IDLE = 1_000;

  private ServerChoice() {}

  /**
   * Runs the comparison ({@code --rate=N --seconds=S --out=DIR}), or serves one arm in a child
   * ({@code serve ARM}).
   *
   * @param args the options
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && "serve".equals(args[0])) {
      serve(args[1]);
      return;
    }
    Map<String, String> opts = io.pointsman.jmh.Options.parse(args);
    int rate = Integer.parseInt(opts.getOrDefault("rate", "300"));
    double seconds = Double.parseDouble(opts.getOrDefault("seconds", "10"));
    Path out = Path.of(opts.getOrDefault("out", "pointsman-jmh/results/server"));
    Files.createDirectories(out);
    List<String> order = List.of("jdk", "jdk-nodelay", "jetty", "jetty", "jdk-nodelay", "jdk");
    List<String> rows = new ArrayList<>();
    rows.add("run,arm,rate,seconds,requests,errors,p50_us,p90_us,p99_us,max_us,"
        + "heap_per_idle_connection_bytes");
    int run = 0;
    for (String arm : order) {
      run++;
      String row = measure(run, arm, rate, seconds);
      System.out.println(row);
      rows.add(row);
    }
    Files.write(out.resolve("runs.csv"), rows);
    List<String> env = new ArrayList<>();
    env.add("cores: " + Runtime.getRuntime().availableProcessors());
    env.add("jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty(
        "java.vm.version"));
    env.add("os: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.add("options: " + opts);
    env.add("servers: each arm a child JVM (-Xmx256m), handler reads the body and answers "
        + REPLY.length + " B; client: JDK HttpClient, HTTP/1.1 keep-alive, body "
        + BODY.length() + " B");
    env.add("machine: shared with other builds while measured");
    Files.write(out.resolve("environment.txt"), env);
  }

  private static String measure(int run, String arm, int rate, double seconds)
      throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    if ("jdk-nodelay".equals(arm)) {
      cmd.add("-Dsun.net.httpserver.nodelay=true");
    }
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ServerChoice.class.getName());
    cmd.add("serve");
    cmd.add(arm);
    Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    try {
      BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
          StandardCharsets.US_ASCII));
      int port = Integer.parseInt(r.readLine().trim());
      URI uri = URI.create("http://127.0.0.1:" + port + "/v1/chat/completions");
      HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
          .executor(Executors.newFixedThreadPool(4)).build();
      OpenLoop.Request one = (scheduled, firstByte) -> {
        HttpResponse<byte[]> resp = client.send(HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer pm-x")
            .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
            HttpResponse.BodyHandlers.ofByteArray());
        if (resp.statusCode() != 200) {
          throw new IOException("status " + resp.statusCode());
        }
      };
      // Warmup, discarded.
      OpenLoop.run(rate, Math.max(2, seconds / 3), one);
      OpenLoop.Result res = OpenLoop.run(rate, seconds, one);
      long perConnection = idleHeap(port);
      Histogram h = res.latency();
      return run + "," + arm + "," + rate + "," + seconds + "," + h.getTotalCount() + ","
          + res.errors() + "," + h.getValueAtPercentile(50) / 1000 + ","
          + h.getValueAtPercentile(90) / 1000 + "," + h.getValueAtPercentile(99) / 1000 + ","
          + h.getMaxValue() / 1000 + "," + perConnection;
    } finally {
      p.destroy();
      p.waitFor();
    }
  }

  /** Opens {@link #IDLE} connections that each complete one request, and reads the heap. */
  private static long idleHeap(int port) throws Exception {
    long before = heap(port);
    List<Socket> idle = new ArrayList<>();
    try {
      byte[] req = ("POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type:"
          + " application/json\r\nContent-Length: " + BODY.length() + "\r\n\r\n" + BODY)
          .getBytes(StandardCharsets.US_ASCII);
      byte[] buf = new byte[4096];
      for (int i = 0; i < IDLE; i++) {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        s.getOutputStream().write(req);
        readResponse(s.getInputStream(), buf);
        idle.add(s);
      }
      long after = heap(port);
      return (after - before) / IDLE;
    } finally {
      for (Socket s : idle) {
        s.close();
      }
    }
  }

  private static void readResponse(InputStream in, byte[] buf) throws IOException {
    int total = 0;
    while (true) {
      int n = in.read(buf, total, buf.length - total);
      if (n < 0) {
        throw new IOException("closed");
      }
      total += n;
      String s = new String(buf, 0, total, StandardCharsets.US_ASCII);
      int end = s.indexOf("\r\n\r\n");
      if (end >= 0 && total - end - 4 >= REPLY.length) {
        return;
      }
    }
  }

  private static long heap(int port) throws IOException, InterruptedException {
    HttpClient c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    HttpResponse<String> r = c.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + port + "/heap")).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    return Long.parseLong(r.body().trim());
  }

  private static long usedHeapAfterGc() {
    MemoryMXBean m = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return m.getHeapMemoryUsage().getUsed();
  }

  // ---------------------------------------------------------------- the child

  private static void serve(String arm) throws Exception {
    int port;
    if (arm.startsWith("jdk")) {
      HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 256);
      // The facade as shipped: a 256-thread pool.
      s.setExecutor(Executors.newFixedThreadPool(256));
      s.createContext("/", ex -> {
        byte[] body;
        if ("/heap".equals(ex.getRequestURI().getPath())) {
          body = Long.toString(usedHeapAfterGc()).getBytes(StandardCharsets.US_ASCII);
        } else {
          ex.getRequestBody().readAllBytes();
          body = REPLY;
        }
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(200, body.length);
        try (OutputStream os = ex.getResponseBody()) {
          os.write(body);
        }
      });
      s.start();
      port = s.getAddress().getPort();
    } else {
      QueuedThreadPool pool = new QueuedThreadPool(64, 8);
      Server s = new Server(pool);
      HttpConfiguration cfg = new HttpConfiguration();
      ServerConnector c = new ServerConnector(s, 1, 1, new HttpConnectionFactory(cfg));
      c.setHost("127.0.0.1");
      c.setPort(0);
      c.setAcceptedTcpNoDelay(true);
      s.addConnector(c);
      s.setHandler(new Handler.Abstract() {
        @Override
        public boolean handle(Request request, Response response, Callback callback)
            throws Exception {
          byte[] body;
          if ("/heap".equals(request.getHttpURI().getPath())) {
            body = Long.toString(usedHeapAfterGc()).getBytes(StandardCharsets.US_ASCII);
          } else {
            org.eclipse.jetty.io.Content.Source.consumeAll(request);
            body = REPLY;
          }
          response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
          response.write(true, ByteBuffer.wrap(body), callback);
          return true;
        }
      });
      s.start();
      port = c.getLocalPort();
    }
    System.out.println(port);
    System.out.flush();
    new CountDownLatch(1).await();
  }
}
