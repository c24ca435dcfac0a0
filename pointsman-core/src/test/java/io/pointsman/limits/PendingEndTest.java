package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreStaleException;
import io.pointsman.spi.CounterStoreUnavailableException;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Ends the store does not confirm are kept pending, alerted and retried by the limiter. */
class PendingEndTest {
  private static final Scope TEAM = Scope.team("t1");

  /** The in-process store behind a switch: down (unreachable) or stale (lost its data). */
  static final class SwitchedStore implements CounterStore {
    final InProcessCounterStore inner = new InProcessCounterStore();
    volatile boolean down;
    volatile boolean stale;
    int ends;

    private void check() {
      if (down) {
        throw new CounterStoreUnavailableException("down", null, true);
      }
      if (stale) {
        throw new CounterStoreStaleException("stale");
      }
    }

    @Override
    public CounterGrant acquire(String id, List<Counter> cs, long now, long mono) {
      check();
      return inner.acquire(id, cs, now, mono);
    }

    @Override
    public boolean extend(String id, String op, List<Counter> cs, long add, long now) {
      check();
      return inner.extend(id, op, cs, add, now);
    }

    @Override
    public boolean end(String id, List<Counter> cs, long charge, long now) {
      check();
      ends++;
      return inner.end(id, cs, charge, now);
    }

    @Override
    public CounterReading read(Counter c) {
      check();
      return inner.read(c);
    }

    @Override
    public CounterRebuild beginRebuild(long lockMillis, boolean onlyIfStale) {
      if (down) {
        throw new CounterStoreUnavailableException("down", null, false);
      }
      if (onlyIfStale && !stale) {
        return null;
      }
      CounterRebuild r = inner.beginRebuild(lockMillis, false);
      return new CounterRebuild() {
        @Override
        public void restore(Counter counter, long spent, long held, long now) {
          r.restore(counter, spent, held, now);
        }

        @Override
        public void hold(String id, List<Counter> counters, long now) {
          r.hold(id, counters, now);
        }

        @Override
        public void commit() {
          r.commit();
          stale = false;
        }

        @Override
        public void close() {
          r.close();
        }
      };
    }
  }

  private static io.pointsman.spi.Admission call(String id, long worstCase) {
    return Admissions.of(id, "k1", "t1", "o1", Set.of(), worstCase, Instant.EPOCH);
  }

  @Test
  void anUnconfirmedSettleIsPendingAlertedAndAppliedOnceLater() {
    SwitchedStore store = new SwitchedStore();
    FakeClock clock = new FakeClock(Instant.EPOCH);
    CounterLimiter limiter = CounterLimiter.builder(store).budget(TEAM, 1_000).clock(clock)
        .build();
    Reservation r = limiter.reserve(call("e1", 300));
    store.down = true;
    r.settle(250);
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    assertThat(limiter.endAlerts()).isEqualTo(1);
    assertThat(limiter.storeUnavailable()).isEqualTo(1);
    assertThatThrownBy(() -> r.settle(250)).as("queued counts as ended")
        .isInstanceOf(IllegalStateException.class);
    assertThat(limiter.retryPendingEnds()).as("still down").isEqualTo(1);
    store.down = false;
    assertThat(limiter.retryPendingEnds()).isZero();
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 250, 0));
    assertThat(store.ends).isEqualTo(1);
  }

  @Test
  void pendingEndsAreRetriedByAdmissionsOnceTheStoreAnswersAtMostOncePerInterval() {
    SwitchedStore store = new SwitchedStore();
    FakeClock clock = new FakeClock(Instant.EPOCH);
    CounterLimiter limiter = CounterLimiter.builder(store).budget(TEAM, 1_000).clock(clock)
        .pendingRetryInterval(Duration.ofSeconds(5)).build();
    Reservation a = limiter.reserve(call("e1", 300));
    Reservation b = limiter.reserve(call("e2", 200));
    store.down = true;
    a.release();
    b.settle(150);
    store.down = false;
    limiter.reserve(call("e3", 10)).release();
    assertThat(limiter.pendingEnds()).isZero();
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 150, 0));

    Reservation c = limiter.reserve(call("e4", 100));
    store.down = true;
    c.settle(100);
    store.down = false;
    // The last retry was a moment ago: admissions wait for the interval before the next one.
    limiter.reserve(call("e5", 10)).release();
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    clock.advance(Duration.ofSeconds(5));
    limiter.reserve(call("e6", 10)).release();
    assertThat(limiter.pendingEnds()).isZero();
    assertThat(limiter.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 250, 0));
  }

  @Test
  void theSpendOfCallsAdmittedWithoutLimitsReachesTheCounters() {
    SwitchedStore store = new SwitchedStore();
    FakeClock clock = new FakeClock(Instant.EPOCH);
    CounterLimiter limiter = CounterLimiter.builder(store).budget(TEAM, 1_000).clock(clock)
        .failOpen(true).build();
    store.down = true;
    Reservation r = limiter.reserve(call("e1", 300));
    assertThat(r.heldMicros()).isZero();
    assertThat(r.extend(500)).as("no limits apply to it").isTrue();
    r.settle(200);
    assertThat(limiter.failedOpen()).isEqualTo(1);
    assertThat(limiter.pendingEnds()).isEqualTo(1);
    store.down = false;
    limiter.retryPendingEnds();
    assertThat(limiter.budget(TEAM).spentMicros()).isEqualTo(200);
  }

  @Test
  void staleCountersRefuseWithoutALedgerAndAreRebuiltFromOne() {
    SwitchedStore store = new SwitchedStore();
    CounterLimiter refusing = CounterLimiter.builder(store).budget(TEAM, 1_000).failOpen(true)
        .build();
    store.stale = true;
    assertThatThrownBy(() -> refusing.reserve(call("e1", 10)))
        .as("stale counters refuse even when failing open")
        .isInstanceOf(LimitsUnavailableException.class).hasMessageContaining("stale");
    assertThat(refusing.staleRefusals()).isEqualTo(1);

    CounterLimiter rebuilding = CounterLimiter.builder(store).budget(TEAM, 1_000)
        .ledger((scope, from, to) -> scope.equals(TEAM) ? 700 : 0).build();
    Reservation r = rebuilding.reserve(call("e2", 300));
    assertThat(rebuilding.rebuilds()).isEqualTo(1);
    assertThat(rebuilding.budget(TEAM)).isEqualTo(new BudgetState(TEAM, 1_000, 700, 300));
    r.release();
  }
}
