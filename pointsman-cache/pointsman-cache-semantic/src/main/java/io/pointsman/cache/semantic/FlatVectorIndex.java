package io.pointsman.cache.semantic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/** An exact index: one contiguous array, scanned in full per search. Thread-safe. */
final class FlatVectorIndex implements VectorIndex {
  private final int dimensions;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private float[] data = new float[0];
  private int[] ids = new int[0];
  private int count;

  FlatVectorIndex(int dimensions) {
    this.dimensions = dimensions;
  }

  @Override
  public void add(int id, float[] unitVector) {
    if (unitVector.length != dimensions) {
      throw new IllegalArgumentException("expected " + dimensions + " dimensions");
    }
    lock.writeLock().lock();
    try {
      if (count == ids.length) {
        int capacity = Math.max(16, count * 2);
        ids = Arrays.copyOf(ids, capacity);
        data = Arrays.copyOf(data, capacity * dimensions);
      }
      ids[count] = id;
      System.arraycopy(unitVector, 0, data, count * dimensions, dimensions);
      count++;
    } finally {
      lock.writeLock().unlock();
    }
  }

  @Override
  public List<Neighbor> search(float[] unitVector, int k) {
    lock.readLock().lock();
    try {
      TopK top = new TopK(k);
      for (int i = 0; i < count; i++) {
        top.offer(ids[i], VectorIndex.dot(data, i * dimensions, unitVector, dimensions));
      }
      return top.sorted();
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Adds every vector held here to another index, in insertion order. */
  void copyInto(VectorIndex target) {
    lock.readLock().lock();
    try {
      for (int i = 0; i < count; i++) {
        target.add(ids[i], Arrays.copyOfRange(data, i * dimensions, (i + 1) * dimensions));
      }
    } finally {
      lock.readLock().unlock();
    }
  }

  @Override
  public int size() {
    lock.readLock().lock();
    try {
      return count;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** The k largest similarities seen, kept in a small min-heap. */
  static final class TopK {
    private final FloatIntHeap heap = new FloatIntHeap(16);
    private final int k;

    TopK(int k) {
      this.k = k;
    }

    void offer(int id, float similarity) {
      if (heap.size() < k) {
        heap.push(similarity, id);
      } else if (k > 0 && similarity > heap.peekKey()) {
        heap.pop();
        heap.push(similarity, id);
      }
    }

    List<Neighbor> sorted() {
      List<Neighbor> out = new ArrayList<>(heap.size());
      while (heap.size() > 0) {
        out.add(new Neighbor(heap.peekValue(), heap.peekKey()));
        heap.pop();
      }
      java.util.Collections.reverse(out);
      return out;
    }
  }
}
