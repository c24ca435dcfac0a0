package io.pointsman.jmh.harness;

import io.pointsman.httpclient5.ApacheHttpTransport;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
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
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.util.Timeout;

/**
 * Measures the HTTP clients a provider adapter could send its attempts with, each in its own
 * child JVM against one fixture server in another child JVM ({@link HttpFixtureServer}, the
 * project's blocking thread-per-connection loopback server: one thread per connection and no
 * hand-offs, cheaper on CPU than a selector-based server). The fixture answers every POST at
 * once with a 242 B chat completion. The arms:
 *
 * <ul>
 *   <li>{@code provider}: the real {@link OpenAiProvider#send} with its default JDK
 *       {@code java.net.http.HttpClient}, so the adapter's body handler, timeouts and JSON
 *       encoding and decoding are included (its request body is printed as
 *       {@code request_bytes});</li>
 *   <li>{@code provider-apache}: the same adapter over {@code pointsman-httpclient5}'s
 *       {@link ApacheHttpTransport};</li>
 *   <li>{@code jdk}: the JDK client alone (HTTP/1.1, {@code send} on the calling thread,
 *       {@code ofByteArray}), the same 164 B body as the next arms;</li>
 *   <li>{@code apache}: Apache HttpClient 5 classic, blocking on the calling thread, a
 *       {@code PoolingHttpClientConnectionManager} (up to 1,000 connections);</li>
 *   <li>{@code okhttp}: OkHttp synchronous calls ({@code Call.execute}).</li>
 * </ul>
 *
 * <p>Each client child warms up at the warm-up rate for {@code --warmup} seconds (discarded;
 * long enough for C2 to finish), then measures each rate for {@code --seconds}, open loop
 * (latency from the scheduled send time into HdrHistogram, each request on a thread of an
 * unbounded pool, keep-alive connections), recording p50/p99/max, errors, and the user+system
 * CPU of the client JVM and of the fixture JVM per request from {@code /proc/PID/stat} (the
 * client's figure includes the load generator's own scheduling, the same for every arm). Arms
 * run in the order given by {@code --order} (default provider jdk apache okhttp okhttp apache
 * jdk provider), every run printed and written to {@code runs.csv}. Run with:
 * {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -cp
 * pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.harness.ClientChoice
 * --rates=500,1000,2000,3000 --seconds=10 --warmup=20 --out=pointsman-jmh/results/client} (a
 * second run of it: {@code --out=pointsman-jmh/results/client/run2}); the adapter over each
 * transport ({@code pointsman-jmh/results/client/adapter}) with the same
 * options and {@code --order=provider,provider-apache,provider-apache,provider
 * --out=pointsman-jmh/results/client/adapter}.
 */
public final class ClientChoice {
  /** The fixture's answer: a chat completion of 242 bytes. */
  static final String REPLY = "{\"id\":\"c1\",\"object\":\"chat.completion\","
      + "\"created\":1,\"model\":\"gpt-4o\",\"choices\":[{\"index\":0,\"message\":{"
      + "\"role\":\"assistant\",\"content\":\"Hello, friend!!\"},\"finish_reason\":\"stop\"}],"
      + "\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":9,\"total_tokens\":28}}";
  /** What the raw arms send: 164 bytes of chat request JSON. */
  static final String BODY = "{\"model\":\"gpt-4o-mini\",\"messages\":[{\"role\":\"user\","
      + "\"content\":\"hello there, a short question of about two hundred bytes in all, as a"
      + " small chat request would be..\"}]}";
  /** The provider arm's prompt, sized so that its encoded request is close to {@link #BODY}. */
  private static final String PROMPT = "hello there, a short question of about two hundred"
      + " bytes in all, as a small chat request would be..";
  private static final String KEY = "sk-bench-0000000000000000";

  private ClientChoice() {}

