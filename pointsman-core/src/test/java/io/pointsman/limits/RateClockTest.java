package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** In-process rates: huge amounts neither wrap nor reset a rate; wall-clock steps do neither. */
class RateClockTest {
  private static final Instant START = Instant.parse("2024-05-01T10:00:00Z");

  private static Admission tokens(String id, long input, long output, Instant at) {
    Identity identity = new Identity("k1", null, "t1", "o1", Set.of(), Grant.all(), Grant.all(),
        Grant.all());
    return new Admission(id, identity, Set.of(), Admissions.MODEL, input, output, 1, at);
  }

  private static void assertRefused(InMemoryLimiter limiter, Admission a, String rule) {
    assertThatThrownBy(() -> limiter.reserve(a)).isInstanceOfSatisfying(PointsmanException.class,
        e -> {
          assertThat(e.status()).isEqualTo(Status.TOO_MANY_REQUESTS);
          assertThat(e.rule()).isEqualTo(rule);
        });
  }

  @Test
  void aHugeTokenAmountIsRefusedAndTheRateDoesNotReset() {
    FakeClock clock = new FakeClock(START);
    InMemoryLimiter limiter = InMemoryLimiter.builder().tokensPerMinute(Scope.key("k1"), 1_000)
        .clock(clock).build();
    limiter.reserve(tokens("e1", 600, 300, clock.now())).release();
    // Times the 60,000 µs emission interval these wrap a long (once past zero, once twice over);
    // the last is the largest amount a counter takes.
    for (long huge : new long[] {Long.MAX_VALUE / 60_000 + 1, Long.MAX_VALUE / 30_000 + 1,
        (1L << 53) - 1}) {
      assertRefused(limiter, tokens("h" + huge, huge - 1, 1, clock.now()), "tpm:key:k1");
    }
    // The 900 tokens taken still count: 100 fit, 101 do not.
    assertRefused(limiter, tokens("e2", 100, 1, clock.now()), "tpm:key:k1");
    limiter.reserve(tokens("e3", 50, 50, clock.now())).release();
  }

  @Test
  void aWallClockStepBackDoesNotStretchTheWindow() {
    FakeClock clock = new FakeClock(START);
    InMemoryLimiter limiter = InMemoryLimiter.builder().requestsPerMinute(Scope.key("k1"), 3)
        .clock(clock).build();
    for (int i = 0; i < 3; i++) {
      limiter.reserve(tokens("e" + i, 1, 1, clock.now())).release();
    }
    assertRefused(limiter, tokens("e3", 1, 1, clock.now()), "rpm:key:k1");
    clock.stepWall(Duration.ofHours(-1));
    // One request comes back every 20 s of elapsed time, whatever the wall clock says.
    clock.advance(Duration.ofSeconds(20));
    limiter.reserve(tokens("e4", 1, 1, clock.now())).release();
    assertRefused(limiter, tokens("e5", 1, 1, clock.now()), "rpm:key:k1");
  }

  @Test
  void aWallClockStepForwardDoesNotResetTheWindow() {
    FakeClock clock = new FakeClock(START);
    InMemoryLimiter limiter = InMemoryLimiter.builder().requestsPerMinute(Scope.key("k1"), 3)
        .clock(clock).build();
    for (int i = 0; i < 3; i++) {
      limiter.reserve(tokens("e" + i, 1, 1, clock.now())).release();
    }
    clock.stepWall(Duration.ofHours(1));
    assertRefused(limiter, tokens("e3", 1, 1, clock.now()), "rpm:key:k1");
    clock.advance(Duration.ofSeconds(19));
    assertRefused(limiter, tokens("e4", 1, 1, clock.now()), "rpm:key:k1");
    clock.advance(Duration.ofSeconds(1));
    limiter.reserve(tokens("e5", 1, 1, clock.now())).release();
  }
}
