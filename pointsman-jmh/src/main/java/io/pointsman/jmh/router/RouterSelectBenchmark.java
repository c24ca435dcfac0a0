package io.pointsman.jmh.router;

import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.router.DeploymentRouter;
import io.pointsman.router.RoutedDeployment;
import io.pointsman.router.RoutingStrategy;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.spi.RouteContext;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
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
 * {@code router.select}: {@link DeploymentRouter} with each {@link RoutingStrategy} over 2, 16
 * and 128 deployments of one model, single-threaded. Goal: at most 1 µs per selection at 16
 * deployments.
 *
 * <p>{@code selectAndComplete} is one {@code select} plus the {@code onOutcome} that ends the
 * attempt, as the gateway does for every attempt: without it, attempts in flight would grow
 * without bound and least-busy and latency would rank a state no real gateway reaches. It is
 * therefore an upper bound on {@code select} alone. Every deployment has RPM/TPM caps (far
 * above what a run reaches, so none is filtered out but the cap checks and per-minute counters
 * run), a weight from 1 to 4, a price override and a fixed simulated latency (1 to 8 ms, fed to
 * the latency EWMA and to the adaptive strategy, whose updates run on a background thread as in
 * production). {@code baselineRandomPick} draws a uniform index into the same deployment array:
 * the floor of any randomized selection.
 *
 * <p>Run: (from the repository root) {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java
 * -jar pointsman-jmh/target/benchmarks.jar RouterSelectBenchmark -wi 2 -i 3 -r 1s -f 1 -rf json
 * -rff pointsman-jmh/results/router/router-select.json | tee
 * pointsman-jmh/results/router/router-select.txt}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class RouterSelectBenchmark {

  @Param({"2", "16", "128"})
  public int deployments;

  @Param({"weighted", "leastBusy", "latency", "lowestCost", "usageHeadroom", "adaptive"})
  public String strategy;

  private static final Duration[] LATENCY = new Duration[8];

  static {
    for (int i = 0; i < LATENCY.length; i++) {
      LATENCY[i] = Duration.ofMillis(1 + i);
    }
  }

  private DeploymentRouter router;
  private RouteContext context;
  private Deployment[] all;
  private ExecutorService updates;

  @Setup(Level.Trial)
  public void setUp() {
    updates = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "router-updates");
      t.setDaemon(true);
      return t;
    });
    RoutingStrategy s;
    switch (strategy) {
      case "weighted":
        s = RoutingStrategy.weighted();
        break;
      case "leastBusy":
        s = RoutingStrategy.leastBusy();
        break;
      case "latency":
        s = RoutingStrategy.latency();
        break;
      case "lowestCost":
        s = RoutingStrategy.lowestCost();
        break;
      case "usageHeadroom":
        s = RoutingStrategy.usageHeadroom();
        break;
      case "adaptive":
        s = RoutingStrategy.adaptive(Duration.ofMillis(4), updates);
        break;
      default:
        throw new IllegalArgumentException(strategy);
    }
    DeploymentRouter.Builder b = DeploymentRouter.builder().strategy(s);
    all = new Deployment[deployments];
    for (int i = 0; i < deployments; i++) {
      Deployment d = new Deployment("gpt-" + i, "openai-" + (i % 4), "gpt-4o", "gpt-4o",
          Price.of(2_500_000 + 10_000L * i, 10_000_000 + 20_000L * i));
      all[i] = d;
      b.deployment(RoutedDeployment.of(d).withWeight(1 + (i % 4))
          .withLimits(1_000_000_000_000L + i, 1_000_000_000_000_000L + i));
    }
    router = b.build();
    ModelSpec spec = ModelSpec.builder("gpt-4o").contextWindow(128_000).maxOutputTokens(4096)
        .price(Price.of(2_500_000, 10_000_000)).build();
    ChatRequest request = ChatRequest.builder().model("gpt-4o")
        .addMessage(Message.user("hello")).maxTokens(256).build();
    Identity identity = new Identity("key-1", null, "team-1", "org-1", Set.of(), Grant.all(),
        Grant.all(), Grant.all());
    context = new RouteContext(identity, new ResolvedModel(spec, 40, false, 256), request, 1,
        Set.of());
    // Give every deployment a latency history and the adaptive strategy its posteriors.
    for (int i = 0; i < 20 * deployments; i++) {
      selectAndComplete();
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    updates.shutdownNow();
  }

  /**
   * One selection and the outcome that ends its attempt.
   *
   * @return the selected deployment
   */
  @Benchmark
  public Deployment selectAndComplete() {
    Deployment d = router.select(context);
    // The id's hash is cached in the string: a cheap, stable latency class per deployment.
    router.onOutcome(d, true, LATENCY[Math.floorMod(d.id().hashCode(), LATENCY.length)]);
    return d;
  }

  /**
   * The floor: a uniform random index into the deployments.
   *
   * @return the drawn deployment
   */
  @Benchmark
  public Deployment baselineRandomPick() {
    return all[ThreadLocalRandom.current().nextInt(all.length)];
  }
}
