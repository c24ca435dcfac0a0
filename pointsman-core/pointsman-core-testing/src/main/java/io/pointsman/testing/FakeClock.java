package io.pointsman.testing;

import io.pointsman.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A clock that moves only when told. Wall time and monotonic time advance together;
 * {@link #stepWall} moves the wall time alone, as an NTP step does. Thread-safe.
 */
public final class FakeClock implements Clock {
  private final Instant origin;
  private final AtomicLong elapsedNanos = new AtomicLong();
  private final AtomicLong wallStepNanos = new AtomicLong();

  /**
   * Creates a clock at the given instant.
   *
   * @param start the initial wall time
   */
  public FakeClock(Instant start) {
    this.origin = Objects.requireNonNull(start, "start");
  }

  /**
   * Moves the clock forward.
   *
   * @param amount a non-negative duration
   * @throws IllegalArgumentException if amount is negative
   */
  public void advance(Duration amount) {
    if (amount.isNegative()) {
      throw new IllegalArgumentException("a clock does not go back: " + amount);
    }
    elapsedNanos.addAndGet(amount.toNanos());
  }

  /**
   * Steps the wall time back or forward without moving the monotonic time, as an NTP
   * correction or a manual clock change does.
   *
   * @param amount the step, negative to go back
   */
  public void stepWall(Duration amount) {
    wallStepNanos.addAndGet(amount.toNanos());
  }

  @Override
  public Instant now() {
    return origin.plusNanos(elapsedNanos.get() + wallStepNanos.get());
  }

  @Override
  public long nanoTime() {
    return elapsedNanos.get();
  }
}
