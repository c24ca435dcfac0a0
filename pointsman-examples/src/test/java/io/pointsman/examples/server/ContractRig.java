package io.pointsman.examples.server;

import io.pointsman.auth.VirtualKeys;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The facade in front of an HTTP fixture upstream, for the client-contract tests: a default
 * model, a vision model, three keys (one with a budget that holds nothing, one limited to the
 * default model) and an upstream whose answers a test scripts. The upstream's API key is
 * {@link #UPSTREAM_SECRET}; by default the upstream answers every chat completion, plain or
 * streamed, with {@link #ANSWER}.
 */
final class ContractRig implements AutoCloseable {
  static final String MODEL = "gpt-4o-mini";
  static final String VISION_MODEL = "gpt-4o-vision";
  /** An embedding model, 0.02 micro-units per input token. */
  static final String EMBEDDING_MODEL = "text-embedding-3-small";
  static final String UPSTREAM_SECRET = "sk-proj-UpstreamSecretKey0123456789abcdef";
  static final String ANSWER = "A pointsman works the points of a railway.";

  final HttpFixtureServer upstream = HttpFixtureServer.start();
  final TestDatabase db = TestDatabases.create();
  final String key = VirtualKeys.generate();
  final String poorKey = VirtualKeys.generate();
  final String limitedKey = VirtualKeys.generate();
  final FacadeServer server;

  ContractRig(Path dir) {
    this(dir, 0);
  }

  /** A rig whose gateway makes up to {@code maxAttempts} upstream attempts a call (0: 2). */
  ContractRig(Path dir, int maxAttempts) {
    upstream.respondWith(ContractRig::answer);
    FacadeConfig config = new FacadeConfig(0, dir.resolve("journal").toString(), db.jdbcUrl(),
        null, null, upstream.uri().toString(), null, null, 0, 5, null,
        List.of(new FacadeConfig.ModelEntry(MODEL, List.of(), 150_000, 600_000, 75_000, 0, 0),
            new FacadeConfig.ModelEntry(VISION_MODEL, List.of(), 2_500_000, 10_000_000,
                1_250_000, 0, 0, List.of(FacadeConfig.ModelEntry.STREAMING,
                    FacadeConfig.ModelEntry.VISION), 1_000),
            new FacadeConfig.ModelEntry(EMBEDDING_MODEL, List.of(), 20_000, 0, 0, 8_191, 0,
                List.of(FacadeConfig.ModelEntry.EMBEDDINGS), 0)),
        List.of(new FacadeConfig.KeyEntry(key, "key-app", "checkout", "acme"),
            new FacadeConfig.KeyEntry(poorKey, "key-poor", "trial", "acme"),
            new FacadeConfig.KeyEntry(limitedKey, "key-limited", "checkout", "acme",
                List.of(MODEL))),
        List.of(new FacadeConfig.BudgetEntry("team:trial", 20)), null, null, false,
        maxAttempts);
    server = FacadeServer.start(Facade.open(config, UPSTREAM_SECRET));
  }

  String baseUrl() {
    return server.baseUri().toString();
  }

  /** Answers every upstream request with the given responder from now on. */
  void upstreamAnswers(Function<RecordedRequest, FixtureResponse> responder) {
    upstream.respondWith(responder);
  }

  /** How many chat completions reached the upstream. */
  int upstreamCalls() {
    return (int) upstream.requests().stream()
        .filter(r -> r.target().endsWith("/chat/completions")).count();
  }

  /** How many chat calls the facade answered with an HTTP status, from its metrics. */
  long facadeAnswers(int status) throws Exception {
    // The count is taken just after the answer is written: wait for it to appear.
    long deadline = System.nanoTime() + 5_000_000_000L;
    long n;
    while ((n = facadeAnswersNow(status)) == 0 && System.nanoTime() < deadline) {
      Thread.sleep(20);
    }
    return n;
  }

  private long facadeAnswersNow(int status) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
        server.baseUri().resolve("/metrics")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    String prefix = "pointsman_http_requests_total{route=\"chat\",code=\"" + status + "\"} ";
    for (String line : r.body().split("\n")) {
      if (line.startsWith(prefix)) {
        return Long.parseLong(line.substring(prefix.length()).trim());
      }
    }
    return 0;
  }

  static FixtureResponse answer(RecordedRequest r) {
    if (r.target().endsWith("/embeddings")) {
      return EmbeddingsUpstream.answer(r);
    }
    if (r.bodyText().contains("\"stream\":true")) {
      return FixtureResponse.sse(streamFrames(ANSWER, true));
    }
    return FixtureResponse.json(200, "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"message\":"
        + "{\"role\":\"assistant\",\"content\":\"" + ANSWER + "\"},\"finish_reason\":\"stop\"}],"
        + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":9,\"total_tokens\":21}}");
  }

  static String delta(String text) {
    return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + text + "\"},\"finish_reason\":null}]}\n\n";
  }

  /** A stream of the text word by word; complete ends with finish, usage and [DONE]. */
  static List<String> streamFrames(String text, boolean complete) {
    List<String> frames = new ArrayList<>();
    for (String w : text.split("(?<= )")) {
      frames.add(delta(w));
    }
    if (complete) {
      frames.add("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\""
          + ":1,\"model\":\"" + MODEL + "\",\"choices\":[{\"index\":0,\"delta\":{},"
          + "\"finish_reason\":\"stop\"}]}\n\n");
      frames.add("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\""
          + ":1,\"model\":\"" + MODEL + "\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
          + "\"completion_tokens\":9,\"total_tokens\":21}}\n\n");
      frames.add("data: [DONE]\n\n");
    }
    return frames;
  }

  /** Records when each upstream request arrived, answering with the given responder. */
  List<Long> upstreamAnswersTimed(Function<RecordedRequest, FixtureResponse> responder) {
    List<Long> at = java.util.Collections.synchronizedList(new ArrayList<>());
    upstream.respondWith(r -> {
      at.add(System.nanoTime());
      return responder.apply(r);
    });
    return at;
  }

  /** A stream that sends two words, then an error event, as OpenAI does mid-stream. */
  static FixtureResponse failingStream() {
    return FixtureResponse.sse(List.of(delta("A "), delta("pointsman "),
        "data: {\"error\":{\"message\":\"The server had an error while processing your"
            + " request\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n"));
  }

  /** An upstream error answer in OpenAI's shape. */
  static FixtureResponse upstreamError(int status, String type, String code, String message) {
    return FixtureResponse.json(status, "{\"error\":{\"message\":\"" + message + "\",\"type\":"
        + "\"" + type + "\",\"param\":null,\"code\":" + (code == null ? "null" : "\"" + code
        + "\"") + "}}");
  }

  @Override
  public void close() {
    try {
      server.close();
    } finally {
      upstream.close();
      db.close();
    }
  }
}
