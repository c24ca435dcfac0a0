package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.LimitsUnavailableException;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * Redis loses every counter mid-way (a redis-server of the test's own, without persistence,
 * killed and started empty on the same port). Shared budgets must not restart at zero: without
 * a ledger the limiter refuses; with one, exactly one instance rebuilds the counters from it
 * and spend stays within the limit.
 */
class RedisDataLossTest {
  private static final String PREFIX = "loss:";
  private static final Scope TEAM = Scope.team("t1");
  private static final long LIMIT = 3_000;

  /** The system of record: what the ledger charged, and the holds it still has open. */
  static final class Ledger implements SpendSource {
    final AtomicLong spent = new AtomicLong();
    final Set<String> settled = ConcurrentHashMap.newKeySet();
    final List<DispatchIntent> unresolved = new CopyOnWriteArrayList<>();

    void charge(Reservation r, long cost) {
      spent.addAndGet(cost);
      settled.add(r.id());
    }

    @Override
    public long spent(Scope scope, Instant from, Instant to) {
      return scope.equals(TEAM) ? spent.get() : 0;
    }

    @Override
    public Collection<DispatchIntent> unresolvedHolds() {
      return unresolved;
    }

    @Override
    public boolean includes(String reservationId) {
      return settled.contains(reservationId);
    }
  }

  private RedisServerProcess server;
  private JedisPooled client;
  private FakeClock clock;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    client = Stores.client(server.uri(), Duration.ofSeconds(2));
    Stores.initialize(client, PREFIX);
    clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private CounterLimiter.Builder limiter() {
    return CounterLimiter.builder(RedisCounterStore.builder(client).keyPrefix(PREFIX).build())
        .budget(TEAM, LIMIT).clock(clock);
  }

  @Test
  void withoutALedgerCountersLostByRedisAreRefusedNotRestartedAtZero() {
    CounterLimiter limiter = limiter().build();
    long charged = 0;
    for (int i = 0; i < 10; i++) {
      limiter.reserve(CounterStoreContract.admission("a" + i, 300, clock.now())).settle(250);
      charged += 250;
    }
    server.restartEmpty();
    int refused = 0;
    for (int i = 0; i < 10; i++) {
      try {
        limiter.reserve(CounterStoreContract.admission("b" + i, 300, clock.now())).settle(250);
        charged += 250;
      } catch (PointsmanException e) {
        assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
        assertThat(e.rule()).isEqualTo("limits:store");
        refused++;
      }
    }
    System.out.printf("redis lost its data without a ledger: charged %d of %d, %d refused%n",
        charged, LIMIT, refused);
    assertThat(charged).as("spent never above the limit").isLessThanOrEqualTo(LIMIT);
    assertThat(refused).isEqualTo(10);
  }

  @Test
  void withALedgerTheCountersAreRebuiltFromItAndSpendStaysWithinTheLimit() {
    Ledger ledger = new Ledger();
    CounterLimiter a = limiter().ledger(ledger).build();
    CounterLimiter b = limiter().ledger(ledger).build();
    for (int i = 0; i < 8; i++) {
      CounterLimiter l = i % 2 == 0 ? a : b;
      Reservation r = l.reserve(CounterStoreContract.admission("s" + i, 300, clock.now()));
      r.settle(200);
      ledger.charge(r, 200);
    }
    // Three calls of A in flight, and one hold of a crashed instance the ledger has open.
    List<Reservation> inFlight = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      inFlight.add(a.reserve(CounterStoreContract.admission("f" + i, 300, clock.now())));
    }
    Reservation crashed = limiter().build().reserve(CounterStoreContract.admission("crashed",
        300, clock.now()));
    DispatchIntent intent = new DispatchIntent("evt-crashed", "req-crashed", 1, "k1", null,
        "t1", "o1", Set.of("batch"), "m", "d1", "p", crashed.id(), 300, 300, clock.now());
    ledger.unresolved.add(intent);
    assertThat(a.budget(TEAM)).isEqualTo(new BudgetState(TEAM, LIMIT, 1_600, 1_200));

