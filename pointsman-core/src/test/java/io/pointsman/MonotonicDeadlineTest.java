package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.Usage;
import io.pointsman.spi.ProviderException;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Finding: deadlines were measured on the wall clock, so an NTP step shortened or lengthened
 * them. They are now kept on the monotonic clock ({@link Clock#nanoTime()}).
 */
class MonotonicDeadlineTest {

  /** A fake clock whose wall time can also be stepped on its own, as NTP does. */
  static final class SteppingClock implements Clock {
    private final Instant origin = Instant.parse("2025-03-30T00:59:00Z");
    private final AtomicLong monotonic = new AtomicLong(1_000_000_000L);
    private final AtomicLong wallOffset = new AtomicLong();

    void advance(Duration d) {
      monotonic.addAndGet(d.toNanos());
    }

    void stepWall(Duration d) {
      wallOffset.addAndGet(d.toNanos());
    }

    @Override
    public Instant now() {
      return origin.plusNanos(monotonic.get() + wallOffset.get());
    }

    @Override
    public long nanoTime() {
      return monotonic.get();
    }
  }

  private static CallOptions withTimeout(Duration timeout) {
    return CallOptions.builder(BoundaryRig.KEY).timeout(timeout).build();
  }

  @Test
  void aWallClockStepForwardDoesNotShortenTheDeadline() {
    BoundaryRig rig = new BoundaryRig();
    SteppingClock clock = new SteppingClock();
    rig.script = (call, sink, attempt) -> {
      if (attempt == 1) {
        clock.advance(Duration.ofSeconds(1));
        clock.stepWall(Duration.ofHours(1));
        throw ProviderException.answered(503, "overloaded", null);
      }
      return BoundaryRig.reply("ok", Usage.of(9, 1));
    };

    ChatResult result = rig.builder().clock(clock).build().chat(BoundaryRig.ask("hi"),
        withTimeout(Duration.ofSeconds(30)));

    assertThat(result.attempts()).isEqualTo(2);
    // The second attempt is told the 29 seconds left, anchored to the stepped wall clock.
    assertThat(rig.calls.get(1).deadline()).isEqualTo(clock.now().plusSeconds(29));
  }

  @Test
  void aWallClockStepBackDoesNotLengthenTheDeadline() {
    BoundaryRig rig = new BoundaryRig();
    SteppingClock clock = new SteppingClock();
    rig.script = (call, sink, attempt) -> {
      clock.advance(Duration.ofSeconds(31));
      clock.stepWall(Duration.ofHours(-1));
      throw ProviderException.answered(503, "overloaded", null);
    };

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.builder().clock(clock).build().chat(BoundaryRig.ask("hi"),
            withTimeout(Duration.ofSeconds(30))));

    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(e.getMessage()).contains("deadline passed before attempt 2");
    assertThat(rig.calls).hasSize(1);
  }

  @Test
  void theFirstAttemptIsToldTheWholeTimeout() {
    BoundaryRig rig = new BoundaryRig();
    SteppingClock clock = new SteppingClock();
    clock.stepWall(Duration.ofMinutes(-7));

    rig.builder().clock(clock).build().chat(BoundaryRig.ask("hi"),
        withTimeout(Duration.ofSeconds(30)));

    assertThat(rig.calls.get(0).deadline()).isEqualTo(clock.now().plusSeconds(30));
  }
}
