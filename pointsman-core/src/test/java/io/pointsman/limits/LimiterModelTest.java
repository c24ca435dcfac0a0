package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.pointsman.PointsmanException;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of reserve, settle, release, clock moves, crashes (the process dies: the
 * in-process counters are lost, the ledger and the journal survive) and replays (a new limiter
 * rebuilds from them, then the recovered holds are resolved), checked against a plain model of
 * the counters after every step. A failure names its seed; rerun one seed with
 * {@code -Dlimits.seed=<seed>}.
 */
class LimiterModelTest {
  private static final ZoneId ZONE = ZoneId.of("Europe/Berlin");
  private static final String[] KEYS = {"k1", "k2", "k3"};
  private static final String[] TEAMS = {"t1", "t2"};
  private static final String[] TAGS = {"x", "y"};

  private static final List<LimitRule> RULES = List.of(
      new LimitRule(LimitRule.Kind.BUDGET, Scope.team("t1"), 2_000, Period.total()),
      new LimitRule(LimitRule.Kind.BUDGET, Scope.org("o1"), 900, Period.daily(ZONE)),
      new LimitRule(LimitRule.Kind.BUDGET, Scope.tag("x"), 1_500, Period.weekly(ZONE)),
      new LimitRule(LimitRule.Kind.BUDGET, Scope.key("k2"), 600, Period.monthly(ZONE)),
      new LimitRule(LimitRule.Kind.CONCURRENCY, Scope.key("k1"), 3, Period.total()));

  /** A call as the model sees it. */
  private static final class Call {
    final String id;
    final String key;
    final String team;
    final Set<String> tags;
    final long hold;
    final Instant at;
    final boolean dispatched;
    Reservation reservation;
    /** The budget rules whose counters hold this call, with the period start they hold in. */
    final Map<Integer, Instant> windows = new LinkedHashMap<>();
    boolean concurrency;

    Call(String id, String key, String team, Set<String> tags, long hold, Instant at,
        boolean dispatched) {
      this.id = id;
      this.key = key;
      this.team = team;
      this.tags = tags;
      this.hold = hold;
      this.at = at;
      this.dispatched = dispatched;
    }

    boolean matches(Scope s) {
      return s.matches(key, team, "o1", tags, "m");
    }
  }

  private record Charge(Call call, long amount) {}

  private FakeClock clock;
  private InMemoryLimiter limiter;
  private final Map<String, Long> spent = new HashMap<>();
  private final Map<String, Long> held = new HashMap<>();
  private long inFlight;
  private final List<Call> live = new ArrayList<>();
  private final List<Charge> ledger = new ArrayList<>();
  private long overshoot;
  private long grants;
  private long denials;
  private long crashes;

  @Test
  void randomSequencesKeepTheCountersEqualToTheModel() {
    String fixed = System.getProperty("limits.seed");
    if (fixed != null) {
      run(Long.parseLong(fixed));
      return;
    }
    long base = new Random().nextLong();
    for (int i = 0; i < 150; i++) {
      run(base + i);
    }
    // The runs reached every interesting path, not just the easy ones.
    assertThat(grants).isPositive();
    assertThat(denials).isPositive();
    assertThat(crashes).isPositive();
  }

  private void run(long seed) {
    try {
      runUnchecked(seed);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("seed " + seed + " (rerun with -Dlimits.seed=" + seed + "): "
          + e.getMessage(), e);
    }
  }

  private void runUnchecked(long seed) {
    Random random = new Random(seed);
    clock = new FakeClock(Instant.parse("2024-03-30T20:00:00Z").plusSeconds(
        random.nextInt(86_400 * 3)));
    limiter = newLimiter();
    spent.clear();
    held.clear();
    inFlight = 0;
    live.clear();
    ledger.clear();
    overshoot = 0;
    int n = 0;
    for (int step = 0; step < 300; step++) {
      int op = random.nextInt(100);
      if (op < 45) {
        reserve(random, "e" + seed + "-" + n++);
      } else if (op < 65 && !live.isEmpty()) {
        Call c = live.remove(random.nextInt(live.size()));
        long actual = random.nextInt(10) == 0 ? c.hold + random.nextInt(50)
            : (long) (c.hold * random.nextDouble());
        settle(c, actual);
      } else if (op < 80 && !live.isEmpty()) {
        Call c = live.remove(random.nextInt(live.size()));
        c.reservation.release();
        unhold(c);
      } else if (op < 92) {
        clock.advance(Duration.ofMinutes(random.nextInt(600)));
      } else if (op < 97) {
        crashAndReplay();
      } else {
        // Another limiter rebuilt from the same sources agrees with the live counters.
        checkRebuildMatches();
      }
      check();
    }
    for (Call c : new ArrayList<>(live)) {
      settle(c, c.hold / 2);
    }
    live.clear();
    check();
    assertThat(held.values()).allMatch(v -> v == 0);
    assertThat(inFlight).isZero();
  }

