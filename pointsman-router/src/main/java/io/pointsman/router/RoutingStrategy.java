package io.pointsman.router;

import io.pointsman.Clock;
import io.pointsman.catalog.Price;
import io.pointsman.spi.RouteContext;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.random.RandomGenerator;

/**
 * Picks one of the eligible deployments. The router has already removed cooled, capped and
 * (where others remain) already-failed deployments, so a strategy only ranks. Implementations
 * must be thread-safe, must not block and must not allocate per call where avoidable:
 * selection is on every request's path.
 */
public interface RoutingStrategy {
  /**
   * Chooses a candidate.
   *
   * @param candidates the eligible deployments in {@code [0, count)}; never empty. Read-only:
   *     it may be the router's own array, so a strategy must not write into it
   * @param count how many entries are valid
   * @param context the call and attempt
   * @param random the random source for this call
   * @return an index in {@code [0, count)}
   */
  int choose(DeploymentState[] candidates, int count, RouteContext context,
      RandomGenerator random);

  /**
   * Learns an attempt's outcome. Must be fast and must not throw. The default does nothing.
   *
   * @param deployment the deployment used
   * @param success whether it answered successfully
   * @param latency how long the attempt took
   */
  default void observe(DeploymentState deployment, boolean success, Duration latency) {}

  /**
   * Weighted random: each candidate with probability weight / total weight.
   *
   * @return the strategy
   */
  static RoutingStrategy weighted() {
    return (c, n, ctx, random) -> {
      long total = 0;
      for (int i = 0; i < n; i++) {
        total += c[i].spec().weight();
      }
      long pick = random.nextLong(total);
      for (int i = 0; i < n; i++) {
        pick -= c[i].spec().weight();
        if (pick < 0) {
          return i;
        }
      }
      return n - 1;
    };
  }

  /**
   * Least busy: the candidate with the fewest attempts in flight; ties broken at random.
   *
   * @return the strategy
   */
  static RoutingStrategy leastBusy() {
    return (c, n, ctx, random) -> {
      int best = 0;
      int bestLoad = Integer.MAX_VALUE;
      int ties = 0;
      for (int i = 0; i < n; i++) {
        int load = c[i].inFlight();
        if (load < bestLoad) {
          best = i;
          bestLoad = load;
          ties = 1;
        } else if (load == bestLoad) {
          ties++;
        }
      }
      if (ties == 1) {
        return best;
      }
      // One draw among the tied candidates, then a second walk to find it: cheaper than a
      // draw per tie. Loads that changed meanwhile leave the first least-loaded one.
      int pick = random.nextInt(ties);
      for (int i = 0; i < n; i++) {
        if (c[i].inFlight() == bestLoad && pick-- == 0) {
          return i;
        }
      }
      return best;
    };
  }

  /**
   * Latency: two candidates drawn at random, the one with the lower latency EWMA (weighted by
   * its in-flight attempts) wins. Power of two choices keeps a single fast deployment from
   * being flooded while still moving load towards the fast ones. A deployment never measured
   * counts as fastest, so it gets measured.
   *
   * @return the strategy
   */
  static RoutingStrategy latency() {
    return (c, n, ctx, random) -> {
      if (n == 1) {
        return 0;
      }
      int a = random.nextInt(n);
      int b = random.nextInt(n - 1);
      if (b >= a) {
        b++;
      }
      return score(c[a]) <= score(c[b]) ? a : b;
    };
  }

  private static double score(DeploymentState d) {
    return d.latencyEwmaNanos() * (1 + d.inFlight());
  }

  /**
   * Lowest cost: the candidate with the lowest price override (input plus output per million
   * tokens); a deployment without an override costs the model's catalog price.
   *
   * @return the strategy
   */
  static RoutingStrategy lowestCost() {
    return (c, n, ctx, random) -> {
      int best = 0;
      long bestCost = Long.MAX_VALUE;
      long modelCost = 0;
      boolean modelCostKnown = false;
      for (int i = 0; i < n; i++) {
        long cost = c[i].overrideCost();
        if (cost < 0) {
          if (!modelCostKnown) {
            Price p = ctx.model().spec().price();
            modelCost = p == null ? Long.MAX_VALUE - 1 : p.inputPerMillion() + p.outputPerMillion();
            modelCostKnown = true;
          }
          cost = modelCost;
        }
        if (cost < bestCost) {
          best = i;
          bestCost = cost;
        }
      }
      return best;
    };
  }

  /**
   * Usage headroom: the candidate with the largest share of its RPM/TPM caps left this minute.
   *
   * @return the strategy
   */
  static RoutingStrategy usageHeadroom() {
    return (c, n, ctx, random) -> {
      int best = 0;
      double bestRoom = -1;
      for (int i = 0; i < n; i++) {
        double room = c[i].headroom();
        if (room > bestRoom) {
          best = i;
          bestRoom = room;
        }
      }
      return best;
    };
  }

  /**
   * Adaptive: Thompson sampling. Each deployment has a Beta posterior over "the attempt
   * succeeded within {@code latencyTarget}"; selection draws from each candidate's posterior in
   * the last published snapshot and takes the highest draw. An outcome only increments
   * counters; a new snapshot is built from them on {@code updates}, off the request path, at
   * most once per millisecond (see {@link #adaptive(Duration, Executor, Duration, Clock)}).
   *
   * @param latencyTarget the latency under which a success counts as good
   * @param updates where snapshots are built (a direct executor builds them in the calling
   *     thread)
   * @return the strategy
   * @throws NullPointerException if an argument is null
   */
  static RoutingStrategy adaptive(Duration latencyTarget, Executor updates) {
    return adaptive(latencyTarget, updates, Duration.ofMillis(1), Clock.system());
  }

  /**
   * Adaptive, as {@link #adaptive(Duration, Executor)}, with the snapshot's refresh interval
   * spelled out. An outcome that arrives {@code refreshAfter} or more after the last snapshot
   * was built has a new one built; at most one build is pending at a time. So there is at most
   * one build per {@code refreshAfter} at any call rate, and at low rates every outcome is
   * learnt before the next selection. Each candidate's draw comes from the normal distribution
   * with its Beta posterior's mean and variance (one standard normal draw per candidate).
   *
   * @param latencyTarget the latency under which a success counts as good
   * @param updates where snapshots are built (a direct executor builds them in the calling
   *     thread)
   * @param refreshAfter the least time between two builds, positive
   * @param clock the clock {@code refreshAfter} is measured on
   * @return the strategy
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if refreshAfter is not positive
   */
  static RoutingStrategy adaptive(Duration latencyTarget, Executor updates,
      Duration refreshAfter, Clock clock) {
    return new ThompsonStrategy(latencyTarget, updates, refreshAfter, clock);
  }
}