  /**
   * Runs the comparison ({@code --rates=A,B,.. --seconds=S --warmup=W --out=DIR
   * [--order=ARM,..]}), serves the fixture in a child ({@code serve}), or runs one client arm
   * in a child ({@code client ARM PORT SERVER_PID WARMUP SECONDS RATES}).
   *
   * @param args the options
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    if (args.length > 0 && "serve".equals(args[0])) {
      serve();
      return;
    }
    if (args.length > 0 && "client".equals(args[0])) {
      client(args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]),
          Double.parseDouble(args[4]), Double.parseDouble(args[5]), args[6]);
      return;
    }
    Map<String, String> opts = io.pointsman.jmh.Options.parse(args);
    String rates = opts.getOrDefault("rates", "500,1000,2000,3000");
    double seconds = Double.parseDouble(opts.getOrDefault("seconds", "10"));
    double warmup = Double.parseDouble(opts.getOrDefault("warmup", "20"));
    Path out = Path.of(opts.getOrDefault("out", "pointsman-jmh/results/client"));
    List<String> order = List.of(opts.getOrDefault("order",
        "provider,jdk,apache,okhttp,okhttp,apache,jdk,provider").split(","));
    Files.createDirectories(out);
    List<String> rows = new ArrayList<>();
    rows.add("run,arm,rate,seconds,requests,errors,p50_us,p99_us,max_us,"
        + "client_cpu_us_per_request,server_cpu_us_per_request,request_bytes");
    Process server = child(List.of("serve"));
    try {
      BufferedReader sr = new BufferedReader(new InputStreamReader(server.getInputStream(),
          StandardCharsets.US_ASCII));
      String port = sr.readLine().trim();
      int run = 0;
      for (String arm : order) {
        run++;
        Process c = child(List.of("client", arm, port, Long.toString(server.pid()),
            Double.toString(warmup), Double.toString(seconds), rates));
        try (BufferedReader r = new BufferedReader(new InputStreamReader(c.getInputStream(),
            StandardCharsets.US_ASCII))) {
          String line;
          while ((line = r.readLine()) != null) {
            String row = run + "," + line;
            System.out.println(row);
            rows.add(row);
          }
        }
        if (c.waitFor() != 0) {
          throw new IllegalStateException("client " + arm + " exited with " + c.exitValue());
        }
        Files.write(out.resolve("runs.csv"), rows);
      }
    } finally {
      server.destroy();
      server.waitFor();
    }
    List<String> env = new ArrayList<>();
    env.add("cores: " + Runtime.getRuntime().availableProcessors());
    env.add("jdk: " + System.getProperty("java.vm.name") + " " + System.getProperty(
        "java.vm.version"));
    env.add("os: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
    env.add("options: " + opts + ", order " + order);
    env.add("server: HttpFixtureServer (blocking, a thread per connection) in a child JVM"
        + " (-Xmx256m), answering every POST at once with " + REPLY.length() + " B of JSON");
    env.add("clients: each arm a child JVM (-Xmx256m), keep-alive HTTP/1.1 POSTs, open loop"
        + " on an unbounded pool; raw arms send " + BODY.length() + " B; warm-up " + warmup
        + " s at 1000/s discarded, then each rate for " + seconds + " s");
    env.add("cpu: user+system from /proc/PID/stat (ticks of 10 ms) over each rate's phase,"
        + " divided by the requests of that phase");
    env.add("machine: shared with another build while measured (2 cores); compare arms"
        + " within this run, interleaved as ordered");
    Files.write(out.resolve("environment.txt"), env);
  }

  private static Process child(List<String> args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx256m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(ClientChoice.class.getName());
    cmd.addAll(args);
    return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  // ---------------------------------------------------------------- the fixture child

  private static void serve() throws Exception {
    HttpFixtureServer server = HttpFixtureServer.start();
    server.recording(false);
    FixtureResponse reply = FixtureResponse.json(200, REPLY);
    server.respondWith(req -> reply);
    System.out.println(server.uri().getPort());
    System.out.flush();
    new CountDownLatch(1).await();
  }

  // ---------------------------------------------------------------- a client child

  private static void client(String arm, int port, long serverPid, double warmup,
      double seconds, String rates) throws Exception {
    URI base = URI.create("http://127.0.0.1:" + port + "/v1");
    URI uri = URI.create(base + "/chat/completions");
    int[] requestBytes = {BODY.length()};
    OpenLoop.Request one = switch (arm) {
      case "provider" -> provider(base, requestBytes, null);
      case "provider-apache" -> provider(base, requestBytes,
          ApacheHttpTransport.builder().build());
      case "jdk" -> jdk(uri);
      case "apache" -> apache(uri);
      case "okhttp" -> okhttp(uri);
      default -> throw new IllegalArgumentException("arm " + arm);
    };
    OpenLoop.run(1000, warmup, one);
    for (String r : rates.split(",")) {
      int rate = Integer.parseInt(r.trim());
      long clientBefore = cpuTicks("self");
      long serverBefore = cpuTicks(Long.toString(serverPid));
      OpenLoop.Result res = OpenLoop.run(rate, seconds, one);
      long clientTicks = cpuTicks("self") - clientBefore;
      long serverTicks = cpuTicks(Long.toString(serverPid)) - serverBefore;
      Histogram h = res.latency();
      long n = h.getTotalCount();
      System.out.println(arm + "," + rate + "," + seconds + "," + n + "," + res.errors() + ","
          + h.getValueAtPercentile(50) / 1000 + "," + h.getValueAtPercentile(99) / 1000 + ","
          + h.getMaxValue() / 1000 + "," + perRequest(clientTicks, n) + ","
          + perRequest(serverTicks, n) + "," + requestBytes[0]);
      System.out.flush();
    }
    System.exit(0);
  }

  private static long perRequest(long ticks, long requests) {
    // A tick is 10 ms (CLK_TCK 100).
    return requests == 0 ? 0 : ticks * 10_000 / requests;
  }

  /** utime + stime of a process, in clock ticks. */
  static long cpuTicks(String pid) throws IOException {
    String stat = Files.readString(Path.of("/proc", pid, "stat"));
    // Fields after the command (which may hold spaces) start after the last ')'.
    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    // f[0] is field 3 (state): utime is field 14, stime field 15.
    return Long.parseLong(f[11]) + Long.parseLong(f[12]);
  }

