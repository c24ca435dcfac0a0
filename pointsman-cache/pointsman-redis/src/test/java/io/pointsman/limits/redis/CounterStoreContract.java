package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Period;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every {@link CounterStore} must have. A subclass supplies a fresh, empty store
 * per test.
 */
abstract class CounterStoreContract {
  static final long NOW = Instant.parse("2024-05-01T10:00:00Z").toEpochMilli();

  CounterStore store;

  /** Returns a fresh, empty store. */
  abstract CounterStore newStore();

  /** Frees what the store used. */
  void closeStore() {}

  @BeforeEach
  void open() {
    store = newStore();
  }

  @AfterEach
  void close() {
    closeStore();
  }

  @Test
  void takesEveryCounterOrNone() {
    Counter team = Counter.budget("b:team", 1_000, 300, 0);
    Counter org = Counter.budget("b:org", 200, 300, 0);
    CounterGrant refused = store.acquire("r1", List.of(team, org), NOW);
    assertThat(refused.granted()).isFalse();
    assertThat(refused.denied()).isEqualTo(1);
    assertThat(refused.remaining(1)).isEqualTo(200);
    assertThat(store.read(team)).isEqualTo(CounterReading.EMPTY);

    Counter smaller = Counter.budget("b:org", 200, 150, 0);
    Counter teamSmall = Counter.budget("b:team", 1_000, 150, 0);
    CounterGrant granted = store.acquire("r2", List.of(teamSmall, smaller), NOW);
    assertThat(granted.granted()).isTrue();
    assertThat(granted.remaining(0)).isEqualTo(850);
    assertThat(granted.remaining(1)).isEqualTo(50);
    assertThat(store.read(teamSmall)).isEqualTo(new CounterReading(0, 150, 0));
  }

  @Test
  void settleChargesTheActualAndReleaseChargesNothing() {
    Counter b = Counter.budget("b:settle", 1_000, 400, 0);
    assertThat(store.acquire("r1", List.of(b), NOW).granted()).isTrue();
    assertThat(store.acquire("r2", List.of(b), NOW).granted()).isTrue();
    store.settle("r1", List.of(b), 120, NOW);
    assertThat(store.read(b)).isEqualTo(new CounterReading(120, 400, 0));
    store.release("r2", List.of(b), NOW);
    assertThat(store.read(b)).isEqualTo(new CounterReading(120, 0, 0));
    // An actual cost above the hold is charged in full: settlement never under-charges.
    assertThat(store.acquire("r3", List.of(b), NOW).granted()).isTrue();
    store.settle("r3", List.of(b), 450, NOW);
    assertThat(store.read(b)).isEqualTo(new CounterReading(570, 0, 0));
    CounterGrant g = store.acquire("r4", List.of(b), NOW);
    assertThat(g.granted()).isTrue();
    assertThat(g.remaining(0)).isEqualTo(30);
  }

  @Test
  void aBudgetReportsWhenItsPeriodEnds() {
    long end = NOW + 3_600_000;
    CounterGrant g = store.acquire("r1", List.of(Counter.budget("b:day", 100, 10, end)), NOW);
    assertThat(g.resetsAtMillis(0)).isEqualTo(end);
    assertThat(store.acquire("r2", List.of(Counter.budget("b:life", 100, 10, 0)), NOW)
        .resetsAtMillis(0)).isZero();
  }

  @Test
  void concurrencySlotsAreTakenAndFreedPerReservation() {
    Counter c = Counter.concurrency("c:key", 2, 60_000);
    assertThat(store.acquire("r1", List.of(c), NOW).remaining(0)).isEqualTo(1);
    assertThat(store.acquire("r2", List.of(c), NOW).remaining(0)).isZero();
    assertThat(store.acquire("r3", List.of(c), NOW).denied()).isZero();
    assertThat(store.read(c).inFlight()).isEqualTo(2);
    store.settle("r1", List.of(c), 0, NOW);
    assertThat(store.read(c).inFlight()).isEqualTo(1);
    assertThat(store.acquire("r3", List.of(c), NOW).granted()).isTrue();
    store.release("r2", List.of(c), NOW);
    store.release("r3", List.of(c), NOW);
    assertThat(store.read(c).inFlight()).isZero();
  }

