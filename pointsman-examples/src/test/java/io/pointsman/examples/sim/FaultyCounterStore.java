package io.pointsman.examples.sim;

import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreUnavailableException;
import java.util.List;
import java.util.function.Consumer;

/**
 * A counter store over {@link InProcessCounterStore} that cannot be reached on command: one
 * fault is armed for the next acquire, extension or end, and fails that operation's next
 * {@code times} tries with a {@link CounterStoreUnavailableException} whose outcome is known
 * (nothing was applied), then lets it through. With fewer failures than the limiter's
 * {@code storeAttempts} the limiter's own retry applies it; with as many, the admission is
 * refused, the extension refused, or the end kept pending.
 *
 * <p>Only faults within the in-process store's contract are injected. That store does not
 * record operations by id ({@link CounterStore}: "a store in the process never loses a reply
 * and may rely on the limiter ending each reservation once"), so a lost reply (applied, then a
 * throw: the limiter's retry would apply it again) and a duplicated delivery are outside it;
 * they are the shared store's subject ({@code LostReplyTest} on Redis). An operation that
 * certainly did not apply needs no id to be retried safely.
 *
 * <p>{@link #wipe()} loses every counter (the store of a process that lost its memory).
 * Reads and rebuilds are never faulted: the simulation's checks read through them.
 */
final class FaultyCounterStore implements CounterStore {
  enum Op { ACQUIRE, EXTEND, END }

  /** A fault: the next {@code times} tries of {@code op} fail. */
  record Armed(Op op, int times) {}

  private volatile InProcessCounterStore delegate = new InProcessCounterStore();
  private Armed armed;
  private int left;
  private final Consumer<String> fired;

  FaultyCounterStore(Consumer<String> fired) {
    this.fired = fired;
  }

  void arm(Armed value) {
    this.armed = value;
    this.left = value == null ? 0 : value.times();
  }

  void wipe() {
    delegate = new InProcessCounterStore();
  }

  private void check(Op op) {
    Armed a = armed;
    if (a == null || a.op() != op || left == 0) {
      return;
    }
    if (left == a.times()) {
      fired.accept("store:TIMEOUT:" + op + "x" + a.times());
    }
    left--;
    throw new CounterStoreUnavailableException("simulated: the store did not answer " + op
        + " (not applied)", null, false);
  }

  @Override
  public CounterGrant acquire(String reservationId, List<Counter> counters, long nowMillis,
      long monotonicMicros) {
    check(Op.ACQUIRE);
    return delegate.acquire(reservationId, counters, nowMillis, monotonicMicros);
  }

  @Override
  public boolean extend(String reservationId, String operationId, List<Counter> counters,
      long additionalMicros, long nowMillis) {
    check(Op.EXTEND);
    return delegate.extend(reservationId, operationId, counters, additionalMicros, nowMillis);
  }

  @Override
  public boolean end(String reservationId, List<Counter> counters, long chargeMicros,
      long nowMillis) {
    check(Op.END);
    return delegate.end(reservationId, counters, chargeMicros, nowMillis);
  }

  @Override
  public CounterReading read(Counter counter) {
    return delegate.read(counter);
  }

  @Override
  public CounterRebuild beginRebuild(long lockMillis, boolean onlyIfStale) {
    return delegate.beginRebuild(lockMillis, onlyIfStale);
  }
}