    server.restartEmpty();

    // The next call through A finds the counters stale, rebuilds them from the ledger (settled
    // spend and the open hold), counts its own live holds again, and only then decides.
    assertThatThrownBy(() -> a.reserve(CounterStoreContract.admission("n1", 300, clock.now())))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED));
    assertThat(a.rebuilds()).isEqualTo(1);
    assertThat(a.budget(TEAM)).as("rebuilt = ledger + live holds")
        .isEqualTo(new BudgetState(TEAM, LIMIT, 1_600, 300 + 900));
    for (Reservation r : inFlight) {
      r.settle(200);
      ledger.charge(r, 200);
    }
    assertThat(b.budget(TEAM)).isEqualTo(new BudgetState(TEAM, LIMIT, 2_200, 300));
    assertThat(b.rebuilds()).as("one instance rebuilt").isZero();

    // B keeps admitting against the rebuilt counters until the budget runs out.
    long refused = 0;
    for (int i = 0; i < 10; i++) {
      try {
        Reservation r = b.reserve(CounterStoreContract.admission("m" + i, 300, clock.now()));
        r.settle(300);
        ledger.charge(r, 300);
      } catch (PointsmanException e) {
        assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
        refused++;
      }
    }
    // The crashed call is attested at 250 and resolved through the adopted handle.
    Reservation adopted = a.adopt(List.of(intent)).get(0);
    adopted.settle(250);
    ledger.charge(adopted, 250);
    ledger.unresolved.clear();
    System.out.printf("redis lost its data with a ledger: ledger charged %d of %d, %d refused,"
        + " counters %s%n", ledger.spent.get(), LIMIT, refused, a.budget(TEAM));
    assertThat(refused).isPositive();
    assertThat(ledger.spent.get()).as("spent never above the limit")
        .isLessThanOrEqualTo(LIMIT);
    assertThat(a.budget(TEAM)).as("counters = ledger")
        .isEqualTo(new BudgetState(TEAM, LIMIT, ledger.spent.get(), 0));
  }

  @Test
  void onlyOneInstanceRebuildsAndTheOthersRefuseMeanwhile() throws Exception {
    Ledger ledger = new Ledger();
    ledger.spent.set(1_000);
    server.restartEmpty();
    // Another instance holds the rebuild lock: this one refuses rather than rebuild as well.
    RedisCounterStore other = RedisCounterStore.builder(client).keyPrefix(PREFIX).build();
    CounterLimiter waiting = limiter().ledger(ledger).build();
    try (var rebuild = other.beginRebuild(60_000, true)) {
      assertThat(rebuild).isNotNull();
      assertThatThrownBy(() -> waiting.reserve(CounterStoreContract.admission("w1", 10,
          clock.now()))).isInstanceOf(LimitsUnavailableException.class)
          .hasMessageContaining("stale");
      assertThat(waiting.rebuilds()).isZero();
    }
    // Released without commit: still stale. Now eight threads of two instances race.
    List<CounterLimiter> limiters = List.of(limiter().ledger(ledger).build(),
        limiter().ledger(ledger).build());
    CountDownLatch go = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    AtomicLong admitted = new AtomicLong();
    for (int t = 0; t < 8; t++) {
      CounterLimiter l = limiters.get(t % 2);
      int id = t;
      threads.add(new Thread(() -> {
        try {
          go.await();
          l.reserve(CounterStoreContract.admission("race" + id, 100, clock.now())).release();
          admitted.incrementAndGet();
        } catch (LimitsUnavailableException e) {
          // Refused while another rebuilt.
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    threads.forEach(Thread::start);
    go.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(limiters.get(0).rebuilds() + limiters.get(1).rebuilds()).isEqualTo(1);
    assertThat(admitted.get()).isPositive();
    assertThat(waiting.budget(TEAM)).isEqualTo(new BudgetState(TEAM, LIMIT, 1_000, 0));
  }
}
