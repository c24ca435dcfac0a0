package io.pointsman.router;

import io.pointsman.Clock;
import io.pointsman.catalog.Price;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the router knows about one deployment at run time: attempts in flight, latency EWMA,
 * health (closed, open, half-open) and this minute's request and token counts. Strategies read
 * it. Thread-safe: counters are atomic, health changes under a short lock that never spans I/O.
 */
public final class DeploymentState {
  /** The health of a deployment. */
  public enum Health {
    /** In rotation. */
    CLOSED,
    /** Cooling down: receives nothing. */
    OPEN,
    /** Cooled down: admits one probe at a time. */
    HALF_OPEN
  }

  private static final double EWMA_ALPHA = 0.2;

  private final RoutedDeployment spec;
  private final int index;
  /** The share of the RPM cap one request takes, 0 without a cap (a product beats a division). */
  private final double perRequest;
  /** The share of the TPM cap one token takes, 0 without a cap. */
  private final double perToken;
  /** Input plus output price per million tokens of the override, -1 without one. */
  private final long overrideCost;
  private final AtomicInteger inFlight = new AtomicInteger();
  private volatile double latencyEwmaNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private volatile Health health = Health.CLOSED;
  private volatile long openUntilNanos;
  private volatile boolean probeInFlight;
  private int consecutiveFailures;
  private Duration lastOpenFor = Duration.ZERO;
  /**
   * This minute's request and token counts, each one {@link MinuteWindow} word: the minute and
   * the count change together in one compare-and-set, so a thread holding an older minute can
   * never reset a newer one, no increment is lost at a minute boundary, and a cap is checked
   * and taken atomically.
   */
  private final AtomicLong requestsThisMinute = new AtomicLong(MinuteWindow.EMPTY);
  private final AtomicLong tokensThisMinute = new AtomicLong(MinuteWindow.EMPTY);

  DeploymentState(RoutedDeployment spec, int index) {
    this.spec = spec;
    this.index = index;
    this.perRequest = spec.rpmLimit() > 0 ? 1.0 / spec.rpmLimit() : 0;
    this.perToken = spec.tpmLimit() > 0 ? 1.0 / spec.tpmLimit() : 0;
    Price p = spec.deployment().priceOverride();
    this.overrideCost = p == null ? -1 : p.inputPerMillion() + p.outputPerMillion();
  }

  /**
   * Returns the deployment.
   *
   * @return the spec
   */
  public RoutedDeployment spec() {
    return spec;
  }

  int index() {
    return index;
  }

  /**
   * Returns the attempts sent here and not yet finished.
   *
   * @return the count
   */
  public int inFlight() {
    return inFlight.get();
  }

  /**
   * Returns the exponentially weighted mean attempt latency.
   *
   * @return nanoseconds; 0 before the first outcome
   */
  public double latencyEwmaNanos() {
    return latencyEwmaNanos;
  }

  /**
   * Returns the health, as of the last selection or outcome.
   *
   * @return the health
   */
  public Health health() {
    return health;
  }

  /**
   * Returns the share of the RPM and TPM caps left this minute (the smaller of the two).
   *
   * @return 1 without caps, down to 0 when a cap is reached
   */
  public double headroom() {
    // Plain comparisons rather than Math.min/max: no NaN or signed zero can occur here, and
    // usage-headroom selection calls this for every candidate.
    double h = 1.0;
    if (perRequest > 0) {
      double r = 1.0 - MinuteWindow.count(requestsThisMinute.get()) * perRequest;
      if (r < h) {
        h = r;
      }
    }
    if (perToken > 0) {
      double t = 1.0 - MinuteWindow.count(tokensThisMinute.get()) * perToken;
      if (t < h) {
        h = t;
      }
    }
    return h > 0 ? h : 0;
  }

  /** Input plus output price per million tokens of the price override, -1 without one. */
  long overrideCost() {
    return overrideCost;
  }

