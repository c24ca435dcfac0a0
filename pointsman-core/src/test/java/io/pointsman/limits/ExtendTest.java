package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.spi.Reservation;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** Reservation.extend on the in-process limiter. */
class ExtendTest {
  private static final Scope TEAM = Scope.team("t1");
  private static final Scope ORG = Scope.org("o1");

  private static io.pointsman.spi.Admission call(String id, long worstCase) {
    return Admissions.of(id, "k1", "t1", "o1", Set.of(), worstCase, Instant.EPOCH);
  }

  @Test
  void anExtensionHoldsInEveryScopeOrChangesNothing() {
    InMemoryLimiter limiter = InMemoryLimiter.builder().budget(TEAM, 1_000).budget(ORG, 600)
        .concurrency(Scope.key("k1"), 4).build();
    Reservation r = limiter.reserve(call("e1", 300));
    assertThat(r.extend(400)).as("the org has 300 left").isFalse();
    assertThat(r.heldMicros()).isEqualTo(300);
    assertThat(limiter.budget(TEAM).heldMicros()).isEqualTo(300);
    assertThat(limiter.budget(ORG).heldMicros()).isEqualTo(300);
    assertThat(r.extend(300)).isTrue();
    assertThat(r.heldMicros()).isEqualTo(600);
    assertThat(limiter.budget(ORG)).isEqualTo(new BudgetState(ORG, 600, 0, 600));
    assertThat(r.extend(0)).isTrue();
    assertThatThrownBy(() -> r.extend(-1)).isInstanceOf(IllegalArgumentException.class);
    r.settle(550);
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 550, 0));
    assertThat(limiter.budget(ORG)).isEqualTo(new BudgetState(ORG, 600, 550, 0));
    assertThat(limiter.inflight(Scope.key("k1"))).isZero();
    assertThatThrownBy(() -> r.extend(1)).isInstanceOf(IllegalStateException.class);

    Reservation released = limiter.reserve(call("e2", 20));
    assertThat(released.extend(30)).isTrue();
    released.release();
    assertThat(limiter.budget(ORG)).isEqualTo(new BudgetState(ORG, 600, 550, 0));
  }

  @Test
  void aReservationWithoutBudgetsExtendsTrivially() {
    InMemoryLimiter limiter = InMemoryLimiter.builder().concurrency(Scope.key("k1"), 1).build();
    Reservation r = limiter.reserve(call("e1", 300));
    assertThat(r.extend(1_000_000)).isTrue();
    assertThat(r.heldMicros()).isZero();
    r.release();
  }

  @Test
  void concurrentExtensionsNeverLetSpentPlusHeldExceedTheLimit() throws Exception {
    long limit = 40_000;
    InMemoryLimiter limiter = InMemoryLimiter.builder().budget(TEAM, limit)
        .budget(ORG, limit * 2).build();
    int threads = 16;
    AtomicLong charged = new AtomicLong();
    AtomicLong extended = new AtomicLong();
    AtomicLong refusedExtensions = new AtomicLong();
    AtomicBoolean done = new AtomicBoolean();
    ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    Thread watcher = new Thread(() -> {
      while (!done.get()) {
        BudgetState s = limiter.budget(TEAM);
        if (s.spentMicros() + s.heldMicros() > limit) {
          violations.add(s.toString());
        }
      }
    });
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      all.add(new Thread(() -> {
        Random random = new Random(seed);
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        for (int i = 0; i < 300; i++) {
          Reservation r;
          try {
            r = limiter.reserve(call("t" + seed + "-" + i, 10 + random.nextInt(50)));
          } catch (io.pointsman.PointsmanException e) {
            continue;
          }
          for (int x = 0; x < 3; x++) {
            // Extensions larger than holds: near the limit, calls fit and their extensions do not.
            if (r.extend(100 + random.nextInt(400))) {
              extended.incrementAndGet();
            } else {
              refusedExtensions.incrementAndGet();
            }
          }
          if (random.nextInt(4) == 0) {
            r.release();
          } else {
            // Every attempt charged its worst case, as the gateway charges unknown outcomes.
            long actual = r.heldMicros();
            r.settle(actual);
            charged.addAndGet(actual);
          }
        }
      }));
    }
    watcher.start();
    all.forEach(Thread::start);
    start.countDown();
    for (Thread t : all) {
      t.join();
    }
    done.set(true);
    watcher.join();
    System.out.printf("extensions: %d granted, %d refused; charged %d of %d%n", extended.get(),
        refusedExtensions.get(), charged.get(), limit);
    assertThat(violations).as("spent + held above the limit").isEmpty();
    assertThat(extended.get()).isPositive();
    assertThat(refusedExtensions.get()).isPositive();
    BudgetState team = limiter.budget(TEAM);
    assertThat(team.heldMicros()).isZero();
    assertThat(team.spentMicros()).isEqualTo(charged.get()).isLessThanOrEqualTo(limit);
    assertThat(limiter.budget(ORG)).isEqualTo(new BudgetState(ORG, limit * 2, charged.get(), 0));
  }
}