  @Test
  void aRateAllowsItsBurstThenRefillsSmoothly() {
    Counter rpm = Counter.rate("r:key", 3, 1, 60_000);
    for (int i = 0; i < 3; i++) {
      CounterGrant g = store.acquire("r" + i, List.of(rpm), NOW);
      assertThat(g.granted()).isTrue();
      assertThat(g.remaining(0)).isEqualTo(2 - i);
    }
    CounterGrant refused = store.acquire("r4", List.of(rpm), NOW);
    assertThat(refused.granted()).isFalse();
    assertThat(refused.resetsAtMillis(0)).isEqualTo(NOW + 60_000);
    // One request per 20 s comes back.
    assertThat(store.acquire("r5", List.of(rpm), NOW + 19_999).granted()).isFalse();
    assertThat(store.acquire("r6", List.of(rpm), NOW + 20_000).granted()).isTrue();
    // A call larger than the whole window's allowance never passes.
    assertThat(store.acquire("r7", List.of(Counter.rate("r:tok", 100, 101, 60_000)), NOW + 1)
        .granted()).isFalse();
  }

  @Test
  void aRefusedRateTakesNothingElse() {
    Counter rpm = Counter.rate("r:only", 1, 1, 60_000);
    Counter b = Counter.budget("b:with-rate", 1_000, 10, 0);
    assertThat(store.acquire("r1", List.of(b, rpm), NOW).granted()).isTrue();
    assertThat(store.acquire("r2", List.of(b, rpm), NOW).denied()).isEqualTo(1);
    assertThat(store.read(b).heldMicros()).isEqualTo(10);
  }

