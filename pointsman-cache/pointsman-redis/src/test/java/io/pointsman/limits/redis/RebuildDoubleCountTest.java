package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * A rebuild of lost counters must not count twice the charge of a call whose end is still to
 * come. A call's usage record is durable (and reaches the ledger through the journal's
 * settler) before its hold ends in the store; when the store lost its data in between, the
 * rebuild restores the call's hold and its end adds the charge, so the spend the rebuild reads
 * must leave that call's ledger charge out. The same holds for an end kept pending while the
 * store was down, when the ledger receives its charge after the limiter asked whether it had
 * it (RedisChaosTest saw shared counters 133 to 437 micro-units above the ledger).
 */
class RebuildDoubleCountTest {
  private static final String PREFIX = "double:";
  private static final Scope TEAM = Scope.team("t1");
  private static final long LIMIT = 100_000;

  /** A ledger keyed by reservation: what the settler has written so far. */
  static final class KeyedLedger implements SpendSource {
    final Map<String, Long> charges = new ConcurrentHashMap<>();
    /** Charges the settler writes after the limiter asked about them, before the spend read. */
    final Map<String, Long> landBeforeSpendRead = new ConcurrentHashMap<>();

    @Override
    public long spent(Scope scope, Instant from, Instant to) {
      return spentExcluding(scope, from, to, Set.of());
    }

    @Override
    public long spentExcluding(Scope scope, Instant from, Instant to, Set<String> excluded) {
      charges.putAll(landBeforeSpendRead);
      landBeforeSpendRead.clear();
      if (!scope.equals(TEAM)) {
        return 0;
      }
      long sum = 0;
      for (Map.Entry<String, Long> e : charges.entrySet()) {
        if (!excluded.contains(e.getKey())) {
          sum += e.getValue();
        }
      }
      return sum;
    }

    @Override
    public boolean includes(String reservationId) {
      return charges.containsKey(reservationId);
    }

    long total() {
      return charges.values().stream().mapToLong(Long::longValue).sum();
    }
  }

  private RedisServerProcess server;
  private JedisPooled client;
  private FakeClock clock;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    client = Stores.client(server.uri(), Duration.ofMillis(500));
    Stores.initialize(client, PREFIX);
    clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  private CounterLimiter limiter(KeyedLedger ledger) {
    return CounterLimiter.builder(RedisCounterStore.builder(client).keyPrefix(PREFIX).build())
        .budget(TEAM, LIMIT).clock(clock).ledger(ledger)
        .pendingRetryInterval(Duration.ZERO)
        .heartbeatTimeout(Duration.ofMillis(800)).build();
  }

  /** Until the rebuild commits, admissions are refused with 503 (fail closed): retried. */
  private Reservation reserveRetrying(CounterLimiter limiter, String id) {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(20);
    while (true) {
      try {
        return limiter.reserve(CounterStoreContract.admission(id, 500, clock.now()));
      } catch (io.pointsman.PointsmanException e) {
        if (e.status() != io.pointsman.Status.UNAVAILABLE || System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  @Test
  void aLiveCallWhoseRecordReachedTheLedgerIsChargedOnceAfterARebuild() {
    KeyedLedger ledger = new KeyedLedger();
    CounterLimiter limiter = limiter(ledger);
    Reservation r = limiter.reserve(CounterStoreContract.admission("c1", 500, clock.now()));
    server.restartEmpty();
    // The call's record is durable and the settler wrote it before the hold ended.
    ledger.charges.put(r.id(), 400L);
    r.settle(400);
    assertThat(limiter.rebuilds()).isEqualTo(1);
    assertThat(limiter.budget(TEAM)).as("counters = ledger")
        .isEqualTo(new BudgetState(TEAM, LIMIT, ledger.total(), 0));
  }

  @Test
  void aPendingEndWhoseChargeLandsDuringTheRebuildIsChargedOnce() {
    KeyedLedger ledger = new KeyedLedger();
    CounterLimiter limiter = limiter(ledger);
    Reservation r = limiter.reserve(CounterStoreContract.admission("c2", 500, clock.now()));
    server.stop();
    r.settle(400); // the store is down: the end is kept pending
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    // The settler writes the record after the limiter asked whether the ledger has it, just
    // before the rebuild reads the spend.
    ledger.landBeforeSpendRead.put(r.id(), 400L);
    server.startAgain();
    clock.advance(Duration.ofSeconds(1));
    Reservation next = reserveRetrying(limiter, "c3");
    limiter.retryPendingEnds();
    assertThat(limiter.pendingEnds()).isZero();
    assertThat(ledger.charges).containsKey(r.id());
    next.release();
    assertThat(limiter.budget(TEAM)).as("counters = ledger")
        .isEqualTo(new BudgetState(TEAM, LIMIT, ledger.total(), 0));
  }
}
