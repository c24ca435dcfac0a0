package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * Redis restarts empty while one instance has calls in flight; another instance rebuilds the
 * counters. The rebuild must count the first instance's live holds before it admits anything,
 * not at that instance's next operation: spent + held never exceeds the limit.
 */
class RebuildWindowTest {
  private static final String PREFIX = "window:";
  private static final Scope TEAM = Scope.team("t1");
  private static final long LIMIT = 3_000;

  private RedisServerProcess server;
  private JedisPooled client;
  private FakeClock clock;
  private ScheduledExecutorService timer;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    client = Stores.client(server.uri(), Duration.ofSeconds(2));
    Stores.initialize(client, PREFIX);
    clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
    timer = Executors.newSingleThreadScheduledExecutor();
  }

  @AfterEach
  void stop() {
    timer.shutdownNow();
    client.close();
    server.close();
  }

  private CounterLimiter limiter(RedisDataLossTest.Ledger ledger) {
    return CounterLimiter.builder(RedisCounterStore.builder(client).keyPrefix(PREFIX).build())
        .budget(TEAM, LIMIT).clock(clock).ledger(ledger)
        .heartbeatTimeout(Duration.ofMillis(800)).build();
  }

  @Test
  void anotherInstancesLiveHoldsAreCountedBeforeTheRebuildAdmitsAnything() {
    RedisDataLossTest.Ledger ledger = new RedisDataLossTest.Ledger();
    CounterLimiter a = limiter(ledger);
    CounterLimiter b = limiter(ledger);
    // A heartbeats in the background, as a host's timer does.
    timer.scheduleWithFixedDelay(a::heartbeat, 0, 50, TimeUnit.MILLISECONDS);
    List<Reservation> inFlight = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      inFlight.add(a.reserve(CounterStoreContract.admission("a" + i, 500, clock.now())));
    }
    server.restartEmpty();

    // B finds the counters lost and rebuilds them; then admits until the budget runs out,
    // while A's four holds (2,000) are still live and A does nothing else.
    long admitted = 0;
    int refused = 0;
    List<Reservation> bHolds = new ArrayList<>();
    int unavailable = 0;
    for (int i = 0; i < 10; i++) {
      // Until the rebuild commits (it waits for A's report, fail closed) admissions are refused
      // with 503; on a loaded machine that can outlast one attempt, so each call is retried on
      // 503 for a while. A 402 is final.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (true) {
        try {
          bHolds.add(b.reserve(CounterStoreContract.admission("b" + i, 500, clock.now())));
          admitted += 500;
          break;
        } catch (PointsmanException e) {
          if (e.status() == Status.UNAVAILABLE && System.nanoTime() < deadline) {
            unavailable++;
            continue;
          }
          assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
          refused++;
          break;
        }
      }
    }
    BudgetState seen = b.budget(TEAM);
    System.out.printf("rebuild with another instance's live holds: B admitted %d, refused %d,"
        + " counters %s%n", admitted, refused, seen);
    System.out.printf("admissions refused with 503 while the rebuild waited: %d%n",
        unavailable);
    assertThat(a.rebuilds() + b.rebuilds()).as("one rebuild, by whichever instance").isEqualTo(1);
    assertThat(seen.heldMicros()).as("A's holds counted by the rebuild").isEqualTo(2_000
        + admitted);
    assertThat(2_000 + admitted).as("held never above the limit").isLessThanOrEqualTo(LIMIT);
    assertThat(refused).isEqualTo(8);

    for (Reservation r : inFlight) {
      r.settle(400);
      ledger.spent.addAndGet(400);
    }
    for (Reservation r : bHolds) {
      r.settle(400);
      ledger.spent.addAndGet(400);
    }
    assertThat(a.budget(TEAM)).as("counters = ledger")
        .isEqualTo(new BudgetState(TEAM, LIMIT, ledger.spent.get(), 0));
  }
}
