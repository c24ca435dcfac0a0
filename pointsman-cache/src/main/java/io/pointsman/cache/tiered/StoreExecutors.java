package io.pointsman.cache.tiered;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/** The default executors that run cache stores off the request thread. */
public final class StoreExecutors {
  private StoreExecutors() {}

  /**
   * Returns one daemon thread with a bounded queue; a task offered to a full queue is
   * rejected with {@link java.util.concurrent.RejectedExecutionException}, which the caches
   * count as a dropped store rather than block the caller.
   *
   * @param name the thread's name
   * @param queueCapacity the most waiting stores
   * @return the executor; shut it down when the cache is closed
   * @throws IllegalArgumentException if queueCapacity is below 1
   */
  public static ExecutorService bounded(String name, int queueCapacity) {
    return new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(queueCapacity), r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        }, new ThreadPoolExecutor.AbortPolicy());
  }
}
