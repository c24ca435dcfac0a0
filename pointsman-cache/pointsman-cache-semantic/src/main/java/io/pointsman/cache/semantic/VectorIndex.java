package io.pointsman.cache.semantic;

import java.util.List;

/**
 * Nearest neighbours by cosine similarity over unit vectors of one width. Implementations are
 * thread-safe: searches run concurrently with each other and with additions.
 */
public interface VectorIndex {
  /**
   * A neighbour found by {@link #search}.
   *
   * @param id the id given to {@link #add}
   * @param similarity the cosine similarity (the dot product of unit vectors)
   */
  record Neighbor(int id, float similarity) {}

  /**
   * Adds a vector.
   *
   * @param id the caller's id, unique within this index
   * @param unitVector a vector of the index's width and norm 1; not copied, not to be changed
   * @throws IllegalArgumentException if the width differs
   */
  void add(int id, float[] unitVector);

  /**
   * Returns up to {@code k} neighbours, most similar first.
   *
   * @param unitVector the query
   * @param k how many
   * @return the neighbours
   */
  List<Neighbor> search(float[] unitVector, int k);

  /**
   * Returns the number of vectors held.
   *
   * @return the count
   */
  int size();

  /**
   * Returns an exact index that compares the query with every vector.
   *
   * @param dimensions the width
   * @return the index
   */
  static VectorIndex flat(int dimensions) {
    return new FlatVectorIndex(dimensions);
  }

  /**
   * Returns an approximate index (HNSW, M = 16, efConstruction = 64, efSearch = 64).
   *
   * @param dimensions the width
   * @return the index
   */
  static VectorIndex hnsw(int dimensions) {
    return hnsw(dimensions, 64);
  }

  /**
   * Returns an approximate index (HNSW, M = 16, efConstruction = 64) with a given search
   * breadth: wider finds the nearest neighbour more often and costs more per search.
   *
   * @param dimensions the width
   * @param efSearch candidates kept per search, at least 1
   * @return the index
   * @throws IllegalArgumentException if efSearch is below 1
   */
  static VectorIndex hnsw(int dimensions, int efSearch) {
    if (efSearch < 1) {
      throw new IllegalArgumentException("efSearch must be at least 1: " + efSearch);
    }
    return new HnswVectorIndex(dimensions, 16, 64, efSearch, 42L);
  }

  /**
   * Returns an index that scans while it holds fewer than {@code threshold} vectors and builds
   * an HNSW graph once it reaches that size.
   *
   * @param dimensions the width
   * @param threshold the size at which the graph replaces the scan, at least 1
   * @return the index
   * @throws IllegalArgumentException if threshold is below 1
   */
  static VectorIndex adaptive(int dimensions, int threshold) {
    return adaptive(dimensions, threshold, 64);
  }

  /**
   * Returns an adaptive index whose graph searches with a given breadth.
   *
   * @param dimensions the width
   * @param threshold the size at which the graph replaces the scan, at least 1
   * @param efSearch candidates kept per graph search, at least 1
   * @return the index
   * @throws IllegalArgumentException if threshold or efSearch is below 1
   */
  static VectorIndex adaptive(int dimensions, int threshold, int efSearch) {
    if (threshold < 1 || efSearch < 1) {
      throw new IllegalArgumentException("threshold and efSearch must be at least 1: "
          + threshold + ", " + efSearch);
    }
    return new AdaptiveVectorIndex(dimensions, threshold, efSearch);
  }

  /**
   * Returns the dot product of two vectors of equal length.
   *
   * @param a a vector
   * @param aOffset where it starts in {@code a}
   * @param b the other vector, from index 0
   * @param length the width
   * @return the dot product
   */
  static float dot(float[] a, int aOffset, float[] b, int length) {
    // Four accumulators let the adds overlap; a single chain waits on each add's latency.
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int i = 0;
    for (; i + 3 < length; i += 4) {
      s0 += a[aOffset + i] * b[i];
      s1 += a[aOffset + i + 1] * b[i + 1];
      s2 += a[aOffset + i + 2] * b[i + 2];
      s3 += a[aOffset + i + 3] * b[i + 3];
    }
    for (; i < length; i++) {
      s0 += a[aOffset + i] * b[i];
    }
    return (s0 + s1) + (s2 + s3);
  }
}
