package io.pointsman.ledger;

import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gathers records pushed one by one into batches for a {@link Settlement}: a batch is handed
 * over when it reaches {@code maxBatch} records or when its oldest record has waited
 * {@code maxLag}, whichever comes first. For hosts that produce records one at a time; the
 * journal hands over batches itself and does not need it.
 *
 * <p>Each {@link #submit} returns a future completed once the record's batch committed, or
 * completed exceptionally with the batch's failure: the batcher does not retry, so the caller
 * (which still holds the record, for example in the journal) hands it over again. When
 * {@code capacity} records are waiting, {@code submit} blocks until the drainer catches up,
 * for at most the submit timeout (default 30 s), then throws
 * {@link SettlementBackPressureException}: a full queue never drops a record, and never
 * blocks its producers for ever.
 *
 * <p>The drainer survives any failure of a batch, {@link Error}s included: the batch's
 * futures complete exceptionally with it and the next batch is settled. A settle that hangs
 * holds the drainer as long as it hangs; bound it with the data source's timeouts
 * ({@link LedgerPool}).
 *
 * <pre>{@code
 * try (SettlementBatcher batcher = SettlementBatcher.builder(ledger)
 *     .maxBatch(500).maxLag(Duration.ofMillis(200)).build()) {
 *   batcher.submit(record).thenRun(() -> journal.reclaim(record.eventId()));
 * }
 * }</pre>
 *
 * <p>Lag is measured on the JVM's monotonic clock rather than an injected one, because the
 * drainer really waits for it.
 *
 * <p>Thread-safe. One drainer thread (from the builder's thread factory) settles batches in
 * order.
 */
public final class SettlementBatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SettlementBatcher.class);

  private record Pending(UsageRecord record, CompletableFuture<Void> done, long enqueuedNanos) {}

  private final Settlement target;
  private final int maxBatch;
  private final long maxLagNanos;
  private final int capacity;
  private final long submitTimeoutNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final ArrayDeque<Pending> queue = new ArrayDeque<>();
  private final Thread drainer;
  private boolean closed;

  private SettlementBatcher(Builder b) {
    this.target = b.target;
    this.maxBatch = b.maxBatch;
    this.maxLagNanos = b.maxLag.toNanos();
    this.capacity = b.capacity;
    this.submitTimeoutNanos = b.submitTimeout.toNanos();
    this.drainer = b.threadFactory.newThread(this::drain);
    drainer.start();
  }

  /**
   * Starts a builder.
   *
   * @param target where batches are settled
   * @return a builder with the defaults: batches of up to 500 records, 200 ms lag, 10,000
   *     waiting records, a 30 s submit timeout, a daemon drainer thread named
   *     {@code pointsman-settlement-batcher}
   * @throws NullPointerException if target is null
   */
  public static Builder builder(Settlement target) {
    return new Builder(Objects.requireNonNull(target, "target"));
  }

  /**
   * Queues a record for settlement, blocking while {@code capacity} records are waiting, for
   * at most the submit timeout.
   *
   * @param record the record
   * @return a future completed when the record's batch committed, or exceptionally with the
   *     reason it did not
   * @throws NullPointerException if record is null
   * @throws IllegalStateException if the batcher is closed, or its drainer thread is gone
   * @throws SettlementBackPressureException if the queue stayed full for the submit timeout,
   *     or the caller was interrupted while waiting (its interrupt flag is set again); the
   *     record is not queued
   */
  public CompletableFuture<Void> submit(UsageRecord record) {
    Objects.requireNonNull(record, "record");
    CompletableFuture<Void> done = new CompletableFuture<>();
    lock.lock();
    try {
      long left = submitTimeoutNanos;
      while (!closed && queue.size() >= capacity) {
        if (!drainer.isAlive()) {
          throw new IllegalStateException("settlement batcher's drainer thread is gone");
        }
        if (left <= 0) {
          throw new SettlementBackPressureException("settlement queue full: " + queue.size()
              + " records have waited longer than the submit timeout; the record was not"
              + " queued");
        }
        try {
          left = changed.awaitNanos(left);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SettlementBackPressureException(
              "interrupted while waiting for room in the settlement queue; the record was not"
                  + " queued");
        }
      }
      if (closed) {
        throw new IllegalStateException("settlement batcher is closed");
      }
      queue.addLast(new Pending(record, done, System.nanoTime()));
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    return done;
  }

  /**
   * Returns how many records wait for a batch.
   *
   * @return the number waiting
   */
  public int waiting() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Stops accepting records, settles those already queued, and waits for the drainer to end.
   * Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    boolean interrupted = false;
    while (drainer.isAlive()) {
      try {
        drainer.join();
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  private void drain() {
    while (true) {
      List<Pending> batch = next();
      if (batch == null) {
        return;
      }
      List<UsageRecord> records = new ArrayList<>(batch.size());
      for (Pending p : batch) {
        records.add(p.record());
      }
      Throwable failure = null;
      try {
        target.settle(records);
      } catch (Throwable e) { // NOPMD: the drainer must outlive any failure, Errors included
        failure = e;
      }
      if (failure != null && !(failure instanceof RuntimeException)) {
        LOG.error("settlement of a batch of {} records failed with {}; its futures fail and the"
            + " batcher goes on", batch.size(), failure.getClass().getName(), failure);
      }
      for (Pending p : batch) {
        try {
          if (failure == null) {
            p.done().complete(null);
          } else {
            p.done().completeExceptionally(failure);
          }
        } catch (Throwable e) { // NOPMD: a dependent stage's failure must not stop the drainer
          LOG.error("a completion of a settlement future failed", e);
        }
      }
    }
  }

  /** Waits for a full batch, a batch whose oldest record is due, or close; null when done. */
  private List<Pending> next() {
    lock.lock();
    try {
      while (true) {
        if (queue.isEmpty()) {
          if (closed) {
            return null;
          }
          changed.awaitUninterruptibly();
          continue;
        }
        long waited = System.nanoTime() - queue.peekFirst().enqueuedNanos();
        if (queue.size() >= maxBatch || waited >= maxLagNanos || closed) {
          List<Pending> batch = new ArrayList<>(Math.min(queue.size(), maxBatch));
          while (!queue.isEmpty() && batch.size() < maxBatch) {
            batch.add(queue.pollFirst());
          }
          changed.signalAll();
          return batch;
        }
        try {
          changed.awaitNanos(maxLagNanos - waited);
        } catch (InterruptedException e) {
          // The drainer is never interrupted on purpose; keep draining so no record is lost.
          Thread.interrupted();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Builds a {@link SettlementBatcher}. Not thread-safe. */
  public static final class Builder {
    private final Settlement target;
    private int maxBatch = 500;
    private Duration maxLag = Duration.ofMillis(200);
    private int capacity = 10_000;
    private Duration submitTimeout = Duration.ofSeconds(30);
    private ThreadFactory threadFactory = r -> {
      Thread t = new Thread(r, "pointsman-settlement-batcher");
      t.setDaemon(true);
      return t;
    };

    private Builder(Settlement target) {
      this.target = target;
    }

    /**
     * Sets the largest batch.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder maxBatch(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxBatch must be at least 1: " + value);
      }
      this.maxBatch = value;
      return this;
    }

    /**
     * Sets the longest a record waits before its batch is handed over even if not full.
     *
     * @param value a positive duration
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is not positive
     */
    public Builder maxLag(Duration value) {
      Objects.requireNonNull(value, "maxLag");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("maxLag must be positive: " + value);
      }
      this.maxLag = value;
      return this;
    }

    /**
     * Sets how many records may wait before {@link #submit} blocks.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder capacity(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("capacity must be at least 1: " + value);
      }
      this.capacity = value;
      return this;
    }

    /**
     * Sets how long {@link #submit} waits for room in a full queue before it throws
     * {@link SettlementBackPressureException}; zero fails at once.
     *
     * @param value zero or positive
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is negative
     */
    public Builder submitTimeout(Duration value) {
      Objects.requireNonNull(value, "submitTimeout");
      if (value.isNegative()) {
        throw new IllegalArgumentException("submitTimeout must not be negative: " + value);
      }
      this.submitTimeout = value;
      return this;
    }

    /**
     * Sets the factory of the drainer thread.
     *
     * @param value the factory
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder threadFactory(ThreadFactory value) {
      this.threadFactory = Objects.requireNonNull(value, "threadFactory");
      return this;
    }

    /**
     * Builds the batcher and starts its drainer.
     *
     * @return the batcher
     * @throws IllegalArgumentException if capacity is below maxBatch
     */
    public SettlementBatcher build() {
      if (capacity < maxBatch) {
        throw new IllegalArgumentException(
            "capacity " + capacity + " must be at least maxBatch " + maxBatch);
      }
      return new SettlementBatcher(this);
    }
  }
}
