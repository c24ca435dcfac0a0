package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.spi.CounterHold;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Protocol;

/**
 * Holds in Redis that nothing explains (an instance died between reserving and recording its
 * dispatch intent) are released once older than the hold lease, by Redis TIME; holds the
 * ledger names and live calls of this process are kept.
 */
class OrphanHoldSweepTest {
  private static final Scope TEAM = Scope.team("t1");

  @Test
  void holdsThatNoLedgerRowOrLiveCallExplainsAreReleasedAfterTheLease() {
    try (TestRedis redis = TestRedis.start()) {
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      Stores.initialize(redis.client(), redis.keyPrefix());
      // An instance that dies holding two calls: one recorded in the ledger, one not.
      RedisCounterStore deadStore = RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).owner("dead-instance").build();
      CounterLimiter dead = CounterLimiter.builder(deadStore).budget(TEAM, 10_000)
          .concurrency(Scope.key("k1"), 10).clock(clock).build();
      Reservation known = dead.reserve(CounterStoreContract.admission("known", 700,
          clock.now()));
      dead.reserve(CounterStoreContract.admission("orphan", 500, clock.now()));
      DispatchIntent intent = new DispatchIntent("evt-known", "req-known", 1, "k1", null, "t1",
          "o1", Set.of("batch"), "m", "d1", "p", known.id(), 700, 700, clock.now());

      CounterLimiter live = CounterLimiter.builder(RedisCounterStore.builder(redis.client())
              .keyPrefix(redis.keyPrefix()).owner("live-instance").build())
          .budget(TEAM, 10_000).concurrency(Scope.key("k1"), 10).clock(clock)
          .holdLease(Duration.ofMillis(50))
          .ledger(SpendSource.of((s, f, t) -> 0, () -> List.of(intent))).build();
      Reservation running = live.reserve(CounterStoreContract.admission("running", 300,
          clock.now()));
      assertThat(live.budget(TEAM).heldMicros()).isEqualTo(1_500);
      assertThat(live.inflight(Scope.key("k1"))).isEqualTo(3);

      CounterLimiter patient = CounterLimiter.builder(RedisCounterStore.builder(redis.client())
              .keyPrefix(redis.keyPrefix()).build())
          .budget(TEAM, 10_000).clock(clock).holdLease(Duration.ofHours(1))
          .ledger(SpendSource.of((s, f, t) -> 0, List::of)).build();
      assertThat(patient.sweepOrphanHolds()).as("younger than the lease").isZero();
      awaitRedisTimePast(redis, deadStore, 50);
      List<CounterHold> old = deadStore.holdsOlderThan(50, 10);
      assertThat(old).extracting(CounterHold::reservationId)
          .containsExactly("known", "orphan", "running");
      assertThat(old.get(1).owner()).isEqualTo("dead-instance");

      assertThat(live.sweepOrphanHolds()).isEqualTo(1);
      assertThat(live.sweptHolds()).isEqualTo(1);
      assertThat(live.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 10_000, 0, 1_000));
      assertThat(live.inflight(Scope.key("k1"))).isEqualTo(2);
      assertThat(live.sweepOrphanHolds()).as("swept once").isZero();

      // Were the orphan's owner alive after all, its settle charges without releasing again.
      running.settle(250);
      assertThat(live.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 10_000, 250, 700));
    }
  }

  /**
   * A hold the store kept after the ledger resolved its call (an instance died between a
   * rebuild restoring its hold and ending it; the rebuild left the call's charge out of the
   * spend) is settled with the ledger's charge, not released: released, the charge would be
   * missing from the counters.
   */
  @Test
  void aHoldWhoseCallTheLedgerResolvedIsSettledWithTheLedgersCharge() {
    try (TestRedis redis = TestRedis.start()) {
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      Stores.initialize(redis.client(), redis.keyPrefix());
      RedisCounterStore deadStore = RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).owner("dead-instance").build();
      CounterLimiter dead = CounterLimiter.builder(deadStore).budget(TEAM, 10_000).clock(clock)
          .build();
      Reservation settledInLedger = dead.reserve(CounterStoreContract.admission("settled", 700,
          clock.now()));
      dead.reserve(CounterStoreContract.admission("orphan", 500, clock.now()));
      SpendSource ledger = new SpendSource() {
        @Override
        public long spent(Scope scope, Instant from, Instant to) {
          return 0;
        }

        @Override
        public java.util.OptionalLong resolvedCharge(String reservationId) {
          return reservationId.equals(settledInLedger.id()) ? java.util.OptionalLong.of(420)
              : java.util.OptionalLong.empty();
        }
      };
      CounterLimiter sweeper = CounterLimiter.builder(RedisCounterStore.builder(redis.client())
              .keyPrefix(redis.keyPrefix()).owner("sweeper").build())
          .budget(TEAM, 10_000).clock(clock).holdLease(Duration.ofMillis(50)).ledger(ledger)
          .build();
      assertThat(sweeper.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 10_000, 0, 1_200));
      awaitRedisTimePast(redis, deadStore, 50);
      assertThat(sweeper.sweepOrphanHolds()).isEqualTo(2);
      assertThat(sweeper.holdsSettledFromLedger()).isEqualTo(1);
      assertThat(sweeper.budget(TEAM)).as("the resolved call charged, the orphan released")
          .isEqualTo(new BudgetState(TEAM, 10_000, 420, 0));
      // The dead owner's end, arriving late after all, changes nothing.
      settledInLedger.settle(420);
      assertThat(sweeper.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 10_000, 420, 0));
    }
  }

  /** Waits, without sleeping, until Redis's clock is past every hold's creation + age. */
  private static void awaitRedisTimePast(TestRedis redis, RedisCounterStore store, long age) {
    long start = redisMillis(redis);
    while (redisMillis(redis) <= start + age + 1) {
      Thread.onSpinWait();
    }
  }

  private static long redisMillis(TestRedis redis) {
    List<?> t = (List<?>) redis.client().sendCommand(Protocol.Command.TIME);
    return Long.parseLong(new String((byte[]) t.get(0))) * 1000
        + Long.parseLong(new String((byte[]) t.get(1))) / 1000;
  }
}
