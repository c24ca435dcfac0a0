package io.pointsman.jmh.provider;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Adapter overhead: {@link OpenAiProvider} against a raw {@link HttpClient} call to the same
 * loopback {@link HttpFixtureServer}, in the same run, sampled per call
 * ({@link Mode#SampleTime}) so the percentiles, p50 among them, are reported. Goal: at most
 * 50 µs added at p50 ({@code adapterSend} p50 − {@code rawSend} p50, likewise for streams).
 *
 * <p>Arms, each one call on a kept-alive connection:
 * <ul>
 *   <li>{@code rawSend}: POST of the exact bytes the adapter sends (captured from the adapter
 *       at setup) with the same headers, HTTP/1.1, the body read into a byte array, nothing
 *       decoded;</li>
 *   <li>{@code adapterSend}: {@code OpenAiProvider.send}: request translation and JSON
 *       encoding, the exchange, status check, JSON decoding into the normalized response;</li>
 *   <li>{@code rawStream} / {@code adapterStream}: the same for a streamed answer of 40
 *       content chunks plus finish, usage and {@code [DONE]} frames; the adapter also parses the
 *       SSE frames, decodes every chunk, hands each to the sink and assembles the response.</li>
 *   <li>{@code adapterSendDirectExecutor}: {@code adapterSend} on an {@code HttpClient} built
 *       with {@code executor(Runnable::run)}, so response completions are not handed from the
 *       client's selector thread to its default executor: the difference to {@code adapterSend}
 *       is what those hand-offs cost (a diagnostic arm, not a recommended setting).</li>
 * </ul>
 * {@code promptBytes} is the size of the user message (150 B, 4 KiB, 32 KiB). The fixture
 * answers with zero delay; its connection threads, the client's selector thread and the
 * benchmark thread share the machine's cores. Warm-up iterations are 5 s each (the command's
 * {@code -wi 2} keeps that time): with 1 s the adapter arms were still getting faster during
 * measurement, and JMH runs each arm in its own fork, one after the other.
 *
 * <p>Run: (from the repository root) {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java
 * -jar pointsman-jmh/target/benchmarks.jar AdapterOverheadBenchmark -wi 2 -i 3 -r 1s -f 1 -rf
 * json -rff pointsman-jmh/results/provider/adapter-overhead.json | tee
 * pointsman-jmh/results/provider/adapter-overhead.txt}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 5)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class AdapterOverheadBenchmark {
  private static final String COMPLETION = "{\"id\":\"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT\","
      + "\"object\":\"chat.completion\",\"created\":1741569952,\"model\":\"gpt-4o-2024-08-06\","
      + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"Hello! How"
      + " can I assist you today? Here is a short answer of about forty tokens, long enough to "
      + "look like a real reply from a chat model.\",\"refusal\":null,\"annotations\":[]},"
      + "\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":19,"
      + "\"completion_tokens\":40,\"total_tokens\":59,\"prompt_tokens_details\":{"
      + "\"cached_tokens\":0,\"audio_tokens\":0},\"completion_tokens_details\":{"
      + "\"reasoning_tokens\":0,\"audio_tokens\":0,\"accepted_prediction_tokens\":0,"
      + "\"rejected_prediction_tokens\":0}},\"service_tier\":\"default\","
      + "\"system_fingerprint\":\"fp_fc9f1d7035\"}";

  @Param({"150", "4096", "32768"})
  public int promptBytes;

  private HttpFixtureServer server;
  private OpenAiProvider adapter;
  private OpenAiProvider adapterDirect;
  private HttpClient raw;
  private ProviderCall plainCall;
  private ProviderCall streamCall;
  private HttpRequest rawPlain;
  private HttpRequest rawStreamed;

  @Setup(Level.Trial)
  public void setUp() throws Exception {
    List<String> frames = new ArrayList<>();
    String head = "data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":"
        + "\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","
        + "\"system_fingerprint\":\"fp_eb9dce56a8\",\"choices\":[{\"index\":0,\"delta\":";
    frames.add(head + "{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,"
        + "\"finish_reason\":null}]}\n\n");
    for (int i = 0; i < 40; i++) {
      frames.add(head + "{\"content\":\" tok" + i + "\"},\"logprobs\":null,"
          + "\"finish_reason\":null}]}\n\n");
    }
    frames.add(head + "{},\"logprobs\":null,\"finish_reason\":\"stop\"}]}\n\n");
    frames.add("data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":"
        + "\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","
        + "\"choices\":[],\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":40,"
        + "\"total_tokens\":59}}\n\n");
    frames.add("data: [DONE]\n\n");
    FixtureResponse streamed = FixtureResponse.sse(frames);
    FixtureResponse plain = FixtureResponse.json(200, COMPLETION);
    server = HttpFixtureServer.start();
    server.respondWith(req -> isStream(req) ? streamed : plain);

    adapter = OpenAiProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-bench-0000000000000000")).build();
    // The same adapter on a client whose completions run on its selector thread rather than
    // being handed to the client's default executor: shows what those thread hand-offs cost.
    adapterDirect = OpenAiProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-bench-0000000000000000"))
        .httpClient(HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).followRedirects(HttpClient.Redirect.NEVER)
            .executor(Runnable::run).build())
        .build();
    String prompt = "x".repeat(promptBytes);
    ChatRequest request = ChatRequest.builder().model("gpt-4o")
        .addMessage(Message.system("You are a helpful assistant."))
        .addMessage(Message.user(prompt)).maxTokens(256).build();
    Deployment deployment = Deployment.of("gpt-4o-1", "openai", "gpt-4o");
    plainCall = new ProviderCall("req-1", "evt-1", deployment, request, 1, null);
    streamCall = new ProviderCall("req-2", "evt-2", deployment,
        request.toBuilder().stream(true).build(), 1, null);

    // Capture what the adapter puts on the wire, so the raw arms send the very same bytes.
    adapter.send(plainCall);
    adapter.stream(streamCall, chunk -> true);
    List<RecordedRequest> sent = server.requests();
    server.recording(false);
    if (sent.size() != 2 || isStream(sent.get(0)) || !isStream(sent.get(1))) {
      throw new IllegalStateException("unexpected capture: " + sent.size() + " requests");
    }
    raw = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    rawPlain = rawRequest(server.uri(), sent.get(0));
    rawStreamed = rawRequest(server.uri(), sent.get(1));
  }

  private static boolean isStream(RecordedRequest r) {
    return r.bodyText().contains("\"stream\":true");
  }

  private static HttpRequest rawRequest(URI base, RecordedRequest r) {
    HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(r.target()))
        .POST(HttpRequest.BodyPublishers.ofByteArray(r.body()));
    for (String h : List.of("content-type", "accept", "authorization")) {
      String v = r.header(h);
      if (v != null) {
        b.header(h, v);
      }
    }
    return b.build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    server.close();
  }

  /**
   * The adapter, plain.
   *
   * @return the reply
   */
  @Benchmark
  public ProviderReply adapterSend() {
    return adapter.send(plainCall);
  }

  /**
   * The adapter, plain, on a client with a direct executor.
   *
   * @return the reply
   */
  @Benchmark
  public ProviderReply adapterSendDirectExecutor() {
    return adapterDirect.send(plainCall);
  }

  /**
   * The raw client, plain.
   *
   * @return the body
   * @throws IOException if the exchange fails
   * @throws InterruptedException if interrupted
   */
  @Benchmark
  public byte[] rawSend() throws IOException, InterruptedException {
    return raw.send(rawPlain, HttpResponse.BodyHandlers.ofByteArray()).body();
  }

  /**
   * The adapter, streamed, every chunk accepted.
   *
   * @return the reply
   */
  @Benchmark
  public ProviderReply adapterStream() {
    return adapter.stream(streamCall, chunk -> true);
  }

  /**
   * The raw client, the streamed body read to its end.
   *
   * @return the body
   * @throws IOException if the exchange fails
   * @throws InterruptedException if interrupted
   */
  @Benchmark
  public byte[] rawStream() throws IOException, InterruptedException {
    return raw.send(rawStreamed, HttpResponse.BodyHandlers.ofByteArray()).body();
  }
}
