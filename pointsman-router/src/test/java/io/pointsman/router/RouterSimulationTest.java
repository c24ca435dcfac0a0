package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.spi.RouteContext;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** Seeded simulations of the strategies; figures are printed for docs/routing.md. */
class RouterSimulationTest {
  static final ResolvedModel MODEL = new ResolvedModel(ModelSpec.builder("m")
      .contextWindow(8192).maxOutputTokens(100).price(Price.of(1, 2)).build(), 10, true, 100);

  static RouteContext context(Set<String> failed) {
    Identity id = identity();
    ChatRequest r = ChatRequest.builder().model("m").addMessage(Message.user("hi")).build();
    return new RouteContext(id, MODEL, r, 1, failed);
  }

  static Identity identity() {
    return new io.pointsman.auth.InMemoryKeyStore(io.pointsman.Clock.system())
        .addKey("pm-sim-key-0001", KeySpec.builder("k").team("t").org("o").build())
        .authenticate("pm-sim-key-0001");
  }

  private static DeploymentRouter router(RoutingStrategy s, FakeClock clock, long seed,
      Deployment... ds) {
    DeploymentRouter.Builder b = DeploymentRouter.builder().strategy(s).clock(clock)
        .random(new SplittableRandom(seed)).cooldown(new Cooldown(3, Duration.ofSeconds(30),
            Duration.ofMinutes(2)));
    for (Deployment d : ds) {
      b.deployment(d);
    }
    return b.build();
  }

