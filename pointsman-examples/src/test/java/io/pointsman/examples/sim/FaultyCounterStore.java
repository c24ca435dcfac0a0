package io.pointsman.examples.sim;

import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreUnavailableException;
import java.util.List;
import java.util.function.Consumer;

/**
 * A counter store over {@link InProcessCounterStore} that fails on command: one fault is armed
 * for the next acquire, settle or release, and fires once.
 *
 * <ul>
 *   <li>{@link Kind#LOST_REPLY}: the operation is applied, then the reply is lost (throws);
 *   <li>{@link Kind#TIMEOUT}: the operation is not applied and throws;
 *   <li>{@link Kind#DUPLICATE}: the operation is applied twice (a client that retried an
 *       operation whose first reply it never saw) and returns normally.
 * </ul>
 *
 * <p>{@link #wipe()} loses every counter (the data loss of a store that restarted empty).
 * Reads are never faulted: the simulation's checks read through them.
 */
final class FaultyCounterStore implements CounterStore {
  enum Op { ACQUIRE, SETTLE, RELEASE }

  enum Kind { LOST_REPLY, TIMEOUT, DUPLICATE }

  record Armed(Op op, Kind kind) {}

  private volatile InProcessCounterStore delegate = new InProcessCounterStore();
  private Armed armed;
  private final Consumer<String> fired;

  FaultyCounterStore(Consumer<String> fired) {
    this.fired = fired;
  }

  void arm(Armed value) {
    this.armed = value;
  }

  void wipe() {
    delegate = new InProcessCounterStore();
  }

  private Kind take(Op op) {
    Armed a = armed;
    if (a == null || a.op() != op) {
      return null;
    }
    armed = null;
    fired.accept("store:" + a.kind() + ":" + op);
    return a.kind();
  }

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis) {
    Kind k = take(Op.ACQUIRE);
    if (k == Kind.TIMEOUT) {
      throw new CounterStoreUnavailableException("simulated timeout before acquire", null);
    }
    CounterGrant grant = delegate.acquire(reservationId, counters, nowMillis);
    if (k == Kind.DUPLICATE && grant.granted()) {
      delegate.acquire(reservationId, counters, nowMillis);
    }
    if (k == Kind.LOST_REPLY) {
      throw new CounterStoreUnavailableException("simulated lost reply after acquire", null);
    }
    return grant;
  }

  @Override
  public void settle(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    Kind k = take(Op.SETTLE);
    if (k == Kind.TIMEOUT) {
      throw new CounterStoreUnavailableException("simulated timeout before settle", null);
    }
    delegate.settle(reservationId, counters, chargeMicros, nowMillis);
    if (k == Kind.DUPLICATE) {
      delegate.settle(reservationId, counters, chargeMicros, nowMillis);
    }
    if (k == Kind.LOST_REPLY) {
      throw new CounterStoreUnavailableException("simulated lost reply after settle", null);
    }
  }

  @Override
  public void release(String reservationId, List<Counter> counters, long nowMillis) {
    Kind k = take(Op.RELEASE);
    if (k == Kind.TIMEOUT) {
      throw new CounterStoreUnavailableException("simulated timeout before release", null);
    }
    delegate.release(reservationId, counters, nowMillis);
    if (k == Kind.DUPLICATE) {
      delegate.release(reservationId, counters, nowMillis);
    }
    if (k == Kind.LOST_REPLY) {
      throw new CounterStoreUnavailableException("simulated lost reply after release", null);
    }
  }

  @Override
  public CounterReading read(Counter counter) {
    return delegate.read(counter);
  }

  @Override
  public void restore(Counter counter, long spentMicros, long heldMicros, long nowMillis) {
    delegate.restore(counter, spentMicros, heldMicros, nowMillis);
  }
}
