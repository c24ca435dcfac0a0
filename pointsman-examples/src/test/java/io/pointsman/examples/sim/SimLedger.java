package io.pointsman.examples.sim;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * The system of record as the simulation sees it: one row per event id, idempotent on event
 * id, a settled row winning over an interrupted one (as the ledger's schema does), every
 * delivery counted. It survives the simulated restarts, as PostgreSQL would, and fails on
 * command:
 *
 * <ul>
 *   <li>{@link Mode#DOWN}: every batch throws (the database is unreachable);
 *   <li>{@link Mode#GATED}: every batch waits until the gate opens (a database so slow that
 *       nothing commits before the next restart); the wait ends with an exception when the
 *       settler is interrupted;
 *   <li>{@link Mode#FLAKY}: the first delivery of each event id throws, later ones commit;
 *   <li>{@link Mode#SLOW}: every batch commits after the simulated clock moved on by two
 *       seconds (used only with synchronous settlement, where it runs on the caller's thread).
 * </ul>
 */
final class SimLedger implements Settlement {
  enum Mode { HEALTHY, DOWN, GATED, FLAKY, SLOW }

  final Map<String, UsageRecord> settled = new ConcurrentHashMap<>();
  final Map<String, InterruptedCall> interrupted = new ConcurrentHashMap<>();
  final Map<String, Integer> deliveries = new ConcurrentHashMap<>();
  /** Event ids delivered twice with different content: settlement is not a replay then. */
  final Set<String> conflicts = ConcurrentHashMap.newKeySet();
  private final Set<String> failedOnce = new HashSet<>();
  private final FakeClock clock;
  private volatile Mode mode = Mode.HEALTHY;
  private volatile CountDownLatch gate = new CountDownLatch(0);

  SimLedger(FakeClock clock) {
    this.clock = clock;
  }

  Mode mode() {
    return mode;
  }

  void mode(Mode value) {
    CountDownLatch old = gate;
    gate = value == Mode.GATED ? new CountDownLatch(1) : new CountDownLatch(0);
    mode = value;
    old.countDown();
  }

  @Override
  public void settle(List<UsageRecord> records) {
    List<String> ids = new ArrayList<>();
    records.forEach(r -> ids.add(r.eventId()));
    enter(ids);
    for (UsageRecord r : records) {
      deliveries.merge(r.eventId(), 1, Integer::sum);
      UsageRecord before = settled.putIfAbsent(r.eventId(), r);
      if (before != null && !before.equals(r)) {
        conflicts.add(r.eventId());
      }
      interrupted.remove(r.eventId());
    }
  }

  @Override
  public void interrupted(List<InterruptedCall> calls) {
    List<String> ids = new ArrayList<>();
    calls.forEach(c -> ids.add(c.eventId()));
    enter(ids);
    for (InterruptedCall c : calls) {
      deliveries.merge(c.eventId(), 1, Integer::sum);
      if (!settled.containsKey(c.eventId())) {
        interrupted.putIfAbsent(c.eventId(), c);
      }
    }
  }

  private void enter(List<String> ids) {
    switch (mode) {
      case DOWN -> throw new IllegalStateException("simulated: the database is down");
      case GATED -> {
        try {
          gate.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("simulated: the commit was abandoned", e);
        }
      }
      case FLAKY -> {
        boolean fail = false;
        synchronized (failedOnce) {
          for (String id : ids) {
            fail |= failedOnce.add(id);
          }
        }
        if (fail) {
          throw new IllegalStateException("simulated: the first commit of a record failed");
        }
      }
      case SLOW -> clock.advance(Duration.ofSeconds(2));
      default -> { }
    }
  }

  /** Spent by settled rows matching a scope's attributes, the ledger's own sum. */
  long spent(io.pointsman.limits.Scope scope) {
    long sum = 0;
    for (UsageRecord r : settled.values()) {
      if (scope.matches(r.keyId(), r.teamId(), r.orgId(), r.tags(), r.model())) {
        sum += r.costMicros();
      }
    }
    return sum;
  }
}