  private InMemoryLimiter newLimiter() {
    InMemoryLimiter.Builder b = InMemoryLimiter.builder().clock(clock);
    for (LimitRule r : RULES) {
      if (r.kind() == LimitRule.Kind.BUDGET) {
        b.budget(r.scope(), r.period(), r.limit());
      } else {
        b.concurrency(r.scope(), (int) r.limit());
      }
    }
    return b.build();
  }

  private static String window(int rule, Instant start) {
    return rule + "@" + start;
  }

  private void reserve(Random random, String id) {
    Set<String> tags = random.nextBoolean() ? Set.of(TAGS[random.nextInt(2)]) : Set.of();
    Call c = new Call(id, KEYS[random.nextInt(KEYS.length)], TEAMS[random.nextInt(2)], tags,
        random.nextInt(400), clock.now(), random.nextBoolean());
    String expectedDenial = null;
    for (int i = 0; i < RULES.size() && expectedDenial == null; i++) {
      LimitRule r = RULES.get(i);
      if (!c.matches(r.scope())) {
        continue;
      }
      if (r.kind() == LimitRule.Kind.BUDGET) {
        String w = window(i, r.period().start(c.at));
        long available = r.limit() - spent.getOrDefault(w, 0L) - held.getOrDefault(w, 0L);
        if (c.hold > available) {
          expectedDenial = r.name();
        }
      } else if (inFlight + 1 > r.limit()) {
        expectedDenial = r.name();
      }
    }
    try {
      c.reservation = limiter.reserve(Admissions.of(id, c.key, c.team, "o1", c.tags, c.hold,
          c.at));
    } catch (PointsmanException e) {
      assertThat(e.rule()).as("denial").isEqualTo(expectedDenial);
      denials++;
      return;
    }
    grants++;
    assertThat(expectedDenial).as("the model expected a denial").isNull();
    for (int i = 0; i < RULES.size(); i++) {
      LimitRule r = RULES.get(i);
      if (!c.matches(r.scope())) {
        continue;
      }
      if (r.kind() == LimitRule.Kind.BUDGET) {
        Instant start = r.period().start(c.at);
        c.windows.put(i, start);
        held.merge(window(i, start), c.hold, Long::sum);
      } else {
        c.concurrency = true;
        inFlight++;
      }
    }
    live.add(c);
  }

  private void settle(Call c, long actual) {
    c.reservation.settle(actual);
    for (Map.Entry<Integer, Instant> w : c.windows.entrySet()) {
      String key = window(w.getKey(), w.getValue());
      held.merge(key, -c.hold, Long::sum);
      spent.merge(key, actual, Long::sum);
    }
    if (c.concurrency) {
      inFlight--;
    }
    ledger.add(new Charge(c, actual));
    overshoot += Math.max(0, actual - c.hold);
  }

  private void unhold(Call c) {
    for (Map.Entry<Integer, Instant> w : c.windows.entrySet()) {
      held.merge(window(w.getKey(), w.getValue()), -c.hold, Long::sum);
    }
    if (c.concurrency) {
      inFlight--;
    }
  }

  private long ledgerSpent(Scope scope, Instant from, Instant to) {
    long sum = 0;
    for (Charge ch : ledger) {
      if (ch.call.matches(scope) && !ch.call.at.isBefore(from)
          && (to == null || ch.call.at.isBefore(to))) {
        sum += ch.amount;
      }
    }
    return sum;
  }

