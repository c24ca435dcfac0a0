package io.pointsman.examples.sim;

import io.pointsman.model.Usage;
import io.pointsman.spi.Admission;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sees every reservation the gateway takes and every way it ends: a proxy between the
 * gateway and the real limiter. A {@link Mutant} of the limiter seam is applied below the
 * proxy, so the proxy records what the gateway asked for and the counters show what happened.
 */
final class TrackingLimiter implements Limiter {
  /** What the simulation is told. */
  interface Listener {
    void granted(Tracked reservation);

    void ended(Tracked reservation, boolean settled, long amount);

    void extended(Tracked reservation, long amount, boolean held);
  }

  private volatile Limiter delegate;
  private final Listener listener;
  private final Mutant mutant;

  TrackingLimiter(Limiter delegate, Listener listener, Mutant mutant) {
    this.delegate = delegate;
    this.listener = listener;
    this.mutant = mutant;
  }

  void delegate(Limiter value) {
    this.delegate = value;
  }

  @Override
  public Reservation reserve(Admission admission) {
    Reservation inner = delegate.reserve(admission);
    Tracked t = new Tracked(inner, admission);
    listener.granted(t);
    return t;
  }

  /** A reservation as the gateway holds it. */
  final class Tracked implements Reservation {
    final Reservation inner;
    final Admission admission;
    final AtomicInteger ends = new AtomicInteger();
    volatile long held;
    volatile long extendedMicros;
    volatile int extendCalls;

    Tracked(Reservation inner, Admission admission) {
      this.inner = inner;
      this.admission = admission;
      this.held = inner.heldMicros();
    }

    @Override
    public String id() {
      return inner.id();
    }

    @Override
    public long heldMicros() {
      return held;
    }

    @Override
    public void settle(long actualMicros) {
      settle(actualMicros, null);
    }

    @Override
    public void settle(long actualMicros, Usage usage) {
      ends.incrementAndGet();
      listener.ended(this, true, actualMicros);
      if (mutant == Mutant.RELEASE_INSTEAD_OF_SETTLE) {
        inner.release();
      } else {
        inner.settle(actualMicros, usage);
      }
    }

    @Override
    public void release() {
      ends.incrementAndGet();
      listener.ended(this, false, 0);
      if (mutant != Mutant.LEAK_HOLD_ON_RELEASE) {
        inner.release();
      }
    }

    @Override
    public boolean extend(long additionalMicros) {
      extendCalls++;
      boolean ok = mutant == Mutant.EXTEND_WITHOUT_HOLD || inner.extend(additionalMicros);
      if (ok) {
        held += additionalMicros;
        extendedMicros += additionalMicros;
      }
      listener.extended(this, additionalMicros, ok);
      return ok;
    }

    @Override
    public List<LimitRemaining> remaining() {
      return inner.remaining();
    }
  }
}