  /**
   * Whether selection may consider this deployment now; moves OPEN to HALF_OPEN when due. The
   * caller reads the clock once per selection rather than once per deployment.
   *
   * @param now the clock's nano time
   * @param currentMinute {@link #minuteOf(long) minuteOf(now)}
   * @param tokens the call's token bound
   */
  boolean eligible(long now, long currentMinute, long tokens) {
    Health h = health;
    if (h != Health.CLOSED) {
      if (h == Health.OPEN) {
        if (now - openUntilNanos < 0) {
          return false;
        }
        lock.lock();
        try {
          if (health == Health.OPEN && now - openUntilNanos >= 0) {
            health = Health.HALF_OPEN;
            probeInFlight = false;
          }
        } finally {
          lock.unlock();
        }
      }
      if (health == Health.HALF_OPEN && probeInFlight) {
        return false;
      }
      if (health == Health.OPEN) {
        return false;
      }
    }
    if (spec.rpmLimit() > 0 && !MinuteWindow.fits(requestsThisMinute, currentMinute, 1,
        spec.rpmLimit())) {
      return false;
    }
    return spec.tpmLimit() <= 0
        || MinuteWindow.fits(tokensThisMinute, currentMinute, tokens, spec.tpmLimit());
  }

  /**
   * Records a selection: takes the request and its tokens from this minute's caps atomically.
   * Returns false, changing nothing, when a half-open probe slot was taken meanwhile or a cap
   * was reached since {@link #eligible} looked.
   *
   * @param currentMinute {@link #minuteOf(long) minuteOf(now)} of the selection
   * @param tokens the call's token bound
   */
  boolean acquire(long currentMinute, long tokens) {
    boolean probe = false;
    if (health == Health.HALF_OPEN) {
      lock.lock();
      try {
        if (health == Health.HALF_OPEN) {
          if (probeInFlight) {
            return false;
          }
          probeInFlight = true;
          probe = true;
        }
      } finally {
        lock.unlock();
      }
    }
    if (!MinuteWindow.add(requestsThisMinute, currentMinute, 1, spec.rpmLimit())) {
      unprobe(probe);
      return false;
    }
    if (!MinuteWindow.add(tokensThisMinute, currentMinute, tokens, spec.tpmLimit())) {
      MinuteWindow.add(requestsThisMinute, currentMinute, -1, 0);
      unprobe(probe);
      return false;
    }
    inFlight.incrementAndGet();
    return true;
  }

  private void unprobe(boolean probe) {
    if (probe) {
      lock.lock();
      try {
        probeInFlight = false;
      } finally {
        lock.unlock();
      }
    }
  }

  void release(boolean success, Duration latency, Clock clock, Cooldown cooldown) {
    inFlight.updateAndGet(n -> n > 0 ? n - 1 : 0);
    double l = latency.toNanos();
    double prev = latencyEwmaNanos;
    latencyEwmaNanos = prev == 0 ? l : prev + EWMA_ALPHA * (l - prev);
    lock.lock();
    try {
      if (success) {
        consecutiveFailures = 0;
        if (health == Health.HALF_OPEN) {
          health = Health.CLOSED;
          lastOpenFor = Duration.ZERO;
        }
        probeInFlight = false;
        return;
      }
      consecutiveFailures++;
      if (health == Health.HALF_OPEN) {
        Duration next = lastOpenFor.multipliedBy(2);
        open(clock, next.compareTo(cooldown.maxOpenFor()) > 0 ? cooldown.maxOpenFor() : next);
      } else if (health == Health.CLOSED
          && consecutiveFailures >= cooldown.failureThreshold()) {
        open(clock, cooldown.openFor());
      }
    } finally {
      lock.unlock();
    }
  }

  private void open(Clock clock, Duration period) {
    health = Health.OPEN;
    probeInFlight = false;
    lastOpenFor = period;
    openUntilNanos = clock.nanoTime() + period.toNanos();
  }

  static long minuteOf(long nanoTime) {
    return Math.floorDiv(nanoTime, 60_000_000_000L);
  }


  @Override
  public String toString() {
    return "DeploymentState(" + spec.id() + ", " + health + ", inFlight " + inFlight() + ")";
  }
}
