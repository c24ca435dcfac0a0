package io.pointsman.cache.tiered;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Counts the stores a cache has handed to its executor and not yet finished, so that
 * {@code awaitStores} can wait for them whatever the executor (one thread, a pool, or a
 * caller-supplied executor). Thread-safe.
 */
public final class PendingStores {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();
  private long pending;

  /** Creates a tracker with nothing pending. */
  public PendingStores() {}

  /**
   * Runs a store on an executor, counted until it returns or throws.
   *
   * @param executor the executor
   * @param store the store
   * @throws RejectedExecutionException when the executor refuses it (then nothing is pending
   *     for it)
   */
  public void execute(Executor executor, Runnable store) {
    Objects.requireNonNull(store, "store");
    change(+1);
    try {
      executor.execute(() -> {
        try {
          store.run();
        } finally {
          change(-1);
        }
      });
    } catch (RuntimeException e) {
      change(-1);
      throw e;
    }
  }

  private void change(int delta) {
    lock.lock();
    try {
      pending += delta;
      if (pending == 0) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns the number of stores handed over and not finished.
   *
   * @return the count
   */
  public long pending() {
    lock.lock();
    try {
      return pending;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until no store is pending, which includes every store handed over before the call.
   *
   * @param timeout how long to wait at most
   * @return true if nothing was pending within the time-out
   * @throws InterruptedException if interrupted while waiting
   * @throws NullPointerException if timeout is null
   */
  public boolean await(Duration timeout) throws InterruptedException {
    long nanos = Objects.requireNonNull(timeout, "timeout").toNanos();
    lock.lock();
    try {
      while (pending > 0) {
        if (nanos <= 0) {
          return false;
        }
        nanos = idle.awaitNanos(nanos);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
