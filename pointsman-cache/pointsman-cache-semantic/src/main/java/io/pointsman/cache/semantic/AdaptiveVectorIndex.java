package io.pointsman.cache.semantic;

import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A flat scan while the index is small, HNSW from a size on: below a few thousand vectors the
 * exact scan is as fast as the graph and needs no build; above, its cost grows with every
 * entry (see {@code docs/caching.md}, Benchmarks). The graph is built from the flat index's
 * vectors on the thread whose addition crosses the size, while searches keep using the flat
 * index; the switch is one volatile write. Thread-safe; additions are serialized.
 */
final class AdaptiveVectorIndex implements VectorIndex {
  private final int dimensions;
  private final int threshold;
  private final int efSearch;
  private final ReentrantLock addLock = new ReentrantLock();
  private volatile VectorIndex current;
  private FlatVectorIndex flat;

  AdaptiveVectorIndex(int dimensions, int threshold) {
    this(dimensions, threshold, 64);
  }

  AdaptiveVectorIndex(int dimensions, int threshold, int efSearch) {
    this.dimensions = dimensions;
    this.threshold = threshold;
    this.efSearch = efSearch;
    this.flat = new FlatVectorIndex(dimensions);
    this.current = flat;
  }

  @Override
  public void add(int id, float[] unitVector) {
    addLock.lock();
    try {
      current.add(id, unitVector);
      if (flat != null && flat.size() >= threshold) {
        VectorIndex graph = VectorIndex.hnsw(dimensions, efSearch);
        flat.copyInto(graph);
        current = graph;
        flat = null;
      }
    } finally {
      addLock.unlock();
    }
  }

  @Override
  public List<Neighbor> search(float[] unitVector, int k) {
    return current.search(unitVector, k);
  }

  @Override
  public int size() {
    return current.size();
  }

  /** Whether the graph replaced the flat scan; for tests. */
  boolean isGraph() {
    return !(current instanceof FlatVectorIndex);
  }
}
