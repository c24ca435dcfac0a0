package io.pointsman.jmh.integrations;

import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.jmh.Prompts;
import io.pointsman.jmh.pipeline.BenchGateway;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.springai.CallerKeys;
import io.pointsman.springai.PointsmanChatModel;
import io.pointsman.springai.PointsmanChatOptions;
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
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * What the Spring AI adapter adds to a call: {@code PointsmanChatModel.call(Prompt)} against
 * the bare {@code Gateway.chat} it makes, on the same gateway in the same run. The setup is
 * {@code GatewayPipelineBenchmark}'s {@code gatewayProviderNoStore} arm (in-memory defaults, a
 * team budget and key concurrency, the zero-latency fixture provider, counting accounting,
 * {@code no-store}), at 150 B and 4 KiB prompts. Arms:
 * <ul>
 *   <li>{@code bareGatewayNoStore}: {@code gateway.chat} with the request the adapter builds
 *       (system and user message, temperature 0, an output cap of 100 as
 *       {@code max_completion_tokens});</li>
 *   <li>{@code springAiCallNoStore}: the same call through {@code PointsmanChatModel}: options
 *       merged over the defaults, the Spring AI prompt translated, the Spring AI response and
 *       its metadata built, the (no-op) observation and the tool-execution check.</li>
 * </ul>
 * The adapter's cost per call is {@code springAiCallNoStore - bareGatewayNoStore}.
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -jar
 * pointsman-jmh/target/benchmarks.jar SpringAiAdapterBenchmark -rf json -rff
 * pointsman-jmh/results/integrations/spring-ai.json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class SpringAiAdapterBenchmark {

  @Param({"150", "4096"})
  public int promptBytes;

  private Gateway gateway;
  private PointsmanChatModel model;
  private ChatRequest request;
  private Prompt prompt;
  private CallOptions noStore;
  private BenchGateway bench;


  @Setup(Level.Trial)
  public void setUp() {
    bench = BenchGateway.create();
    gateway = bench.gateway();
    String key = bench.key();
    String text = Prompts.ofBytes(promptBytes);
    request = ChatRequest.builder().model("m")
        .addMessage(Message.system("You are a benchmark."))
        .addMessage(Message.user(text))
        .temperature(0.0).maxCompletionTokens(100).build();
    noStore = CallOptions.builder(key).cacheControl(CacheControl.NO_STORE).build();
    model = PointsmanChatModel.builder(gateway).keys(CallerKeys.fixed(key)).defaultModel("m")
        .defaultOptions(PointsmanChatOptions.builder().cacheControl(CacheControl.NO_STORE)
            .build())
        .build();
    prompt = new Prompt(List.of(new SystemMessage("You are a benchmark."),
        new UserMessage(text)),
        PointsmanChatOptions.builder().temperature(0.0).maxTokens(100).build());
    // Both arms answer the same text: the adapter sends what the bare arm sends.
    String bare = gateway.chat(request, noStore).response().firstText();
    String adapted = model.call(prompt).getResult().getOutput().getText();
    if (!bare.equals(adapted)) {
      throw new IllegalStateException("the arms differ: " + bare + " vs " + adapted);
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    bench.close();
  }

  @Benchmark
  public ChatResult bareGatewayNoStore() {
    return gateway.chat(request, noStore);
  }

  @Benchmark
  public ChatResponse springAiCallNoStore() {
    return model.call(prompt);
  }
}
