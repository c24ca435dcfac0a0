package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.spi.Deployment;
import io.pointsman.spi.RouteContext;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class DeploymentRouterTest {

  /** Prefers "a"; on its first call, selects once more from inside, as a racing call would. */
  private static final class RacingStrategy implements RoutingStrategy {
    DeploymentRouter router;
    RouteContext context;
    boolean raced;
    final List<String> nested = new ArrayList<>();
    final List<List<String>> seen = new ArrayList<>();

    @Override
    public int choose(DeploymentState[] c, int n, RouteContext ctx, RandomGenerator r) {
      List<String> ids = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ids.add(c[i].spec().id());
      }
      seen.add(ids);
      if (!raced) {
        raced = true;
        nested.add(router.select(context).id());
      }
      int a = ids.indexOf("a");
      return a >= 0 ? a : 0;
    }
  }

  @Test
  void aHalfOpenProbeTakenByAnotherCallSendsThisOneElsewhereAndLeavesTheDeploymentsIntact() {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    RacingStrategy strategy = new RacingStrategy();
    strategy.raced = true;
    DeploymentRouter router = DeploymentRouter.builder().strategy(strategy).clock(clock)
        .random(new SplittableRandom(1))
        .cooldown(new Cooldown(1, Duration.ofSeconds(10), Duration.ofMinutes(1)))
        .deployment(Deployment.of("a", "p", "m")).deployment(Deployment.of("b", "p", "m"))
        .deployment(Deployment.of("c", "p", "m")).build();
    RouteContext ctx = RouterSimulationTest.context(Set.of());
    strategy.router = router;
    strategy.context = ctx;
    router.onOutcome(Deployment.of("a", "p", "m"), false, Duration.ofMillis(1));
    clock.advance(Duration.ofSeconds(10));

    strategy.raced = false;
    Deployment outer = router.select(ctx);

    // The nested call took a's only probe slot; the outer call then chose among b and c.
    assertThat(strategy.nested).containsExactly("a");
    assertThat(outer.id()).isEqualTo("c");
    assertThat(strategy.seen).containsExactly(List.of("a", "b", "c"), List.of("a", "b", "c"),
        List.of("c", "b"));
    // The probe succeeds: a is closed again and the router still knows all three, in order.
    router.onOutcome(Deployment.of("a", "p", "m"), true, Duration.ofMillis(1));
    assertThat(router.state("a").health()).isEqualTo(DeploymentState.Health.CLOSED);
    strategy.seen.clear();
    assertThat(router.select(ctx).id()).isEqualTo("a");
    assertThat(strategy.seen).containsExactly(List.of("a", "b", "c"));
  }

  @Test
  void aDeploymentThatFailedInThisCallIsLeftOutUntilNoOtherRemains() {
    DeploymentRouter router = DeploymentRouter.builder().strategy(RoutingStrategy.lowestCost())
        .deployment(Deployment.of("a", "p", "m")).deployment(Deployment.of("b", "p", "m"))
        .build();
    assertThat(router.select(RouterSimulationTest.context(Set.of("a"))).id()).isEqualTo("b");
    assertThat(router.select(RouterSimulationTest.context(Set.of("b"))).id()).isEqualTo("a");
    assertThat(router.select(RouterSimulationTest.context(Set.of("a", "b"))).id())
        .isEqualTo("a");
  }
}
