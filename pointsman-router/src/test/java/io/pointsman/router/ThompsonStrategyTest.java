package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.data.Offset.offset;

import io.pointsman.spi.Deployment;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class ThompsonStrategyTest {

  @Test
  void gaussianDrawsFollowTheStandardNormal() {
    SplittableRandom r = new SplittableRandom(1);
    int n = 1_000_000;
    double sum = 0;
    double squares = 0;
    double fourths = 0;
    int[] below = new int[5];
    double[] at = {-3, -1, 0, 1, 2};
    int beyond35 = 0;
    for (int i = 0; i < n; i++) {
      double x = ThompsonStrategy.gaussian(r);
      sum += x;
      squares += x * x;
      fourths += x * x * x * x;
      for (int k = 0; k < at.length; k++) {
        if (x < at[k]) {
          below[k]++;
        }
      }
      if (x > 3.5) {
        beyond35++;
      }
    }
    assertThat(sum / n).isCloseTo(0, offset(0.005));
    assertThat(squares / n).isCloseTo(1, offset(0.005));
    assertThat(fourths / n).as("kurtosis").isCloseTo(3, offset(0.05));
    double[] cdf = {0.0013499, 0.1586553, 0.5, 0.8413447, 0.9772499};
    for (int k = 0; k < at.length; k++) {
      assertThat(below[k] / (double) n).as("P(X < " + at[k] + ")").isCloseTo(cdf[k],
          offset(0.002));
    }
    // Beyond the base layer's start (3.44): drawn by the tail method. P(X > 3.5) = 2.326e-4.
    assertThat(beyond35 / (double) n).isCloseTo(2.326e-4, offset(0.5e-4));
  }

  private static DeploymentState[] states(int n) {
    DeploymentState[] s = new DeploymentState[n];
    for (int i = 0; i < n; i++) {
      s[i] = new DeploymentState(RoutedDeployment.of(Deployment.of("d" + i, "p", "m")), i);
    }
    return s;
  }

  /** How often arm 1 wins out of 1,000 choices between arm 0 and arm 1. */
  private static int arm1Wins(RoutingStrategy s, DeploymentState[] c) {
    SplittableRandom r = new SplittableRandom(3);
    int wins = 0;
    for (int i = 0; i < 1_000; i++) {
      wins += s.choose(c, 2, null, r);
    }
    return wins;
  }

  @Test
  void outcomesReachSelectionOnlyWhenASnapshotIsBuilt() {
    List<Runnable> queued = new ArrayList<>();
    FakeClock clock = new FakeClock(Instant.EPOCH);
    RoutingStrategy s = RoutingStrategy.adaptive(Duration.ofMillis(100), queued::add,
        Duration.ofMillis(10), clock);
    DeploymentState[] c = states(2);
    for (int i = 0; i < 50; i++) {
      s.observe(c[1], true, Duration.ofMillis(5));
      clock.advance(Duration.ofMillis(9).dividedBy(50));
    }
    assertThat(queued).as("less than refreshAfter since the start").isEmpty();
    clock.advance(Duration.ofMillis(1));
    s.observe(c[1], true, Duration.ofMillis(5));
    assertThat(queued).hasSize(1);
    // Pending: further outcomes do not queue a second build, however late.
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofMillis(10));
      s.observe(c[0], false, Duration.ofMillis(5));
    }
    assertThat(queued).hasSize(1);
    // Nothing learnt until the build runs: both arms still draw from the uniform prior.
    assertThat(arm1Wins(s, c)).isBetween(400, 600);
    queued.remove(0).run();
    assertThat(arm1Wins(s, c)).isEqualTo(1_000);
    // The next build waits for refreshAfter after this one.
    s.observe(c[0], false, Duration.ofMillis(5));
    assertThat(queued).isEmpty();
    clock.advance(Duration.ofMillis(10));
    s.observe(c[0], false, Duration.ofMillis(5));
    assertThat(queued).hasSize(1);
  }

  @Test
  void aSlowOrFailedAttemptCountsAgainstTheArm() {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    RoutingStrategy s = RoutingStrategy.adaptive(Duration.ofMillis(100), Runnable::run,
        Duration.ofMillis(1), clock);
    DeploymentState[] c = states(2);
    for (int i = 0; i < 100; i++) {
      clock.advance(Duration.ofMillis(1));
      s.observe(c[0], true, Duration.ofMillis(5));
      s.observe(c[1], i % 2 == 0, Duration.ofMillis(i % 4 < 2 ? 5 : 500));
    }
    assertThat(arm1Wins(s, c)).isZero();
  }

  @Test
  void aRejectedBuildIsRetriedOnALaterOutcome() {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    boolean[] reject = {true};
    RoutingStrategy s = RoutingStrategy.adaptive(Duration.ofMillis(100), task -> {
      if (reject[0]) {
        throw new RejectedExecutionException("full");
      }
      task.run();
    }, Duration.ofMillis(1), clock);
    DeploymentState[] c = states(2);
    for (int i = 0; i < 50; i++) {
      clock.advance(Duration.ofMillis(1));
      s.observe(c[0], false, Duration.ofMillis(5));
      s.observe(c[1], true, Duration.ofMillis(5));
    }
    assertThat(arm1Wins(s, c)).isBetween(400, 600);
    reject[0] = false;
    s.observe(c[1], true, Duration.ofMillis(5));
    assertThat(arm1Wins(s, c)).isEqualTo(1_000);
  }

  @Test
  void theRefreshIntervalIsValidated() {
    FakeClock clock = new FakeClock(Instant.EPOCH);
    assertThatThrownBy(() -> RoutingStrategy.adaptive(Duration.ofMillis(1), Runnable::run,
        Duration.ZERO, clock)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RoutingStrategy.adaptive(Duration.ofMillis(1), Runnable::run,
        Duration.ofMillis(-1), clock)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> RoutingStrategy.adaptive(Duration.ofMillis(1), Runnable::run,
        Duration.ofMillis(1), null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("clock");
  }
}
