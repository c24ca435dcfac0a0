package io.pointsman.httpclient5;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One thread that aborts blocked exchanges: a blocking socket read wakes neither at a deadline
 * of ours nor when its thread is interrupted, so every {@link #TICK_NANOS} this thread looks at
 * each exchange that is waiting and closes its connection when its deadline has passed or its
 * thread has been interrupted. It sleeps while no exchange is open.
 */
final class Watchdog implements AutoCloseable {
  /** How often waiting exchanges are looked at: the precision of timeouts and interrupts. */
  static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
  private final Set<Guard> open = ConcurrentHashMap.newKeySet();
  private final Thread thread;
  private volatile boolean closed;
  /** Set while the thread parks with nothing to watch; open() then wakes it. */
  private volatile boolean sleeping;

  Watchdog(String name) {
    thread = new Thread(this::run, name);
    thread.setDaemon(true);
    thread.start();
  }

  /** Why a guard fired. */
  enum Reason { NONE, TIMEOUT, INTERRUPT, ABORT }

  /** The watch over one exchange; its reader arms it around each blocking call. */
  static final class Guard {
    private final Watchdog owner;
    private final Runnable abort;
    private volatile Thread waiter;
    private volatile long deadlineNanos;
    private volatile Reason reason = Reason.NONE;

    private Guard(Watchdog owner, Runnable abort) {
      this.owner = owner;
      this.abort = abort;
    }

    /** The calling thread is about to block until at most {@code deadlineNanos}. */
    void arm(long deadlineNanos) {
      this.deadlineNanos = deadlineNanos;
      this.waiter = Thread.currentThread();
    }

    /** The blocking call returned. */
    void disarm() {
      waiter = null;
    }

    Reason reason() {
      return reason;
    }

    /** Aborts the exchange (any thread); the first reason sticks. */
    void fire(Reason why) {
      synchronized (this) {
        if (reason != Reason.NONE) {
          return;
        }
        reason = why;
      }
      try {
        abort.run();
      } finally {
        owner.open.remove(this);
      }
    }

    /** The exchange ended: no more watching. */
    void release() {
      waiter = null;
      owner.open.remove(this);
    }

    private void check(long now) {
      Thread t = waiter;
      if (t == null) {
        return;
      }
      if (t.isInterrupted()) {
        fire(Reason.INTERRUPT);
      } else if (now - deadlineNanos >= 0) {
        fire(Reason.TIMEOUT);
      }
    }
  }

  /** Starts watching an exchange that {@code abort} closes. */
  Guard open(Runnable abort) {
    Guard g = new Guard(this, abort);
    open.add(g);
    if (sleeping) {
      LockSupport.unpark(thread);
    }
    return g;
  }

  private void run() {
    while (!closed) {
      if (open.isEmpty()) {
        sleeping = true;
        // Checked again after the flag is up: an open() in between sees the flag and wakes
        // this thread. A spurious wake-up only loops.
        if (open.isEmpty() && !closed) {
          LockSupport.park(this);
        }
        sleeping = false;
        continue;
      }
      long now = System.nanoTime();
      for (Guard g : open) {
        try {
          g.check(now);
        } catch (RuntimeException e) {
          // An abort that failed leaves the connection to its own timeouts.
        }
      }
      LockSupport.parkNanos(this, TICK_NANOS);
    }
  }

  @Override
  public void close() {
    closed = true;
    LockSupport.unpark(thread);
  }
}
