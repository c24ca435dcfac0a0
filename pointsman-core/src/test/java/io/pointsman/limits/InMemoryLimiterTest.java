package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResolvedModel;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class InMemoryLimiterTest {
  private static final ResolvedModel MODEL = new ResolvedModel(
      ModelSpec.builder("m").price(Price.of(1, 1)).build(), 10, false, 10);

  private static Admission admission(String key, String team, String org, long cost, int n) {
    Identity id = new Identity(key, null, team, org, Set.of("t"), Grant.all(), Grant.all(),
        Grant.all());
    return new Admission("e" + n, id, Set.of("t"), MODEL, 10, 10, cost, Instant.EPOCH);
  }

  @Test
  void reservesInEveryMatchingScopeOrInNone() {
    InMemoryLimiter limiter = InMemoryLimiter.builder()
        .budget(Scope.team("t1"), 1_000).budget(Scope.org("o1"), 150).build();
    Reservation first = limiter.reserve(admission("k", "t1", "o1", 100, 1));
    assertThat(limiter.budget(Scope.team("t1")).heldMicros()).isEqualTo(100);

    assertThatThrownBy(() -> limiter.reserve(admission("k", "t1", "o1", 100, 2)))
        .isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
          assertThat(e.rule()).isEqualTo("budget:org:o1");
        });
    assertThat(limiter.budget(Scope.team("t1")).heldMicros())
        .as("the team was not held for a call the org refused").isEqualTo(100);

    first.settle(40);
    assertThat(limiter.budget(Scope.team("t1"))).isEqualTo(
        new BudgetState(Scope.team("t1"), 1_000, 40, 0));
    assertThat(limiter.budget(Scope.org("o1")).availableMicros()).isEqualTo(110);
  }

  @Test
  void aReservationEndsOnlyOnce() {
    InMemoryLimiter limiter = InMemoryLimiter.builder().budget(Scope.global(), 1_000).build();
    Reservation r = limiter.reserve(admission("k", null, null, 10, 1));
    r.release();
    assertThatThrownBy(() -> r.settle(5)).isInstanceOf(IllegalStateException.class);
    assertThat(limiter.budget(Scope.global()).spentMicros()).isZero();
  }

  @Test
  void manyThreadsOnOneBudgetNeverOverspendAndLeaveNothingHeld() throws Exception {
    long limit = 100_000;
    InMemoryLimiter limiter = InMemoryLimiter.builder()
        .budget(Scope.team("t1"), limit).budget(Scope.tag("t"), limit * 2)
        .concurrency(Scope.key("k"), 16).build();
    int threads = 64;
    AtomicLong charged = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> all = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int seed = t;
      Thread thread = new Thread(() -> {
        Random random = new Random(seed);
        try {
          start.await();
          for (int i = 0; i < 2_000; i++) {
            long worst = 1 + random.nextInt(500);
            Reservation r;
            try {
              r = limiter.reserve(admission("k", "t1", "o", worst, i));
            } catch (PointsmanException denied) {
              continue;
            }
            if (random.nextBoolean()) {
              long actual = random.nextInt((int) worst + 1);
              r.settle(actual);
              charged.addAndGet(actual);
            } else {
              r.release();
            }
          }
        } catch (Throwable e) {
          errors.add(e);
        }
      });
      all.add(thread);
      thread.start();
    }
    start.countDown();
    for (Thread thread : all) {
      thread.join();
    }
    assertThat(errors).isEmpty();
    BudgetState team = limiter.budget(Scope.team("t1"));
    assertThat(team.heldMicros()).isZero();
    assertThat(team.spentMicros()).isEqualTo(charged.get()).isLessThanOrEqualTo(limit);
    assertThat(limiter.budget(Scope.tag("t")).spentMicros()).isEqualTo(charged.get());
    assertThat(limiter.inflight(Scope.key("k"))).isZero();
  }

  @Test
  void builderRefusesDuplicatesAndBadLimits() {
    assertThatThrownBy(() -> InMemoryLimiter.builder().budget(Scope.key("k"), 1)
        .budget(Scope.key("k"), 2)).isInstanceOf(IllegalStateException.class)
        .hasMessage("budget:key:k was already set to 1");
    assertThatThrownBy(() -> InMemoryLimiter.builder().budget(Scope.key("k"), -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> InMemoryLimiter.builder().concurrency(Scope.key("k"), 0))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
