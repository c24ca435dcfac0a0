package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.cache.redis.testing.TestRedis;
import java.util.List;
import io.pointsman.limits.BudgetState;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.LimitsUnavailableException;
import io.pointsman.limits.Period;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.util.JedisClusterCRC16;

class RedisCounterStoreTest {
  private static CounterLimiter.Builder rules(RedisCounterStore store, FakeClock clock) {
    return CounterLimiter.builder(store)
        .budget(Scope.team("t1"), 1_000_000)
        .budget(Scope.org("o1"), Period.monthly(ZoneOffset.UTC), 1_000_000)
        .requestsPerMinute(Scope.key("k1"), 1_000)
        .tokensPerMinute(Scope.org("o1"), 10_000_000)
        .concurrency(Scope.tag("batch"), 100)
        .clock(clock);
  }

  @Test
  void oneRoundTripPerAdmissionAndPerSettlement() {
    try (TestRedis redis = TestRedis.start()) {
      RedisCounterStore store = Stores.fresh(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build());
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      CounterLimiter limiter = rules(store, clock).build();
      // The first call loads the script by source; from then on it runs by SHA-1.
      limiter.reserve(CounterStoreContract.admission("warm", 10, clock.now())).release();
      long before = store.roundTrips();
      long evalshaBefore = evalshaCalls(redis);
      int calls = 50;
      for (int i = 0; i < calls; i++) {
        Reservation r = limiter.reserve(CounterStoreContract.admission("e" + i, 10,
            clock.now()));
        assertThat(r.remaining()).hasSize(5);
        r.settle(5);
      }
      assertThat(store.roundTrips() - before).isEqualTo(2L * calls);
      // The server agrees (at least: other clients of a shared server may add their own).
      assertThat(evalshaCalls(redis) - evalshaBefore).isGreaterThanOrEqualTo(2L * calls);
    }
  }

  @Test
  void aCrashedInstancesHoldAdoptedByTwoInstancesIsResolvedExactlyOnce() {
    try (TestRedis redis = TestRedis.start()) {
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      CounterLimiter crashed = rules(Stores.fresh(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build()), clock).build();
      Reservation lost = crashed.reserve(CounterStoreContract.admission("lost", 700,
          clock.now()));
      crashed.reserve(CounterStoreContract.admission("done", 300, clock.now())).settle(250);
      // The instance dies holding "lost"; its dispatch intent is all the ledger kept.
      DispatchIntent intent = new DispatchIntent("evt-lost", "req-lost", 1, "k1", null, "t1",
          "o1", Set.of("batch"), "m", "d1", "p", lost.id(), lost.heldMicros(), 700,
          clock.now());
      CounterLimiter a = rules(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build(), clock).build();
      CounterLimiter b = rules(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build(), clock).build();
      BudgetState before = a.budget(Scope.team("t1"));
      assertThat(before).isEqualTo(new BudgetState(Scope.team("t1"), 1_000_000, 250, 700));

      List<Reservation> adoptedByA = a.adopt(List.of(intent));
      List<Reservation> adoptedByB = b.adopt(List.of(intent));
      assertThat(a.budget(Scope.team("t1"))).as("adopting changes nothing").isEqualTo(before);
      assertThat(adoptedByA).hasSize(1);
      assertThat(adoptedByB).hasSize(1);
      assertThat(adoptedByA.get(0).heldMicros()).isEqualTo(700);

      // An attestation charged 420: both instances apply it; exactly one settle counts.
      adoptedByA.get(0).settle(420);
      adoptedByB.get(0).settle(420);
      assertThat(b.budget(Scope.team("t1")))
          .isEqualTo(new BudgetState(Scope.team("t1"), 1_000_000, 670, 0));
      assertThat(a.budget(Scope.team("t1"))).isEqualTo(b.budget(Scope.team("t1")));
      assertThat(redis.client().hget(redis.keyPrefix() + "{limits}:~r:" + lost.id(), "e"))
          .isEqualTo("settled 420 held");
    }
  }

  private static long evalshaCalls(TestRedis redis) {
    String info;
    try (Jedis j = new Jedis(redis.uri().getHost(), redis.uri().getPort())) {
      info = j.info("commandstats");
    }
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("cmdstat_evalsha:")) {
        return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void everyKeyOfAReservationIsInOneClusterSlot() {
    try (TestRedis redis = TestRedis.start()) {
      RedisCounterStore store = Stores.fresh(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).hashTag("tenant-a").build());
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      CounterLimiter limiter = rules(store, clock).build();
      limiter.reserve(CounterStoreContract.admission("e1", 10, clock.now()));
      Set<String> keys = redis.client().keys(redis.keyPrefix() + "*");
      // Five counters, the generation marker, the hold's record and the hold index.
      assertThat(keys).hasSize(8);
      Set<Integer> slots = new HashSet<>();
      for (String k : keys) {
        assertThat(k).startsWith(redis.keyPrefix() + "{tenant-a}:");
        slots.add(JedisClusterCRC16.getSlot(k));
      }
      assertThat(slots).hasSize(1);
    }
  }

  @Test
  void scriptsAreReloadedAfterTheServerForgetsThem() {
    try (TestRedis redis = TestRedis.embedded()) {
      RedisCounterStore store = Stores.fresh(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build());
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      CounterLimiter limiter = rules(store, clock).build();
      limiter.reserve(CounterStoreContract.admission("e1", 10, clock.now())).settle(10);
      redis.client().scriptFlush();
      limiter.reserve(CounterStoreContract.admission("e2", 10, clock.now())).settle(10);
      assertThat(limiter.budget(Scope.team("t1")).spentMicros()).isEqualTo(20);
    }
  }

  private static JedisPooled unreachable() {
    // Port 1 on loopback refuses at once; short timeouts keep the test fast.
    return new JedisPooled(new HostAndPort("127.0.0.1", 1), DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(200).socketTimeoutMillis(200).build());
  }

  @Test
  void anUnreachableRedisFailsClosedByDefaultAndIsCounted() {
    try (JedisPooled client = unreachable()) {
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      RedisCounterStore store = RedisCounterStore.builder(client).build();
      CounterLimiter limiter = rules(store, clock).build();
      assertThatThrownBy(() -> limiter.reserve(CounterStoreContract.admission("e1", 10,
          clock.now()))).isInstanceOfSatisfying(LimitsUnavailableException.class, e -> {
            assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
            assertThat(e.rule()).isEqualTo("limits:store");
            assertThat(e.stage()).isEqualTo("ratelimit.reserve");
          });
      assertThat(limiter.storeUnavailable()).isEqualTo(1);
      assertThat(limiter.failedOpen()).isZero();
      // Tried three times with the same id; refused connections never ran, so nothing pends.
      assertThat(store.failures()).isEqualTo(3);
      assertThat(limiter.pendingEnds()).isZero();
    }
  }

  @Test
  void anUnreachableRedisFailsOpenWhenConfiguredAndIsCounted() {
    try (JedisPooled client = unreachable()) {
      FakeClock clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
      CounterLimiter limiter = rules(RedisCounterStore.builder(client).build(), clock)
          .failOpen(true).build();
      Reservation r = limiter.reserve(CounterStoreContract.admission("e1", 10, clock.now()));
      assertThat(r.heldMicros()).isZero();
      assertThat(r.remaining()).isEmpty();
      r.settle(10);
      // The spend of the call let through waits for the store.
      assertThat(limiter.storeUnavailable()).isEqualTo(2);
      assertThat(limiter.failedOpen()).isEqualTo(1);
      assertThat(limiter.pendingEnds()).isEqualTo(1);
    }
  }
}
