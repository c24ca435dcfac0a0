package io.pointsman.jmh.integrations;

import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.jmh.Prompts;
import io.pointsman.jmh.pipeline.BenchGateway;
import io.pointsman.langchain4j.PointsmanChatModel;
import io.pointsman.langchain4j.PointsmanChatRequestParameters;
import io.pointsman.langchain4j.PointsmanStreamingChatModel;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.model.StreamOptions;
import java.util.concurrent.CompletableFuture;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * What the LangChain4j adapter adds to a call: the same gateway, fixture and prompt as
 * {@code GatewayPipelineBenchmark.gatewayProviderNoStore} (in-memory defaults, team budget and
 * key concurrency, input bounds, the zero-latency fixture provider, {@code no-store}), called
 * bare and through {@link PointsmanChatModel} in the same run, at 150 B and 4 KiB prompts. The
 * difference of the two is the adapter's cost per call: translating the LangChain4j request
 * (system and user message, temperature, output cap) into the gateway's, the response back
 * with its metadata, and LangChain4j's own {@code chat} (defaults merged, listeners none).
 * Arms:
 * <ul>
 *   <li>{@code bareGatewayNoStore}: {@code gateway.chat} with the request the adapter sends
 *       (the same fields as the pipeline benchmark's, the output cap as
 *       {@code max_completion_tokens});</li>
 *   <li>{@code langChain4jChatModelNoStore}: {@code PointsmanChatModel.chat} of the LangChain4j
 *       request;</li>
 *   <li>{@code bareGatewayStreamNoStore}: {@code gateway.stream} of the same request on the
 *       calling thread (the fixture's four chunks);</li>
 *   <li>{@code langChain4jStreamingChatModelNoStore}: {@code PointsmanStreamingChatModel.chat},
 *       waited for until {@code onCompleteResponse}: includes the hand-off to the model's
 *       default executor thread and back.</li>
 * </ul>
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -jar
 * pointsman-jmh/target/benchmarks.jar LangChain4jAdapterBenchmark -rf json -rff
 * pointsman-jmh/results/integrations/langchain4j.json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class LangChain4jAdapterBenchmark {

  @Param({"150", "4096"})
  public int promptBytes;

  private Gateway gateway;
  private ChatRequest request;
  private CallOptions noStore;
  private PointsmanChatModel chatModel;
  private PointsmanStreamingChatModel streamingModel;
  private dev.langchain4j.model.chat.request.ChatRequest lcRequest;
  private BenchGateway bench;


  @Setup(Level.Trial)
  public void setUp() {
    bench = BenchGateway.create();
    gateway = bench.gateway();
    String key = bench.key();
    String prompt = Prompts.ofBytes(promptBytes);
    request = ChatRequest.builder().model("m")
        .addMessage(Message.system("You are a benchmark."))
        .addMessage(Message.user(prompt))
        .temperature(0.0).maxCompletionTokens(100).build();
    noStore = CallOptions.builder(key).cacheControl(CacheControl.NO_STORE).build();
    PointsmanChatRequestParameters defaults = PointsmanChatRequestParameters.builder()
        .cacheControl(CacheControl.NO_STORE).build();
    chatModel = PointsmanChatModel.builder(gateway).virtualKey(key).defaultModel("m")
        .defaultRequestParameters(defaults).build();
    streamingModel = PointsmanStreamingChatModel.builder(gateway).virtualKey(key)
        .defaultModel("m").defaultRequestParameters(defaults).build();
    lcRequest = dev.langchain4j.model.chat.request.ChatRequest.builder()
        .messages(SystemMessage.from("You are a benchmark."), UserMessage.from(prompt))
        .temperature(0.0).maxOutputTokens(100).build();
    // The streaming arm's gateway request is the adapter's: stream with usage.
    streamRequest = request.toBuilder().stream(true)
        .streamOptions(new StreamOptions(true, null)).build();
    String bare = gateway.chat(request, noStore).response().firstText();
    String adapted = chatModel.chat(lcRequest).aiMessage().text();
    if (!bare.equals(adapted)) {
      throw new IllegalStateException("the arms are not answered alike: " + bare + " / "
          + adapted);
    }
  }

  private ChatRequest streamRequest;

  @TearDown(Level.Trial)
  public void tearDown() {
    bench.close();
  }

  @Benchmark
  public ChatResult bareGatewayNoStore() {
    return gateway.chat(request, noStore);
  }

  @Benchmark
  public ChatResponse langChain4jChatModelNoStore() {
    return chatModel.chat(lcRequest);
  }

  @Benchmark
  public ChatResult bareGatewayStreamNoStore(Blackhole bh) {
    return gateway.stream(streamRequest, noStore, (ChatChunk chunk) -> bh.consume(chunk));
  }

  @Benchmark
  public ChatResponse langChain4jStreamingChatModelNoStore(Blackhole bh) throws Exception {
    CompletableFuture<ChatResponse> done = new CompletableFuture<>();
    streamingModel.chat(lcRequest, new StreamingChatResponseHandler() {
      @Override
      public void onPartialResponse(String partial) {
        bh.consume(partial);
      }

      @Override
      public void onCompleteResponse(ChatResponse response) {
        done.complete(response);
      }

      @Override
      public void onError(Throwable error) {
        done.completeExceptionally(error);
      }
    });
    return done.get(10, TimeUnit.SECONDS);
  }
}
