package io.pointsman.router;

import io.pointsman.Clock;
import io.pointsman.spi.RouteContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.random.RandomGenerator;

/**
 * Thompson sampling over Beta posteriors; see {@link RoutingStrategy#adaptive}.
 *
 * <p>An outcome only increments its deployment's success or failure counter: no allocation, no
 * queue. Selection reads an immutable snapshot of the posteriors, rebuilt from the counters on
 * the updates executor when an outcome arrives {@code refreshAfter} or more after the last
 * rebuild; at most one rebuild is pending at a time. A rebuild reads the running totals, so it
 * never merges with the previous snapshot. The rule bounds the background work to one rebuild
 * (and one hand-off to the executor) per {@code refreshAfter} however many calls arrive, while
 * at low rates every outcome is folded in. Outcomes already lag their selection by the
 * attempt's own latency; a snapshot at most {@code refreshAfter} older adds little to that.
 *
 * <p>Sampling: each arm is drawn from the normal distribution with the mean and variance of its
 * Beta(1 + good, 1 + bad) posterior, both precomputed in the snapshot: one standard normal draw
 * (ziggurat) per arm. A draw only ranks arms, so one outside [0, 1] does no harm. Exact Beta
 * draws (two Gamma samples each) were tried for arms with fewer than 30 outcomes, where the Beta
 * is skewed, and dropped: a deployment the strategy has learnt to avoid stays at a few outcomes
 * for good, so the exact path ran for it on every selection, which made selection about three
 * times slower at 128 deployments in {@code RouterSelectBenchmark}, while the seeded simulations
 * of {@code RouterSimulationTest} converged as fast with normal draws throughout.
 */
final class ThompsonStrategy implements RoutingStrategy {
  /** Doubles per arm in the snapshot: mean, standard deviation. */
  private static final int STRIDE = 2;
  /** Mean of the uniform prior, Beta(1, 1), for an arm the snapshot does not know yet. */
  private static final double PRIOR_MEAN = 0.5;
  /** Standard deviation of the uniform prior. */
  private static final double PRIOR_SD = Math.sqrt(1.0 / 12);

  private final long targetNanos;
  private final Executor updates;
  private final long refreshAfterNanos;
  private final Clock clock;
  private final Runnable rebuildTask = this::rebuild;
  private final ReentrantLock growing = new ReentrantLock();
  /** Indexed by {@link DeploymentState#index()}; grows, never shrinks; arms are never replaced. */
  private volatile Arm[] arms = new Arm[0];
  private final AtomicBoolean rebuildPending = new AtomicBoolean();
  private volatile long builtAtNanos;
  /** {@link #STRIDE} doubles per arm; replaced whole, never mutated after publication. */
  private volatile double[] snapshot = new double[0];

  ThompsonStrategy(Duration latencyTarget, Executor updates, Duration refreshAfter,
      Clock clock) {
    this.targetNanos = Objects.requireNonNull(latencyTarget, "latencyTarget").toNanos();
    this.updates = Objects.requireNonNull(updates, "updates");
    Objects.requireNonNull(refreshAfter, "refreshAfter");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (refreshAfter.isNegative() || refreshAfter.isZero()) {
      throw new IllegalArgumentException("refreshAfter must be positive: " + refreshAfter);
    }
    this.refreshAfterNanos = refreshAfter.toNanos();
    this.builtAtNanos = clock.nanoTime();
  }

  /** One deployment's outcome counts. */
  private static final class Arm {
    final LongAdder good = new LongAdder();
    final LongAdder bad = new LongAdder();
  }

  @Override
  public int choose(DeploymentState[] c, int n, RouteContext ctx, RandomGenerator random) {
    double[] s = snapshot;
    int best = 0;
    double bestDraw = Double.NEGATIVE_INFINITY;
    for (int i = 0; i < n; i++) {
      int o = STRIDE * c[i].index();
      double draw = o + STRIDE <= s.length
          ? s[o] + s[o + 1] * gaussian(random)
          : PRIOR_MEAN + PRIOR_SD * gaussian(random);
      if (draw > bestDraw) {
        best = i;
        bestDraw = draw;
      }
    }
    return best;
  }

  @Override
  public void observe(DeploymentState d, boolean success, Duration latency) {
    Arm arm = arm(d.index());
    if (success && latency.toNanos() <= targetNanos) {
      arm.good.increment();
    } else {
      arm.bad.increment();
    }
    if (!rebuildPending.get() && clock.nanoTime() - builtAtNanos >= refreshAfterNanos
        && rebuildPending.compareAndSet(false, true)) {
      try {
        updates.execute(rebuildTask);
      } catch (RuntimeException e) {
        // A rejected rebuild only delays learning; selection keeps using the last snapshot.
        rebuildPending.set(false);
      }
    }
  }

