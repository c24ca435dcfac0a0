package io.pointsman.limits.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.cache.redis.testing.RedisServerProcess;
import io.pointsman.cache.redis.testing.ReplyDroppingProxy;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterStoreUnavailableException;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.JedisPooled;

/**
 * A reply lost after Redis ran the script: a TCP proxy in front of a redis-server of the test's
 * own forwards a command, drops exactly its reply and closes that connection. The pooled client
 * then fails that command although it applied; retries must not apply it again.
 */
class LostReplyTest {
  private static final long NOW = Instant.parse("2024-05-01T10:00:00Z").toEpochMilli();
  private static final String PREFIX = "lost:";
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
    client = Stores.client(proxy.uri(), Duration.ofSeconds(2));
    direct = Stores.client(server.uri(), Duration.ofSeconds(2));
    Stores.initialize(direct, PREFIX);
    clock = new FakeClock(Instant.ofEpochMilli(NOW));
  }

  @AfterEach
  void stop() {
    client.close();
    direct.close();
    proxy.close();
    server.close();
  }

  private RedisCounterStore store() {
    return RedisCounterStore.builder(client).keyPrefix(PREFIX).build();
  }

  private CounterLimiter limiter(RedisCounterStore store) {
    return CounterLimiter.builder(store).budget(TEAM, 1_000).clock(clock).build();
  }

  @Test
  void aHoldWhoseReplyWasLostIsRetriedWithItsIdAndHeldOnce() {
    CounterLimiter limiter = limiter(store());
    // Scripts are loaded, so the next command runs the script at once.
    limiter.reserve(CounterStoreContract.admission("warm", 10, clock.now())).release();

    proxy.dropNextReplyTo("call-1");
    Reservation r = limiter.reserve(CounterStoreContract.admission("call-1", 300,
        clock.now()));
    assertThat(proxy.dropped()).as("the reply was lost after the hold applied").isEqualTo(1);
    assertThat(limiter.budget(TEAM)).as("held once, not twice")
        .isEqualTo(new BudgetState(TEAM, 1_000, 0, 300));
    r.settle(250);
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 250, 0));
  }

  @Test
  void aSettleWhoseReplyWasLostIsNotAppliedAgainWhenTheClientRetries() {
    RedisCounterStore store = store();
    Counter team = Counter.budget("budget:team:t1", 1_000, 300, 0);
    assertThat(store.acquire("r1", List.of(team), NOW).granted()).isTrue();

    proxy.dropNextReplyTo("r1");
    assertThatThrownBy(() -> store.settle("r1", List.of(team), 100, NOW))
        .isInstanceOf(CounterStoreUnavailableException.class);
    assertThat(proxy.dropped()).isEqualTo(1);
    // A client that does not know whether the settle applied tries again.
    store.settle("r1", List.of(team), 100, NOW);
    assertThat(store.read(team)).isEqualTo(new CounterReading(100, 0, 0));
  }

  @Test
  void anExtensionWhoseReplyWasLostIsRetriedWithItsIdAndAppliedOnce() {
    CounterLimiter limiter = limiter(store());
    Reservation r = limiter.reserve(CounterStoreContract.admission("call-3", 300, clock.now()));
    assertThat(r.extend(100)).isTrue();
    proxy.dropNextReplyTo("call-3:x2");
    assertThat(r.extend(200)).isTrue();
    assertThat(proxy.dropped()).isEqualTo(1);
    assertThat(r.heldMicros()).isEqualTo(600);
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 0, 600));
    r.settle(550);
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 550, 0));
  }

  @Test
  void aRepeatedAcquireOfTheSameIdTakesNothingMoreAndReturnsTheFirstGrant() {
    RedisCounterStore store = store();
    Counter team = Counter.budget("budget:team:t1", 1_000, 300, 0);
    Counter slot = Counter.concurrency("concurrency:key:k1", 2, 60_000);
    long first = store.acquire("r1", List.of(team, slot), NOW).remaining(0);
    proxy.dropNextReplyTo("r1");
    assertThatThrownBy(() -> store.acquire("r1", List.of(team, slot), NOW))
        .isInstanceOf(CounterStoreUnavailableException.class);
    assertThat(store.acquire("r1", List.of(team, slot), NOW).remaining(0)).isEqualTo(first)
        .isEqualTo(700);
    assertThat(store.read(team).heldMicros()).isEqualTo(300);
    assertThat(store.read(slot).inFlight()).isEqualTo(1);
  }

  @Test
  void anAcquireWhoseRepliesAreAllLostIsRefusedAndItsHoldReleasedWhenRedisAnswersAgain() {
    CounterLimiter limiter = limiter(store());
    limiter.reserve(CounterStoreContract.admission("warm", 10, clock.now())).release();
    // Every attempt applies (once, by id) and every reply is lost: the call is refused 503, and
    // the hold it may have left is released by id when the store answers.
    proxy.dropRepliesTo("call-2", 3);
    assertThatThrownBy(() -> limiter.reserve(CounterStoreContract.admission("call-2", 400,
        clock.now()))).isInstanceOf(io.pointsman.limits.LimitsUnavailableException.class);
    assertThat(proxy.dropped()).isEqualTo(3);
    assertThat(direct.hget(PREFIX + "{limits}:budget:team:t1", "h")).as("applied once")
        .isEqualTo("400");
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    assertThat(limiter.endAlerts()).isEqualTo(1);
    assertThat(limiter.retryPendingEnds()).isZero();
    assertThat(limiter.budget(TEAM)).as("900 of 1,000 left would look like 1,000 free if"
        + " this hold stayed").isEqualTo(new BudgetState(TEAM, 1_000, 0, 0));
    // The late acquire (were it still on its way) finds the tombstone and takes nothing.
    assertThat(direct.hget(PREFIX + "{limits}:~r:call-2", "e")).isEqualTo("released held");
  }
}
