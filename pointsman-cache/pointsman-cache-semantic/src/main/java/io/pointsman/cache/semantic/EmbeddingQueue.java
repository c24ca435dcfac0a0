package io.pointsman.cache.semantic;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The embedder's waiting room: one worker thread takes every text waiting, up to the batch
 * size, and embeds them in one {@link Embedder#embedBatch} run. Lookups wait in a bounded
 * queue and are refused at once when it is full, or when the runs ahead of them (a moving
 * average of the recent run times) would not finish within the lookup deadline; an idle
 * embedder always takes a lookup, so the average keeps learning. Stores wait in a queue of their
 * own, bounded too, and run one text at a time when no lookup waits, so a store never takes a
 * lookup's place and a text the store embeds gets exactly {@link Embedder#embed}'s vector. A
 * job whose future is already done (cancelled) is skipped.
 */
final class EmbeddingQueue implements AutoCloseable {
  private final Embedder embedder;
  private final int capacity;
  private final int storeCapacity;
  private final int maxBatch;
  private final long deadlineNanos;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition waiting = lock.newCondition();
  private final ArrayDeque<Job> lookups = new ArrayDeque<>();
  private final ArrayDeque<Job> stores = new ArrayDeque<>();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong texts = new AtomicLong();
  private final Thread worker;
  private boolean closed;
  private boolean running;
  // Moving average of one run's time, guarded by the lock; 0 until the first run.
  private long averageRunNanos;

  private record Job(String text, CompletableFuture<float[]> result) {}

  EmbeddingQueue(Embedder embedder, int capacity, int storeCapacity, int maxBatch,
      long deadlineNanos) {
    this.embedder = embedder;
    this.capacity = capacity;
    this.storeCapacity = storeCapacity;
    this.maxBatch = maxBatch;
    this.deadlineNanos = deadlineNanos;
    this.worker = new Thread(this::work, "pointsman-semantic-embed");
    worker.setDaemon(true);
    worker.start();
  }

  /**
   * Queues a lookup's text.
   *
   * @return its future embedding, or {@code null} when the lookup queue is full, the runs
   *     ahead would outlast the deadline, or the queue is closed
   */
  CompletableFuture<float[]> offerLookup(String text) {
    lock.lock();
    try {
      if (closed || lookups.size() >= capacity) {
        return null;
      }
      if (running || !lookups.isEmpty()) {
        long runsAhead = lookups.size() / maxBatch + 1 + (running ? 1 : 0);
        if (runsAhead * averageRunNanos > deadlineNanos) {
          return null;
        }
      }
      Job job = new Job(text, new CompletableFuture<>());
      lookups.add(job);
      waiting.signal();
      return job.result();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Queues a store's text.
   *
   * @return its future embedding, or {@code null} when the store queue is full or closed
   */
  CompletableFuture<float[]> submitStore(String text) {
    lock.lock();
    try {
      if (closed || stores.size() >= storeCapacity) {
        return null;
      }
      Job job = new Job(text, new CompletableFuture<>());
      stores.add(job);
      waiting.signal();
      return job.result();
    } finally {
      lock.unlock();
    }
  }

  /** Embedder runs so far. */
  long runs() {
    return runs.get();
  }

  /** Texts embedded so far. */
  long texts() {
    return texts.get();
  }

  private void work() {
    while (true) {
      List<Job> batch = new ArrayList<>(maxBatch);
      lock.lock();
      try {
        while (lookups.isEmpty() && stores.isEmpty() && !closed) {
          waiting.awaitUninterruptibly();
        }
        if (closed) {
          failAll(lookups);
          failAll(stores);
          return;
        }
        take(lookups, batch, maxBatch);
        if (batch.isEmpty()) {
          take(stores, batch, 1);
        }
        running = !batch.isEmpty();
      } finally {
        lock.unlock();
      }
      if (batch.isEmpty()) {
        continue;
      }
      long began = System.nanoTime();
      try {
        run(batch);
      } finally {
        long took = System.nanoTime() - began;
        lock.lock();
        try {
          running = false;
          averageRunNanos = averageRunNanos == 0 ? took : (averageRunNanos * 3 + took) / 4;
        } finally {
          lock.unlock();
        }
      }
    }
  }

  private static void take(ArrayDeque<Job> from, List<Job> batch, int most) {
    while (batch.size() < most && !from.isEmpty()) {
      Job job = from.poll();
      if (!job.result().isDone()) {
        batch.add(job);
      }
    }
  }

  private void run(List<Job> batch) {
    List<String> input = new ArrayList<>(batch.size());
    for (Job job : batch) {
      input.add(job.text());
    }
    try {
      List<float[]> vectors = embedder.embedBatch(input);
      runs.incrementAndGet();
      texts.addAndGet(batch.size());
      for (int i = 0; i < batch.size(); i++) {
        batch.get(i).result().complete(vectors.get(i));
      }
    } catch (RuntimeException e) {
      runs.incrementAndGet();
      for (Job job : batch) {
        job.result().completeExceptionally(e);
      }
    }
  }

  private static void failAll(ArrayDeque<Job> jobs) {
    for (Job job : jobs) {
      job.result().cancel(false); // a store waiting for it counts itself dropped
    }
    jobs.clear();
  }

  /** Fails what still waits and stops the worker once its running batch is done. */
  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      waiting.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      worker.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
