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
 * queue and are refused at once when it is full; stores wait in an unbounded one (their own
 * executor bounds them) and fill a batch only where lookups leave room, so a store never takes
 * a lookup's place.
 */
final class EmbeddingQueue implements AutoCloseable {
  private final Embedder embedder;
  private final int capacity;
  private final int maxBatch;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition waiting = lock.newCondition();
  private final ArrayDeque<Job> lookups = new ArrayDeque<>();
  private final ArrayDeque<Job> stores = new ArrayDeque<>();
  private final AtomicLong runs = new AtomicLong();
  private final AtomicLong texts = new AtomicLong();
  private final Thread worker;
  private boolean closed;

  private record Job(String text, CompletableFuture<float[]> result) {}

  EmbeddingQueue(Embedder embedder, int capacity, int maxBatch) {
    this.embedder = embedder;
    this.capacity = capacity;
    this.maxBatch = maxBatch;
    this.worker = new Thread(this::work, "pointsman-semantic-embed");
    worker.setDaemon(true);
    worker.start();
  }

  /**
   * Queues a lookup's text.
   *
   * @return its future embedding, or {@code null} when the lookup queue is full or closed
   */
  CompletableFuture<float[]> offerLookup(String text) {
    lock.lock();
    try {
      if (closed || lookups.size() >= capacity) {
        return null;
      }
      Job job = new Job(text, new CompletableFuture<>());
      lookups.add(job);
      waiting.signal();
      return job.result();
    } finally {
      lock.unlock();
    }
  }

  /** Queues a store's text; fails the future at once when closed. */
  CompletableFuture<float[]> submitStore(String text) {
    lock.lock();
    try {
      if (closed) {
        return CompletableFuture.failedFuture(
            new EmbeddingException("the semantic cache is closed", null));
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
        while (batch.size() < maxBatch && !lookups.isEmpty()) {
          batch.add(lookups.poll());
        }
        while (batch.size() < maxBatch && !stores.isEmpty()) {
          batch.add(stores.poll());
        }
      } finally {
        lock.unlock();
      }
      run(batch);
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
      job.result().completeExceptionally(
          new EmbeddingException("the semantic cache is closed", null));
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
