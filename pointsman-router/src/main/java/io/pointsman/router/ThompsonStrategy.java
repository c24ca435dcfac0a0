package io.pointsman.router;

import io.pointsman.spi.RouteContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.random.RandomGenerator;

/** Thompson sampling over Beta posteriors; see {@link RoutingStrategy#adaptive}. */
final class ThompsonStrategy implements RoutingStrategy {
  private final long targetNanos;
  private final Executor updates;
  private final ConcurrentLinkedQueue<long[]> pending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean draining = new AtomicBoolean();
  /** alpha at 2i, beta at 2i+1; replaced whole, never mutated after publication. */
  private volatile double[] snapshot = new double[0];

  ThompsonStrategy(Duration latencyTarget, Executor updates) {
    this.targetNanos = Objects.requireNonNull(latencyTarget, "latencyTarget").toNanos();
    this.updates = Objects.requireNonNull(updates, "updates");
  }

  @Override
  public int choose(DeploymentState[] c, int n, RouteContext ctx, RandomGenerator random) {
    double[] s = snapshot;
    int best = 0;
    double bestDraw = -1;
    for (int i = 0; i < n; i++) {
      int k = c[i].index();
      double a = 2 * k + 1 < s.length ? s[2 * k] : 1;
      double b = 2 * k + 1 < s.length ? s[2 * k + 1] : 1;
      double draw = beta(a, b, random);
      if (draw > bestDraw) {
        best = i;
        bestDraw = draw;
      }
    }
    return best;
  }

  @Override
  public void observe(DeploymentState d, boolean success, Duration latency) {
    pending.add(new long[] {d.index(), success && latency.toNanos() <= targetNanos ? 1 : 0});
    if (draining.compareAndSet(false, true)) {
      try {
        updates.execute(this::drain);
      } catch (RuntimeException e) {
        // A rejected update only delays learning; selection keeps using the last snapshot.
        draining.set(false);
      }
    }
  }

  private void drain() {
    try {
      double[] s = snapshot;
      double[] next = null;
      long[] o;
      while ((o = pending.poll()) != null) {
        if (next == null) {
          next = s.clone();
        }
        int k = (int) o[0];
        if (2 * k + 1 >= next.length) {
          int old = next.length;
          next = Arrays.copyOf(next, 2 * k + 2);
          Arrays.fill(next, old, next.length, 1.0);
        }
        next[2 * k + (o[1] == 1 ? 0 : 1)] += 1;
      }
      if (next != null) {
        snapshot = next;
      }
    } finally {
      draining.set(false);
    }
    if (!pending.isEmpty() && draining.compareAndSet(false, true)) {
      updates.execute(this::drain);
    }
  }

  static double beta(double a, double b, RandomGenerator r) {
    double x = gamma(a, r);
    double y = gamma(b, r);
    return x / (x + y);
  }

  /** Marsaglia and Tsang's method; shape at least 1 here (the prior is Beta(1, 1)). */
  private static double gamma(double shape, RandomGenerator r) {
    double d = shape - 1.0 / 3;
    double c = 1 / Math.sqrt(9 * d);
    while (true) {
      double x = r.nextGaussian();
      double v = 1 + c * x;
      if (v <= 0) {
        continue;
      }
      v = v * v * v;
      double u = r.nextDouble();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) {
        return d * v;
      }
    }
  }
}