  private static OpenLoop.Request provider(URI base, int[] requestBytes,
      HttpTransport transport) throws Exception {
    OpenAiProvider.Builder b = OpenAiProvider.builder().baseUri(base)
        .credential(Credential.of(KEY));
    if (transport != null) {
      b.transport(transport);
    }
    OpenAiProvider p = b.build();
    ChatRequest request = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.user(PROMPT)).build();
    ProviderCall call = new ProviderCall("req-1", "evt-1",
        Deployment.of("gpt-4o-mini-1", "openai", "gpt-4o-mini"), request, 1, null);
    // What the adapter puts on the wire, measured once against an in-process fixture.
    try (HttpFixtureServer probe = HttpFixtureServer.start()) {
      probe.respondWith(req -> FixtureResponse.json(200, REPLY));
      OpenAiProvider.builder().baseUri(URI.create(probe.uri() + "/v1"))
          .credential(Credential.of(KEY)).build().send(call);
      requestBytes[0] = probe.requests().get(0).body().length;
    }
    return (scheduled, firstByte) -> {
      ProviderReply reply = p.send(call);
      if (reply == null) {
        throw new IOException("no reply");
      }
    };
  }

  private static OpenLoop.Request jdk(URI uri) {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER)
        .build();
    return (scheduled, firstByte) -> {
      HttpResponse<byte[]> resp = client.send(HttpRequest.newBuilder(uri)
          .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + KEY)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (resp.statusCode() != 200 || resp.body().length != REPLY.length()) {
        throw new IOException("status " + resp.statusCode());
      }
    };
  }

  private static OpenLoop.Request apache(URI uri) {
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .setMaxConnTotal(1000).setMaxConnPerRoute(1000)
        .setDefaultConnectionConfig(ConnectionConfig.custom()
            .setConnectTimeout(Timeout.ofSeconds(10)).setSocketTimeout(Timeout.ofSeconds(10))
            .build())
        .build();
    CloseableHttpClient client = HttpClients.custom().setConnectionManager(pool)
        .setDefaultRequestConfig(RequestConfig.custom()
            .setResponseTimeout(Timeout.ofSeconds(10)).build())
        .disableAutomaticRetries().disableRedirectHandling().disableCookieManagement()
        .disableContentCompression().disableAuthCaching().build();
    byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
    return (scheduled, firstByte) -> {
      HttpPost post = new HttpPost(uri);
      post.setHeader("Authorization", "Bearer " + KEY);
      post.setEntity(new ByteArrayEntity(body, ContentType.APPLICATION_JSON));
      byte[] got = client.execute(post, resp -> {
        if (resp.getCode() != 200) {
          throw new IOException("status " + resp.getCode());
        }
        return EntityUtils.toByteArray(resp.getEntity());
      });
      if (got.length != REPLY.length()) {
        throw new IOException("body " + got.length);
      }
    };
  }

  private static OpenLoop.Request okhttp(URI uri) {
    okhttp3.OkHttpClient client = new okhttp3.OkHttpClient.Builder()
        .connectionPool(new okhttp3.ConnectionPool(1000, 5, TimeUnit.MINUTES))
        .connectTimeout(Duration.ofSeconds(10)).readTimeout(Duration.ofSeconds(10))
        .retryOnConnectionFailure(false).followRedirects(false)
        .protocols(List.of(okhttp3.Protocol.HTTP_1_1)).build();
    okhttp3.RequestBody body = okhttp3.RequestBody.create(BODY.getBytes(StandardCharsets.UTF_8),
        okhttp3.MediaType.get("application/json"));
    okhttp3.HttpUrl url = okhttp3.HttpUrl.get(uri.toString());
    return (scheduled, firstByte) -> {
      okhttp3.Request req = new okhttp3.Request.Builder().url(url)
          .header("Authorization", "Bearer " + KEY).post(body).build();
      try (okhttp3.Response resp = client.newCall(req).execute()) {
        byte[] got = resp.body().bytes();
        if (resp.code() != 200 || got.length != REPLY.length()) {
          throw new IOException("status " + resp.code());
        }
      }
    };
  }
}
