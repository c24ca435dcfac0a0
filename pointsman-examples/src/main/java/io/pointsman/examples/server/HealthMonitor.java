package io.pointsman.examples.server;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link HealthCheck}s in the background, each on a daemon thread of its own every
 * interval, and keeps their last results, so reading health never waits on a component: a
 * check that has not answered within the time-out (a database that accepts connections and
 * never replies) is reported down while its thread still waits, and is not started again
 * before it returns. Thread-safe.
 */
public final class HealthMonitor implements AutoCloseable {
  /**
   * A component's last known health.
   *
   * @param name the component
   * @param required whether it must be up for the whole to be healthy
   * @param up whether it is up
   * @param detail what was found
   * @param checkedAt when the last check ended (or, for a check that has not answered, when
   *     the monitor gave up waiting); null before any result
   */
  public record Component(String name, boolean required, boolean up, String detail,
      Instant checkedAt) {}

  private static final class Slot {
    final HealthCheck check;
    volatile Component last;
    volatile Instant runningSince;

    Slot(HealthCheck check) {
      this.check = check;
    }
  }

  private final Map<String, Slot> slots = new LinkedHashMap<>();
  private final List<ScheduledExecutorService> threads = new ArrayList<>();
  private final Map<String, Boolean> started = new ConcurrentHashMap<>();
  private final Duration interval;
  private final Duration timeout;

  /**
   * Creates a monitor; {@link #start()} starts the checks.
   *
   * @param checks the checks, each with a distinct name
   * @param interval how long between the end of one check and the start of the next
   * @param timeout how long a check may take before its component is reported down
   * @throws IllegalArgumentException if two checks share a name
   */
  public HealthMonitor(List<HealthCheck> checks, Duration interval, Duration timeout) {
    for (HealthCheck c : checks) {
      if (slots.put(c.name(), new Slot(c)) != null) {
        throw new IllegalArgumentException("two health checks are named " + c.name());
      }
    }
    this.interval = interval;
    this.timeout = timeout;
  }

  /** Starts every check now and then every interval. Idempotent. */
  public synchronized void start() {
    for (Slot s : slots.values()) {
      if (started.putIfAbsent(s.check.name(), Boolean.TRUE) != null) {
        continue;
      }
      ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread th = new Thread(r, "pointsman-health-" + s.check.name());
        th.setDaemon(true);
        return th;
      });
      threads.add(t);
      t.scheduleWithFixedDelay(() -> run(s), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }
  }

  private static void run(Slot s) {
    s.runningSince = Instant.now();
    Component c;
    try {
      ComponentHealth h = s.check.check();
      c = new Component(s.check.name(), s.check.required(), h.up(), h.detail(), Instant.now());
    } catch (Exception | LinkageError e) {
      c = new Component(s.check.name(), s.check.required(), false, "check failed: "
          + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()),
          Instant.now());
    }
    s.last = c;
    s.runningSince = null;
  }

  /**
   * Waits until every check has a result or has run longer than the time-out.
   *
   * @param max how long to wait at most
   * @throws InterruptedException if interrupted
   */
  public void awaitFirstResults(Duration max) throws InterruptedException {
    long deadline = System.nanoTime() + max.toNanos();
    while (System.nanoTime() < deadline) {
      boolean all = true;
      for (Component c : snapshot().values()) {
        all &= c.checkedAt() != null;
      }
      if (all) {
        return;
      }
      Thread.sleep(5);
    }
  }

  /**
   * Returns every component's last known health, in registration order.
   *
   * @return the components by name
   */
  public Map<String, Component> snapshot() {
    Instant now = Instant.now();
    Map<String, Component> out = new LinkedHashMap<>();
    for (Slot s : slots.values()) {
      Instant since = s.runningSince;
      Component last = s.last;
      if (since != null && Duration.between(since, now).compareTo(timeout) > 0) {
        out.put(s.check.name(), new Component(s.check.name(), s.check.required(), false,
            "no answer for " + Duration.between(since, now).toSeconds() + " s (time-out "
                + timeout.toSeconds() + " s)" + (last == null ? "" : "; before: " + last.detail()),
            now));
      } else if (last == null) {
        out.put(s.check.name(), new Component(s.check.name(), s.check.required(), false,
            "not checked yet", null));
      } else {
        out.put(s.check.name(), last);
      }
    }
    return out;
  }

  /**
   * Returns whether every required component is up.
   *
   * @return true when healthy
   */
  public boolean healthy() {
    return snapshot().values().stream().allMatch(c -> c.up() || !c.required());
  }

  /** Stops the checks; a check still waiting is abandoned (its thread is a daemon). */
  @Override
  public synchronized void close() {
    for (ScheduledExecutorService t : threads) {
      t.shutdownNow();
    }
  }
}
