package io.pointsman.jmh.harness;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * An open-loop load generator: requests are launched on a fixed schedule whatever happened to
 * earlier ones, and each latency is measured from the request's scheduled send time, so a
 * stall shows up in every request it delays (no coordinated omission).
 */
final class OpenLoop {
  /** One request; returns normally on success, throws on failure. */
  interface Request {
    void run(long scheduledNanos, Recorder firstByte) throws Exception;
  }

  /** What a phase measured. */
  record Result(Histogram latency, Histogram firstByte, long successes, long errors,
      long maxLagNanos) {}

  private OpenLoop() {}

  /**
   * Runs {@code seconds × rate} requests at the given rate and waits for all of them.
   *
   * @param rate requests per second
   * @param seconds duration of the schedule
   * @param request the request
   * @return latencies from scheduled time to completion (and to first byte, when recorded)
   */
  static Result run(int rate, double seconds, Request request) throws InterruptedException {
    Recorder latency = new Recorder(3);
    Recorder firstByte = new Recorder(3);
    AtomicLong successes = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    long count = Math.round(rate * seconds);
    long period = 1_000_000_000L / rate;
    ExecutorService workers = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "harness-worker");
      t.setDaemon(true);
      return t;
    });
    long maxLag = 0;
    long start = System.nanoTime() + 5_000_000;
    for (long i = 0; i < count; i++) {
      long scheduled = start + i * period;
      long wait;
      while ((wait = scheduled - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      maxLag = Math.max(maxLag, System.nanoTime() - scheduled);
      workers.execute(() -> {
        try {
          request.run(scheduled, firstByte);
          successes.incrementAndGet();
        } catch (Exception e) {
          if (errors.incrementAndGet() <= 3) {
            System.err.println("harness: request failed: " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
              System.err.println("  caused by: " + c);
            }
          }
        } finally {
          latency.recordValue(Math.max(0, System.nanoTime() - scheduled));
        }
      });
    }
    workers.shutdown();
    if (!workers.awaitTermination(120, TimeUnit.SECONDS)) {
      throw new IllegalStateException("requests still running two minutes after the schedule");
    }
    return new Result(latency.getIntervalHistogram(), firstByte.getIntervalHistogram(),
        successes.get(), errors.get(), maxLag);
  }
}
