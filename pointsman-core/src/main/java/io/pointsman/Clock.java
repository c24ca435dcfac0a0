package io.pointsman;

import java.time.Instant;

/**
 * The source of wall time and of monotonic time for everything in a gateway, injected so that
 * tests are deterministic. Implementations must be thread-safe and fast.
 */
public interface Clock {
  /**
   * Returns the current wall-clock instant.
   *
   * @return now
   */
  Instant now();

  /**
   * Returns a monotonic nanosecond reading, only meaningful as a difference.
   *
   * @return nanoseconds
   */
  long nanoTime();

  /**
   * Returns the system clock.
   *
   * @return a clock backed by {@link Instant#now()} and {@link System#nanoTime()}
   */
  static Clock system() {
    return SystemClock.INSTANCE;
  }
}

/** The system clock. */
enum SystemClock implements Clock {
  INSTANCE;

  @Override
  public Instant now() {
    return Instant.now();
  }

  @Override
  public long nanoTime() {
    return System.nanoTime();
  }
}
