package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.RouteContext;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-minute RPM/TPM caps: a stale minute never resets a newer one, caps are atomic. */
class MinuteRolloverTest {
  private static final long MINUTE = 60_000_000_000L;

  /** A clock whose nano time a test sets, backwards too: what a thread that read it late sees. */
  private static final class SettableClock implements Clock {
    volatile long nanos;

    @Override
    public Instant now() {
      return Instant.EPOCH;
    }

    @Override
    public long nanoTime() {
      return nanos;
    }
  }

  private static DeploymentRouter capped(Clock clock, long rpm, long tpm) {
    return DeploymentRouter.builder().clock(clock)
        .deployment(RoutedDeployment.of(Deployment.of("a", "p", "m")).withLimits(rpm, tpm))
        .build();
  }

  private static boolean admitted(DeploymentRouter router, RouteContext ctx) {
    try {
      router.select(ctx);
      return true;
    } catch (PointsmanException e) {
      return false;
    }
  }

  @Test
  void aSelectionCarryingAnOlderMinuteNeverResetsTheCurrentMinute() {
    SettableClock clock = new SettableClock();
    DeploymentRouter router = capped(clock, 10, 0);
    RouteContext ctx = RouterSimulationTest.context(Set.of());
    int admitted = 0;
    clock.nanos = 5 * MINUTE + 1;
    for (int i = 0; i < 10; i++) {
      admitted += admitted(router, ctx) ? 1 : 0;
    }
    // Threads that read the clock just before minute 5 began, interleaved with current ones.
    for (int i = 0; i < 10; i++) {
      clock.nanos = 5 * MINUTE - 1;
      admitted += admitted(router, ctx) ? 1 : 0;
      clock.nanos = 5 * MINUTE + 2;
      admitted += admitted(router, ctx) ? 1 : 0;
    }
    assertThat(admitted).as("admitted in minute 5 under an RPM cap of 10").isEqualTo(10);
    // The next minute starts afresh.
    clock.nanos = 6 * MINUTE;
    assertThat(admitted(router, ctx)).isTrue();
  }

  @Test
  void concurrentSelectionsNeverTakeMoreThanTheCap() throws Exception {
    SettableClock clock = new SettableClock();
    clock.nanos = 7 * MINUTE;
    DeploymentRouter router = capped(clock, 10, 0);
    RouteContext ctx = RouterSimulationTest.context(Set.of());
    int threads = 30;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      for (int round = 0; round < 20; round++) {
        clock.nanos = (8 + round) * MINUTE;
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger admitted = new AtomicInteger();
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
          done.add(pool.submit(() -> {
            go.await();
            if (admitted(router, ctx)) {
              admitted.incrementAndGet();
            }
            return null;
          }));
        }
        go.countDown();
        for (Future<?> f : done) {
          f.get(30, TimeUnit.SECONDS);
        }
        assertThat(admitted.get()).as("round %d", round).isEqualTo(10);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aTokenCapRefusalGivesTheRequestBackAndAHugeBoundNeverWraps() {
    SettableClock clock = new SettableClock();
    clock.nanos = 3 * MINUTE;
    DeploymentRouter router = capped(clock, 2, 1_000_000);
    RouteContext ctx = RouterSimulationTest.context(Set.of());
    assertThat(admitted(router, ctx)).isTrue();
    long tokens = ctx.model().inputTokens() + ctx.model().maxOutputTokens();
    // Fill the token cap to just below one more call with a deployment of its own state.
    DeploymentState state = router.state("a");
    long minute = DeploymentState.minuteOf(clock.nanos);
    assertThat(state.acquire(minute, 1_000_000 - 2 * tokens + 1)).isTrue();
    // The RPM cap of 2 is reached now, so nothing more fits either way.
    assertThat(admitted(router, ctx)).isFalse();
    // A new minute: one call fits, and a bound of Long.MAX_VALUE tokens is refused, not wrapped.
    clock.nanos = 4 * MINUTE;
    minute = DeploymentState.minuteOf(clock.nanos);
    assertThat(state.acquire(minute, Long.MAX_VALUE)).isFalse();
    assertThat(state.headroom()).isGreaterThan(0);
    assertThat(admitted(router, ctx)).isTrue();
  }
}