  @Test
  void aRebuildOverwritesABudgetAndOnlyOneRunsAtATime() {
    Counter b = Counter.budget("b:restore", 1_000, 100, NOW + 60_000);
    store.acquire("r1", List.of(b), NOW);
    try (CounterRebuild rebuild = store.beginRebuild(60_000, false)) {
      assertThat(store.beginRebuild(60_000, false)).as("one rebuild at a time").isNull();
      rebuild.restore(b, 700, 200, NOW);
      assertThatThrownBy(() -> rebuild.restore(Counter.concurrency("c", 1, 1), 0, 0, NOW))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> rebuild.restore(b, -1, 0, NOW))
          .isInstanceOf(IllegalArgumentException.class);
      rebuild.commit();
    }
    assertThat(store.read(b)).isEqualTo(new CounterReading(700, 200, 0));
    assertThat(store.acquire("r2", List.of(b), NOW).granted()).isTrue();
    assertThat(store.acquire("r3", List.of(b), NOW).granted()).isFalse();
    assertThat(store.beginRebuild(60_000, true)).as("not stale: nothing to rebuild").isNull();
  }

  @Test
  void anExtensionHoldsMoreInEveryBudgetOrInNone() {
    Counter team = Counter.budget("b:x-team", 1_000, 300, 0);
    Counter org = Counter.budget("b:x-org", 500, 300, 0);
    Counter slot = Counter.concurrency("c:x", 5, 60_000);
    assertThat(store.acquire("r1", List.of(team, org, slot), NOW).granted()).isTrue();
    assertThat(store.extend("r1", "r1:x1", List.of(team, org, slot), 300, NOW))
        .as("the org has 200 left").isFalse();
    assertThat(store.read(team).heldMicros()).as("nothing taken").isEqualTo(300);
    assertThat(store.extend("r1", "r1:x2", List.of(team, org, slot), 200, NOW)).isTrue();
    assertThat(store.read(team).heldMicros()).isEqualTo(500);
    assertThat(store.read(org).heldMicros()).isEqualTo(500);
    assertThat(store.acquire("r2", List.of(Counter.budget("b:x-org", 500, 1, 0)), NOW)
        .granted()).isFalse();
    // The limiter passes the amounts with every confirmed extension added.
    List<Counter> extended = List.of(Counter.budget("b:x-team", 1_000, 500, 0),
        Counter.budget("b:x-org", 500, 500, 0), slot);
    store.settle("r1", extended, 450, NOW);
    assertThat(store.read(team)).isEqualTo(new CounterReading(450, 0, 0));
    assertThat(store.read(org)).isEqualTo(new CounterReading(450, 0, 0));
    assertThat(store.read(slot).inFlight()).isZero();
  }

  @Test
  void aHugeRateAmountIsRefusedAndLeavesTheRateAsItWas() {
    long limit = 1_000;
    Counter tpm = Counter.rate("r:huge", limit, 100, 60_000);
    assertThat(store.acquire("r1", List.of(tpm), NOW).granted()).isTrue();
    // Times the 60,000 µs emission interval, these wrap a long: past zero, and twice over.
    for (long huge : new long[] {Long.MAX_VALUE / 60_000 + 1, Long.MAX_VALUE / 30_000 + 1,
        Counter.MAX_VALUE}) {
      CounterGrant g = store.acquire("h" + huge, List.of(Counter.rate("r:huge", limit, huge,
          60_000)), NOW);
      assertThat(g.granted()).as("%d tokens", huge).isFalse();
      assertThat(g.remaining(0)).isEqualTo(900);
    }
    // Unchanged: 900 tokens still fit right now, 901 do not.
    assertThat(store.acquire("r2", List.of(Counter.rate("r:huge", limit, 901, 60_000)), NOW)
        .granted()).isFalse();
    assertThat(store.acquire("r3", List.of(Counter.rate("r:huge", limit, 900, 60_000)), NOW)
        .granted()).isTrue();
  }

  @Test
  void largeAmountsAreExactAndOversizedOnesRejected() {
    long limit = Counter.MAX_VALUE;
    Counter b = Counter.budget("b:large", limit, limit - 1, 0);
    assertThat(store.acquire("r1", List.of(b), NOW).remaining(0)).isEqualTo(1);
    store.settle("r1", List.of(b), limit - 1, NOW);
    assertThat(store.read(b).spentMicros()).isEqualTo(limit - 1);
    assertThat(store.acquire("r2", List.of(Counter.budget("b:large", limit, 2, 0)), NOW)
        .granted()).isFalse();
    assertThatThrownBy(() -> Counter.budget("b:x", limit + 1, 0, 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Counter.budget("b:x", 1, -1, 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void manyThreadsNeverOverspendAndLeaveNothingHeld() throws Exception {
    long limit = 50_000;
    Counter b = Counter.budget("b:hammer", limit, 0, 0);
    int threads = 16;
    AtomicLong charged = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    CountDownLatch start = new CountDownLatch(1);
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int id = t;
      ts[t] = new Thread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < 150; i++) {
          long hold = 100 + (id * 37 + i * 11) % 400;
          Counter c = Counter.budget(b.key(), limit, hold, 0);
          String rid = "t" + id + "-" + i;
          if (store.acquire(rid, List.of(c), NOW).granted()) {
            if (i % 5 == 0) {
              store.release(rid, List.of(c), NOW);
            } else {
              long actual = hold * (i % 3 + 1) / 3;
              store.settle(rid, List.of(c), actual, NOW);
              charged.addAndGet(actual);
            }
          } else {
            refused.incrementAndGet();
          }
        }
      });
      ts[t].start();
    }
    start.countDown();
    for (Thread t : ts) {
      t.join();
    }
    CounterReading r = store.read(b);
    assertThat(r.heldMicros()).isZero();
    assertThat(r.spentMicros()).isEqualTo(charged.get()).isLessThanOrEqualTo(limit);
    assertThat(refused.get()).isPositive();
  }

  @Test
  void throughTheLimiterDenialsNameTheRuleAndRemainingIsReported() {
    FakeClock clock = new FakeClock(Instant.ofEpochMilli(NOW));
    CounterLimiter limiter = CounterLimiter.builder(store)
        .budget(Scope.team("t1"), Period.daily(ZoneOffset.UTC), 1_000)
        .requestsPerMinute(Scope.key("k1"), 2)
        .tokensPerMinute(Scope.org("o1"), 1_000)
        .concurrency(Scope.tag("batch"), 1)
        .clock(clock).build();
    Reservation r = limiter.reserve(admission("e1", 400, clock.now()));
    assertThat(r.remaining()).extracting(LimitRemaining::rule).containsExactly(
        "budget-daily:team:t1", "rpm:key:k1", "tpm:org:o1", "concurrency:tag:batch");
    assertThat(r.remaining()).extracting(LimitRemaining::remaining)
        .containsExactly(600L, 1L, 700L, 0L);
    assertThat(r.remaining().get(0).resetsAt()).isEqualTo(Instant.parse("2024-05-02T00:00:00Z"));
    assertThatThrownBy(() -> limiter.reserve(admission("e2", 1, clock.now())))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.status()).isEqualTo(Status.TOO_MANY_REQUESTS);
          assertThat(e.rule()).isEqualTo("concurrency:tag:batch");
        });
    r.settle(350);
    assertThat(limiter.budget(Scope.team("t1"))).satisfies(s -> {
      assertThat(s.spentMicros()).isEqualTo(350);
      assertThat(s.heldMicros()).isZero();
    });
    clock.advance(Duration.ofSeconds(1));
    limiter.reserve(admission("e3", 100, clock.now())).release();
    assertThatThrownBy(() -> limiter.reserve(admission("e4", 100, clock.now())))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.status()).isEqualTo(Status.TOO_MANY_REQUESTS);
          assertThat(e.rule()).isEqualTo("rpm:key:k1");
        });
    assertThat(limiter.budget(Scope.team("t1")).heldMicros()).isZero();
    assertThat(limiter.inflight(Scope.tag("batch"))).isZero();
  }

  @Test
  void concurrentExtensionsThroughTheLimiterNeverLetSpentPlusHeldExceedTheLimit()
      throws Exception {
    long limit = 20_000;
    CounterLimiter limiter = CounterLimiter.builder(store).budget(Scope.team("t1"), limit)
        .budget(Scope.org("o1"), Period.daily(ZoneOffset.UTC), limit * 3)
        .clock(new FakeClock(Instant.ofEpochMilli(NOW))).build();
    int threads = 8;
    AtomicLong charged = new AtomicLong();
    AtomicLong extensions = new AtomicLong();
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.ConcurrentLinkedQueue<Object> problems =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    Thread watcher = new Thread(() -> {
      while (!done.get()) {
        var s = limiter.budget(Scope.team("t1"));
        if (s.spentMicros() + s.heldMicros() > limit) {
          problems.add(s);
        }
      }
    });
    Thread[] ts = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      int id = t;
      ts[t] = new Thread(() -> {
        try {
          start.await();
          for (int i = 0; i < 40; i++) {
            Reservation r;
            try {
              r = limiter.reserve(admission("x" + id + "-" + i, 100 + (id * 31 + i * 7) % 300,
                  Instant.ofEpochMilli(NOW)));
            } catch (PointsmanException e) {
              continue;
            }
            for (int x = 0; x < 2; x++) {
              if (r.extend(50 + (id + i + x) % 200)) {
                extensions.incrementAndGet();
              }
            }
            long actual = r.heldMicros();
            r.settle(actual);
            charged.addAndGet(actual);
          }
        } catch (Throwable e) {
          problems.add(e);
        }
      });
      ts[t].start();
    }
    watcher.start();
    start.countDown();
    for (Thread t : ts) {
      t.join();
    }
    done.set(true);
    watcher.join();
    assertThat(problems).isEmpty();
    assertThat(extensions.get()).isPositive();
    var team = limiter.budget(Scope.team("t1"));
    assertThat(team.heldMicros()).isZero();
    assertThat(team.spentMicros()).isEqualTo(charged.get()).isLessThanOrEqualTo(limit);
  }

  static Admission admission(String id, long worstCase, Instant at) {
    Identity identity = new Identity("k1", null, "t1", "o1", Set.of("batch"), Grant.all(),
        Grant.all(), Grant.all());
    ResolvedModel model = new ResolvedModel(ModelSpec.builder("m").price(Price.of(1, 1))
        .build(), 200, false, 100);
    return new Admission(id, identity, Set.of("batch"), model, 200, 100, worstCase, at);
  }
}
