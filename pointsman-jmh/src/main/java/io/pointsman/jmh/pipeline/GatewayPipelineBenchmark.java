package io.pointsman.jmh.pipeline;

import io.pointsman.jmh.Prompts;
import io.pointsman.CacheControl;
import io.pointsman.CallListener;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import io.pointsman.testing.FixtureProvider;
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
 * The whole pipeline on in-memory defaults and the zero-latency fixture provider, against the
 * fixture called directly (the baseline), at 150 B, 4 KiB and 32 KiB prompts. Arms:
 * <ul>
 *   <li>{@code baselineFixtureDirect}: the fixture provider's {@code send}, no gateway;</li>
 *   <li>{@code gatewayProviderNoStore}: every stage but the cache ({@code no-store}): auth,
 *       resolve, reserve (team budget + key concurrency), input bounds, router, dispatch
 *       intent, provider, output guardrail, usage record;</li>
 *   <li>{@code gatewayProviderNoCache}: the same plus the cache store ({@code no-cache}:
 *       canonical SHA-256 of the request, map put);</li>
 *   <li>{@code gatewayExactHit}: an exact L1 hit (canonical hash, lookup), no provider;</li>
 *   <li>{@code gatewayProviderNoStoreNoOpListener}: {@code gatewayProviderNoStore} with a
 *       {@link CallListener} that receives every event and does nothing (the per-call event
 *       dispatch), to compare with {@code gatewayProviderNoStore} in the same run.</li>
 * </ul>
 * Accounting is a counter (the in-memory recorder keeps every record and would grow without
 * bound over millions of calls); the journal and PostgreSQL profiles are measured by the
 * end-to-end harness.
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -jar
 * pointsman-jmh/target/benchmarks.jar GatewayPipelineBenchmark -rf json -rff
 * pointsman-jmh/results/pipeline/pipeline.json}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class GatewayPipelineBenchmark {

  @Param({"150", "4096", "32768"})
  public int promptBytes;

  private Gateway gateway;
  private Gateway listened;
  private FixtureProvider fixture;
  private ChatRequest request;
  private ProviderCall directCall;
  private CallOptions noStore;
  private CallOptions noCache;
  private CallOptions plain;
  private BenchGateway bench;


  @Setup(Level.Trial)
  public void setUp() {
    bench = BenchGateway.create();
    gateway = bench.gateway();
    String key = bench.key();
    fixture = bench.fixture();
    request = ChatRequest.builder().model("m")
        .addMessage(Message.system("You are a benchmark."))
        .addMessage(Message.user(Prompts.ofBytes(promptBytes)))
        .temperature(0.0).maxTokens(100).build();
    directCall = new ProviderCall("r", "e", Deployment.of("d", "fixture", "m"), request, 1, null);
    plain = CallOptions.of(key);
    noStore = CallOptions.builder(key).cacheControl(CacheControl.NO_STORE).build();
    noCache = CallOptions.builder(key).cacheControl(CacheControl.NO_CACHE).build();
    gateway.chat(request, plain); // fill the exact cache for the hit arm
    // The same gateway (shared cache and accounting) with a listener that is told every event
    // and does nothing: what the event dispatch itself costs.
    CallListener noOp = new CallListener() {};
    listened = gateway.toBuilder().listener(start -> noOp).build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    bench.close();
  }


  @Benchmark
  public ProviderReply baselineFixtureDirect() {
    return fixture.send(directCall);
  }

  @Benchmark
  public ChatResult gatewayProviderNoStore() {
    return gateway.chat(request, noStore);
  }

  @Benchmark
  public ChatResult gatewayProviderNoCache() {
    return gateway.chat(request, noCache);
  }

  @Benchmark
  public ChatResult gatewayProviderNoStoreNoOpListener() {
    return listened.chat(request, noStore);
  }

  @Benchmark
  public ChatResult gatewayExactHit() {
    return gateway.chat(request, plain);
  }
}
