package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.PointsmanException;
import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.cache.redis.testing.ReplyDroppingProxy;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * Redis out of reach while calls end (the server keeps its data; a proxy cuts every connection
 * and refuses new ones), then back: nothing stays held, and the spend of calls let through
 * without limits reaches the shared counters.
 */
class OutageLeakTest {
  private static final String PREFIX = "outage:";
  private static final Scope TEAM = Scope.team("t1");

  private RedisServerProcess server;
  private ReplyDroppingProxy proxy;
  private JedisPooled client;
  private JedisPooled direct;
  private FakeClock clock;

  @BeforeEach
  void start() {
    server = RedisServerProcess.start();
    proxy = ReplyDroppingProxy.start(server.uri());
    client = Stores.client(proxy.uri(), Duration.ofMillis(500));
    direct = Stores.client(server.uri(), Duration.ofSeconds(2));
    Stores.initialize(direct, PREFIX);
    clock = new FakeClock(Instant.parse("2024-05-01T10:00:00Z"));
  }

  @AfterEach
  void stop() {
    client.close();
    direct.close();
    proxy.close();
    server.close();
  }

  private CounterLimiter.Builder limiter() {
    return CounterLimiter.builder(RedisCounterStore.builder(client).keyPrefix(PREFIX).build())
        .budget(TEAM, 3_000).clock(clock);
  }

  @Test
  void holdsWhoseEndsFailedWhileRedisWasDownAreNotHeldForGood() {
    CounterLimiter limiter = limiter().build();
    List<Reservation> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(limiter.reserve(CounterStoreContract.admission("c" + i, 300, clock.now())));
    }
    assertThat(limiter.budget(TEAM).heldMicros()).isEqualTo(1_500);
    proxy.down(true);
    int thrown = 0;
    for (int i = 0; i < 5; i++) {
      try {
        if (i < 3) {
          calls.get(i).settle(100);
        } else {
          calls.get(i).release();
        }
      } catch (PointsmanException e) {
        thrown++;
      }
    }
    proxy.down(false);
    // Admissions retry what is pending once the store answers (at most every 5 s).
    clock.advance(Duration.ofSeconds(10));
    limiter.reserve(CounterStoreContract.admission("probe", 10, clock.now())).release();
    assertThat(limiter.budget(TEAM)).as("nothing held for good")
        .isEqualTo(new BudgetState(TEAM, 3_000, 300, 0));
    assertThat(thrown).as("queued, not thrown").isZero();
  }

  @Test
  void theSpendOfCallsLetThroughWithoutLimitsReachesTheSharedCounters() {
    CounterLimiter limiter = limiter().failOpen(true).build();
    limiter.reserve(CounterStoreContract.admission("warm", 10, clock.now())).settle(10);
    proxy.down(true);
    long charged = 10;
    for (int i = 0; i < 4; i++) {
      Reservation r = limiter.reserve(CounterStoreContract.admission("open" + i, 300,
          clock.now()));
      assertThat(r.heldMicros()).isZero();
      try {
        r.settle(250);
      } catch (PointsmanException e) {
        // Earlier versions threw here; the spend must arrive either way.
      }
      charged += 250;
    }
    proxy.down(false);
    clock.advance(Duration.ofSeconds(10));
    limiter.reserve(CounterStoreContract.admission("probe", 10, clock.now())).release();
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 3_000, charged, 0));
  }

  @Test
  void anEndQueuedWhileDownIsAlertedAndRetriedWithItsIdUntilApplied() {
    CounterLimiter limiter = limiter().build();
    Reservation r = limiter.reserve(CounterStoreContract.admission("c1", 300, clock.now()));
    proxy.down(true);
    r.settle(120);
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    assertThat(limiter.endAlerts()).isEqualTo(1);
    assertThat(limiter.retryPendingEnds()).isEqualTo(1);
    proxy.down(false);
    assertThat(limiter.retryPendingEnds()).isZero();
    assertThat(limiter.retryPendingEnds()).isZero();
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 3_000, 120, 0));
    assertThat(direct.hget(PREFIX + "{limits}:~r:c1", "e")).isEqualTo("settled 120 held");
  }
}