  private List<DispatchIntent> journal() {
    List<DispatchIntent> out = new ArrayList<>();
    for (Call c : live) {
      if (c.dispatched) {
        out.add(new DispatchIntent(c.id, c.id, 1, c.key, null, c.team, "o1", c.tags, "m",
            "d", "p", c.id, c.windows.isEmpty() ? 0 : c.hold, c.hold, c.at));
      }
    }
    return out;
  }

  /** The process dies; a new one rebuilds from the ledger and the journal. */
  private void crashAndReplay() {
    crashes++;
    limiter = newLimiter();
    List<Reservation> recovered = limiter.rebuild(this::ledgerSpent, journal());
    Map<String, Reservation> byId = new HashMap<>();
    for (Reservation r : recovered) {
      byId.put(r.id(), r);
    }
    spent.clear();
    held.clear();
    inFlight = 0;
    Instant now = clock.now();
    for (int i = 0; i < RULES.size(); i++) {
      LimitRule r = RULES.get(i);
      if (r.kind() == LimitRule.Kind.BUDGET) {
        Instant start = r.period().start(now);
        spent.put(window(i, start), ledgerSpent(r.scope(), start, r.period().end(now)));
      }
    }
    List<Call> survivors = new ArrayList<>();
    for (Call c : live) {
      if (!c.dispatched) {
        continue; // died before dispatch: nothing was sent, nothing is held
      }
      Call replay = new Call(c.id, c.key, c.team, c.tags, c.hold, c.at, true);
      for (Map.Entry<Integer, Instant> w : c.windows.entrySet()) {
        LimitRule r = RULES.get(w.getKey());
        if (w.getValue().equals(r.period().start(now)) && c.hold > 0) {
          replay.windows.put(w.getKey(), w.getValue());
          held.merge(window(w.getKey(), w.getValue()), c.hold, Long::sum);
        }
      }
      replay.reservation = byId.remove(c.id);
      if (replay.windows.isEmpty()) {
        assertThat(replay.reservation).as("no recovered hold for " + c.id).isNull();
        continue;
      }
      assertThat(replay.reservation).as("recovered hold for " + c.id).isNotNull();
      assertThat(replay.reservation.heldMicros()).isEqualTo(c.hold);
      survivors.add(replay);
    }
    assertThat(byId).as("unexpected recovered holds").isEmpty();
    live.clear();
    live.addAll(survivors);
  }

  private void checkRebuildMatches() {
    InMemoryLimiter other = newLimiter();
    other.rebuild(this::ledgerSpent, journal());
    Map<String, BudgetState> rebuilt = other.budgets();
    Map<String, BudgetState> current = limiter.budgets();
    // Holds of undispatched calls are not in the journal; compare after removing them.
    for (Map.Entry<String, BudgetState> e : current.entrySet()) {
      long undispatched = 0;
      int rule = ruleIndex(e.getKey());
      Instant start = RULES.get(rule).period().start(clock.now());
      for (Call c : live) {
        if (!c.dispatched && start.equals(c.windows.get(rule))) {
          undispatched += c.hold;
        }
      }
      BudgetState r = rebuilt.get(e.getKey());
      assertThat(r.spentMicros()).as("rebuilt spent of " + e.getKey())
          .isEqualTo(e.getValue().spentMicros());
      assertThat(r.heldMicros() + undispatched).as("rebuilt held of " + e.getKey())
          .isEqualTo(e.getValue().heldMicros());
    }
  }

  private static int ruleIndex(String name) {
    for (int i = 0; i < RULES.size(); i++) {
      if (RULES.get(i).name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException(name);
  }

  private void check() {
    for (Map.Entry<String, BudgetState> e : limiter.budgets().entrySet()) {
      int rule = ruleIndex(e.getKey());
      String w = window(rule, RULES.get(rule).period().start(clock.now()));
      BudgetState s = e.getValue();
      assertThat(s.spentMicros()).as("spent of " + w).isEqualTo(spent.getOrDefault(w, 0L));
      assertThat(s.heldMicros()).as("held of " + w).isEqualTo(held.getOrDefault(w, 0L));
      assertThat(s.heldMicros()).as("held of " + w).isNotNegative();
      if (s.spentMicros() + s.heldMicros() > s.limitMicros() + overshoot) {
        fail("budget " + w + " over its limit by more than the settled overshoot: " + s);
      }
    }
    assertThat(limiter.inflight(Scope.key("k1"))).isEqualTo(inFlight);
  }
}