  @Test
  void weightedStaysWithinThreePercentOfTheWeightsOver100000Picks() {
    DeploymentRouter r = DeploymentRouter.builder().random(new SplittableRandom(42))
        .deployment(RoutedDeployment.of(Deployment.of("a", "p", "m")).withWeight(1))
        .deployment(RoutedDeployment.of(Deployment.of("b", "p", "m")).withWeight(3))
        .deployment(RoutedDeployment.of(Deployment.of("c", "p", "m")).withWeight(6)).build();
    Map<String, Integer> counts = new HashMap<>();
    RouteContext ctx = context(Set.of());
    for (int i = 0; i < 100_000; i++) {
      Deployment d = r.select(ctx);
      counts.merge(d.id(), 1, Integer::sum);
      r.onOutcome(d, true, Duration.ofMillis(10));
    }
    System.out.println("weighted 1:3:6 over 100000 picks: " + counts);
    assertThat(counts.get("a") / 10_000.0).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.03));
    assertThat(counts.get("b") / 30_000.0).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.03));
    assertThat(counts.get("c") / 60_000.0).isCloseTo(1.0, org.assertj.core.data.Offset.offset(0.03));
  }

  /** Deployment "fast" answers in 1 tick, "slow" in 4; calls arrive 2 per tick. */
  private static Map<String, Integer> loadSimulation(RoutingStrategy strategy) {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    DeploymentRouter r = router(strategy, clock, 7, Deployment.of("fast", "p", "m"),
        Deployment.of("slow", "p", "m"));
    Map<String, Integer> latencyTicks = Map.of("fast", 1, "slow", 4);
    java.util.PriorityQueue<long[]> finishing = new java.util.PriorityQueue<>(
        (x, y) -> Long.compare(x[0], y[0]));
    Map<String, Integer> counts = new HashMap<>();
    RouteContext ctx = context(Set.of());
    Deployment[] byIndex = new Deployment[2];
    for (long tick = 0; tick < 20_000; tick++) {
      while (!finishing.isEmpty() && finishing.peek()[0] <= tick) {
        long[] f = finishing.poll();
        Deployment d = byIndex[(int) f[1]];
        r.onOutcome(d, true, Duration.ofMillis(10L * latencyTicks.get(d.id())));
      }
      for (int k = 0; k < 2; k++) {
        Deployment d = r.select(ctx);
        int idx = d.id().equals("fast") ? 0 : 1;
        byIndex[idx] = d;
        if (tick >= 1_000) {
          counts.merge(d.id(), 1, Integer::sum);
        }
        finishing.add(new long[] {tick + latencyTicks.get(d.id()), idx});
      }
    }
    return counts;
  }

  @Test
  void leastBusyAndLatencyMoveLoadToTheFasterDeployment() {
    Map<String, Integer> leastBusy = loadSimulation(RoutingStrategy.leastBusy());
    Map<String, Integer> latency = loadSimulation(RoutingStrategy.latency());
    Map<String, Integer> weighted = loadSimulation(RoutingStrategy.weighted());
    System.out.println("fast (1 tick) vs slow (4 ticks): least-busy " + leastBusy
        + ", latency " + latency + ", weighted " + weighted);
    assertThat(leastBusy.get("fast")).isGreaterThan(leastBusy.getOrDefault("slow", 0) * 2);
    assertThat(latency.get("fast")).isGreaterThan(latency.getOrDefault("slow", 0) * 2);
    assertThat(weighted.get("fast") / (double) weighted.get("slow")).isCloseTo(1.0,
        org.assertj.core.data.Offset.offset(0.05));
  }

  /**
   * Three arms succeeding 50, 70 and 90 % of the time, one outcome per trial, trials arriving
   * {@code perSecond} per second on the fake clock, with the default 1 ms refresh interval: a
   * snapshot is built after every trial at 1,000 per second, after every 100 at 100,000.
   *
   * @return how many of trials 1000 to 1999 went to the best arm
   */
  private static int adaptiveBestArmPicks(int perSecond, long seed, long worldSeed) {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    DeploymentRouter r = router(RoutingStrategy.adaptive(Duration.ofSeconds(1), Runnable::run,
        Duration.ofMillis(1), clock), clock, seed, Deployment.of("p50", "p", "m"),
        Deployment.of("p70", "p", "m"), Deployment.of("p90", "p", "m"));
    Map<String, Double> success = Map.of("p50", 0.5, "p70", 0.7, "p90", 0.9);
    SplittableRandom world = new SplittableRandom(worldSeed);
    RouteContext ctx = context(Set.of());
    Duration between = Duration.ofSeconds(1).dividedBy(perSecond);
    int bestLate = 0;
    for (int trial = 0; trial < 2_000; trial++) {
      Deployment d = r.select(ctx);
      boolean ok = world.nextDouble() < success.get(d.id());
      // Successes only: a failure streak must not open the cooldown of a merely worse arm.
      r.onOutcome(d, true, ok ? Duration.ofMillis(100) : Duration.ofSeconds(5));
      if (trial >= 1_000 && d.id().equals("p90")) {
        bestLate++;
      }
      clock.advance(between);
    }
    return bestLate;
  }

  @Test
  void adaptiveConvergesToTheBestArmWithin1000Trials() {
    for (int perSecond : new int[] {1_000, 10_000, 100_000}) {
      int bestLate = adaptiveBestArmPicks(perSecond, 11, 12);
      int[] seeds = new int[100];
      for (int i = 0; i < seeds.length; i++) {
        seeds[i] = adaptiveBestArmPicks(perSecond, 1_000 + i, 2_000 + i);
      }
      java.util.Arrays.sort(seeds);
      System.out.println("adaptive, " + perSecond + " trials/s: best arm took " + bestLate
          + " of trials 1000..1999; over 100 other seeds min " + seeds[0] + ", median "
          + seeds[50]);
      assertThat(bestLate).as(perSecond + " trials/s").isGreaterThan(900);
      assertThat(seeds[0]).as(perSecond + " trials/s, every seed").isGreaterThan(900);
    }
  }

  static List<Supplier<RoutingStrategy>> allStrategies() {
    return List.of(RoutingStrategy::weighted, RoutingStrategy::leastBusy,
        RoutingStrategy::latency, RoutingStrategy::lowestCost, RoutingStrategy::usageHeadroom,
        () -> RoutingStrategy.adaptive(Duration.ofSeconds(1), Runnable::run));
  }

  @Test
  void noStrategyPicksACooledDeploymentAndTheCooldownOpensAndCloses() {
    for (Supplier<RoutingStrategy> s : allStrategies()) {
      FakeClock clock = new FakeClock(Instant.EPOCH);
      DeploymentRouter r = router(s.get(), clock, 3, Deployment.of("bad", "p", "m"),
          Deployment.of("good", "p", "m"));
      Deployment bad = Deployment.of("bad", "p", "m");
      for (int i = 0; i < 3; i++) {
        r.onOutcome(bad, false, Duration.ofMillis(5));
      }
      assertThat(r.state("bad").health()).isEqualTo(DeploymentState.Health.OPEN);
      RouteContext ctx = context(Set.of());
      for (int i = 0; i < 2_000; i++) {
        Deployment d = r.select(ctx);
        assertThat(d.id()).as(s.get().toString()).isEqualTo("good");
        r.onOutcome(d, true, Duration.ofMillis(5));
      }
      clock.advance(Duration.ofSeconds(31));
      // Half-open: one probe may go; while it is in flight the deployment is skipped.
      boolean probed = false;
      for (int i = 0; i < 200 && !probed; i++) {
        Deployment d = r.select(ctx);
        if (d.id().equals("bad")) {
          probed = true;
          assertThat(r.state("bad").health()).isEqualTo(DeploymentState.Health.HALF_OPEN);
          for (int j = 0; j < 50; j++) {
            assertThat(r.select(ctx).id()).isEqualTo("good");
          }
          r.onOutcome(d, true, Duration.ofMillis(5));
        } else {
          r.onOutcome(d, true, Duration.ofMillis(5));
        }
      }
      if (probed) {
        assertThat(r.state("bad").health()).isEqualTo(DeploymentState.Health.CLOSED);
      }
    }
  }

  @Test
  void aFailedHalfOpenProbeReopensForTwiceAsLong() {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    DeploymentRouter r = router(RoutingStrategy.weighted(), clock, 5,
        Deployment.of("only", "p", "m"));
    Deployment d = Deployment.of("only", "p", "m");
    for (int i = 0; i < 3; i++) {
      r.onOutcome(d, false, Duration.ZERO);
    }
    RouteContext ctx = context(Set.of());
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> r.select(ctx)))
        .hasMessageContaining("no eligible deployment");
    clock.advance(Duration.ofSeconds(30));
    r.onOutcome(r.select(ctx), false, Duration.ZERO);
    clock.advance(Duration.ofSeconds(59));
    assertThat(org.assertj.core.api.Assertions.catchThrowable(() -> r.select(ctx))).isNotNull();
    clock.advance(Duration.ofSeconds(1));
    assertThat(r.select(ctx).id()).isEqualTo("only");
  }
}