  private Arm arm(int index) {
    Arm[] a = arms;
    if (index < a.length) {
      return a[index];
    }
    growing.lock();
    try {
      a = arms;
      if (index >= a.length) {
        Arm[] grown = Arrays.copyOf(a, Math.max(index + 1, 2 * a.length));
        for (int i = a.length; i < grown.length; i++) {
          grown[i] = new Arm();
        }
        arms = grown;
        a = grown;
      }
      return a[index];
    } finally {
      growing.unlock();
    }
  }

  private void rebuild() {
    try {
      builtAtNanos = clock.nanoTime();
      Arm[] a = arms;
      double[] next = new double[STRIDE * a.length];
      for (int k = 0; k < a.length; k++) {
        double alpha = 1 + a[k].good.sum();
        double beta = 1 + a[k].bad.sum();
        double total = alpha + beta;
        next[STRIDE * k] = alpha / total;
        next[STRIDE * k + 1] = Math.sqrt(alpha * beta / (total * total * (total + 1)));
      }
      snapshot = next;
    } finally {
      rebuildPending.set(false);
    }
  }

  /**
   * A standard normal draw by Marsaglia and Tsang's ziggurat (128 layers): usually one
   * {@code nextLong} (7 bits pick the layer, 32 others the point), a table read and a product.
   * Not {@code r.nextGaussian()}: on JDK 17 {@link java.util.concurrent.ThreadLocalRandom}
   * inherits {@code Random.nextGaussian}, which is synchronized on the one shared instance and
   * takes two uniforms, a logarithm and a square root per pair (about four times slower here).
   */
  static double gaussian(RandomGenerator r) {
    while (true) {
      long bits = r.nextLong();
      int layer = (int) bits & 127;
      // The high 32 bits, signed; independent of the layer bits.
      long point = bits >> 32;
      if (Math.abs(point) < ZIG_K[layer]) {
        return point * ZIG_W[layer];
      }
      if (layer == 0) {
        // The base layer's tail beyond ZIG_R, by Marsaglia's exponential method.
        double x;
        double y;
        do {
          x = -Math.log(uniformOpen(r)) / ZIG_R;
          y = -Math.log(uniformOpen(r));
        } while (y + y < x * x);
        return point > 0 ? ZIG_R + x : -ZIG_R - x;
      }
      double x = point * ZIG_W[layer];
      if (ZIG_F[layer] + r.nextDouble() * (ZIG_F[layer - 1] - ZIG_F[layer])
          < Math.exp(-0.5 * x * x)) {
        return x;
      }
    }
  }

  /** A uniform in (0, 1]: never 0, whose logarithm is infinite. */
  private static double uniformOpen(RandomGenerator r) {
    return 1 - r.nextDouble();
  }

  /** Where the base layer's tail starts. */
  private static final double ZIG_R = 3.442619855899;
  /** Per layer: the bound below which a 32-bit point lies inside the normal curve. */
  private static final double[] ZIG_K = new double[128];
  /** Per layer: the scale from a 32-bit point to x. */
  private static final double[] ZIG_W = new double[128];
  /** Per layer: the density exp(-x²/2) at the layer's edge. */
  private static final double[] ZIG_F = new double[128];

  static {
    // Marsaglia and Tsang, "The Ziggurat Method for Generating Random Variables" (2000).
    double m1 = 0x1.0p31;
    double v = 9.91256303526217e-3;
    double dn = ZIG_R;
    double tn = dn;
    double q = v / Math.exp(-0.5 * dn * dn);
    ZIG_K[0] = dn / q * m1;
    ZIG_K[1] = 0;
    ZIG_W[0] = q / m1;
    ZIG_W[127] = dn / m1;
    ZIG_F[0] = 1;
    ZIG_F[127] = Math.exp(-0.5 * dn * dn);
    for (int i = 126; i >= 1; i--) {
      dn = Math.sqrt(-2 * Math.log(v / dn + Math.exp(-0.5 * dn * dn)));
      ZIG_K[i + 1] = dn / tn * m1;
      tn = dn;
      ZIG_F[i] = Math.exp(-0.5 * dn * dn);
      ZIG_W[i] = dn / m1;
    }
  }

  @Override
  public String toString() {
    return "adaptive(target " + Duration.ofNanos(targetNanos) + ", refresh after "
        + Duration.ofNanos(refreshAfterNanos) + ")";
  }
}
