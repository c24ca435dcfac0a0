package io.pointsman.cache.semantic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A hierarchical navigable small-world graph (Malkov and Yashunin, 2016) over unit vectors,
 * similarity = dot product. Additions take the write lock, searches the read lock, so searches
 * run in parallel. Approximate: a search may miss the true nearest neighbour; for a cache that
 * costs a miss, never a wrong hit. Thread-safe.
 */
final class HnswVectorIndex implements VectorIndex {
  private final int dimensions;
  private final int maxLinks;
  private final int maxLinksLayer0;
  private final int efConstruction;
  private final int efSearch;
  private final double levelFactor;
  private final SplittableRandom random;
  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final ThreadLocal<SearchState> states = ThreadLocal.withInitial(SearchState::new);

  private float[] data = new float[0];
  private int[] ids = new int[0];
  /** links[node][level] holds the count at index 0, then the neighbours. */
  private int[][][] links = new int[0][][];
  private int count;
  private int entryPoint = -1;
  private int topLevel = -1;

  HnswVectorIndex(int dimensions, int m, int efConstruction, int efSearch, long seed) {
    this.dimensions = dimensions;
    this.maxLinks = m;
    this.maxLinksLayer0 = 2 * m;
    this.efConstruction = efConstruction;
    this.efSearch = efSearch;
    this.levelFactor = 1.0 / Math.log(m);
    this.random = new SplittableRandom(seed);
  }

  /** Per-thread scratch space: visited marks by generation, and two heaps. */
  private static final class SearchState {
    int[] visited = new int[0];
    int generation;
    final FloatIntHeap candidates = new FloatIntHeap(64);
    final FloatIntHeap results = new FloatIntHeap(64);

    void reset(int nodes) {
      if (visited.length < nodes) {
        visited = new int[Math.max(nodes, visited.length * 2)];
        generation = 0;
      }
      if (++generation == Integer.MAX_VALUE) {
        Arrays.fill(visited, 0);
        generation = 1;
      }
      candidates.clear();
      results.clear();
    }
  }

  @Override
  public void add(int id, float[] unitVector) {
    if (unitVector.length != dimensions) {
      throw new IllegalArgumentException("expected " + dimensions + " dimensions");
    }
    lock.writeLock().lock();
    try {
      int node = append(id, unitVector);
      int level = (int) (-Math.log(1.0 - random.nextDouble()) * levelFactor);
      links[node] = new int[level + 1][];
      for (int l = 0; l <= level; l++) {
        links[node][l] = new int[1 + (l == 0 ? maxLinksLayer0 : maxLinks) + 1];
      }
      if (entryPoint < 0) {
        entryPoint = node;
        topLevel = level;
        return;
      }
      int current = entryPoint;
      for (int l = topLevel; l > level; l--) {
        current = greedy(unitVector, current, l);
      }
      SearchState state = states.get();
      for (int l = Math.min(level, topLevel); l >= 0; l--) {
        List<VectorIndex.Neighbor> found = searchLayer(state, unitVector, current, efConstruction, l);
        int max = l == 0 ? maxLinksLayer0 : maxLinks;
        int[] chosen = selectNeighbors(found, max);
        for (int neighbor : chosen) {
          connect(node, neighbor, l);
          connect(neighbor, node, l);
        }
        current = found.get(0).id();
      }
      if (level > topLevel) {
        topLevel = level;
        entryPoint = node;
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private int append(int id, float[] v) {
    if (count == ids.length) {
      int capacity = Math.max(16, count * 2);
      ids = Arrays.copyOf(ids, capacity);
      data = Arrays.copyOf(data, capacity * dimensions);
      links = Arrays.copyOf(links, capacity);
    }
    ids[count] = id;
    System.arraycopy(v, 0, data, count * dimensions, dimensions);
    return count++;
  }

  /**
   * The diversity heuristic of the paper: a candidate is kept only when it is closer to the new
   * node than to every neighbour already kept, so links spread over directions instead of
   * crowding one cluster; the remaining slots are filled by plain similarity.
   */
  private int[] selectNeighbors(List<VectorIndex.Neighbor> candidates, int max) {
    int[] kept = new int[Math.min(max, candidates.size())];
    boolean[] used = new boolean[candidates.size()];
    int n = 0;
    for (int i = 0; i < candidates.size() && n < kept.length; i++) {
      VectorIndex.Neighbor c = candidates.get(i);
      boolean diverse = true;
      for (int j = 0; j < n; j++) {
        if (similarity(c.id(), kept[j]) > c.similarity()) {
          diverse = false;
          break;
        }
      }
      if (diverse) {
        kept[n++] = c.id();
        used[i] = true;
      }
    }
    for (int i = 0; i < candidates.size() && n < kept.length; i++) {
      if (!used[i]) {
        kept[n++] = candidates.get(i).id();
      }
    }
    return kept;
  }

  private float similarity(int a, int b) {
    return dot(data, a * dimensions, data, b * dimensions, dimensions);
  }

  private static float dot(float[] a, int ao, float[] b, int bo, int length) {
    float s0 = 0;
    float s1 = 0;
    float s2 = 0;
    float s3 = 0;
    int i = 0;
    for (; i + 3 < length; i += 4) {
      s0 += a[ao + i] * b[bo + i];
      s1 += a[ao + i + 1] * b[bo + i + 1];
      s2 += a[ao + i + 2] * b[bo + i + 2];
      s3 += a[ao + i + 3] * b[bo + i + 3];
    }
    for (; i < length; i++) {
      s0 += a[ao + i] * b[bo + i];
    }
    return (s0 + s1) + (s2 + s3);
  }

  private void connect(int from, int to, int level) {
    int[] list = links[from][level];
    int max = level == 0 ? maxLinksLayer0 : maxLinks;
    int size = list[0];
    if (size < max) {
      list[1 + size] = to;
      list[0] = size + 1;
      return;
    }
    // Full: choose again among the old links and the new one with the insertion heuristic, so
    // that links reaching other regions survive instead of the least similar being cut.
    List<VectorIndex.Neighbor> candidates = new ArrayList<>(size + 1);
    for (int i = 0; i < size; i++) {
      candidates.add(new VectorIndex.Neighbor(list[1 + i], similarity(from, list[1 + i])));
    }
    candidates.add(new VectorIndex.Neighbor(to, similarity(from, to)));
    candidates.sort((a, b) -> Float.compare(b.similarity(), a.similarity()));
    int[] kept = selectNeighbors(candidates, max);
    System.arraycopy(kept, 0, list, 1, kept.length);
    list[0] = kept.length;
  }

  private int greedy(float[] q, int start, int level) {
    int current = start;
    float best = VectorIndex.dot(data, current * dimensions, q, dimensions);
    boolean improved = true;
    while (improved) {
      improved = false;
      int[] list = links[current][level];
      for (int i = 1; i <= list[0]; i++) {
        int next = list[i];
        float s = VectorIndex.dot(data, next * dimensions, q, dimensions);
        if (s > best) {
          best = s;
          current = next;
          improved = true;
        }
      }
    }
    return current;
  }

  /** Beam search in one layer; returns nodes (not caller ids) most similar first. */
  private List<VectorIndex.Neighbor> searchLayer(SearchState state, float[] q, int start, int ef,
      int level) {
    state.reset(count);
    FloatIntHeap candidates = state.candidates; // keyed by -similarity: best first
    FloatIntHeap results = state.results; // keyed by similarity: worst first
    float s = VectorIndex.dot(data, start * dimensions, q, dimensions);
    state.visited[start] = state.generation;
    candidates.push(-s, start);
    results.push(s, start);
    while (candidates.size() > 0) {
      float candidateSim = -candidates.peekKey();
      int candidate = candidates.peekValue();
      candidates.pop();
      if (results.size() >= ef && candidateSim < results.peekKey()) {
        break;
      }
      int[][] nodeLinks = links[candidate];
      if (level >= nodeLinks.length) {
        continue;
      }
      int[] list = nodeLinks[level];
      for (int i = 1; i <= list[0]; i++) {
        int next = list[i];
        if (state.visited[next] == state.generation) {
          continue;
        }
        state.visited[next] = state.generation;
        float ns = VectorIndex.dot(data, next * dimensions, q, dimensions);
        if (results.size() < ef || ns > results.peekKey()) {
          candidates.push(-ns, next);
          results.push(ns, next);
          if (results.size() > ef) {
            results.pop();
          }
        }
      }
    }
    List<VectorIndex.Neighbor> out = new ArrayList<>(results.size());
    while (results.size() > 0) {
      out.add(new VectorIndex.Neighbor(results.peekValue(), results.peekKey()));
      results.pop();
    }
    java.util.Collections.reverse(out);
    return out;
  }

  @Override
  public List<Neighbor> search(float[] unitVector, int k) {
    lock.readLock().lock();
    try {
      if (entryPoint < 0) {
        return List.of();
      }
      int current = entryPoint;
      for (int l = topLevel; l > 0; l--) {
        current = greedy(unitVector, current, l);
      }
      List<Neighbor> found = searchLayer(states.get(), unitVector, current,
          Math.max(efSearch, k), 0);
      List<Neighbor> out = new ArrayList<>(Math.min(k, found.size()));
      for (int i = 0; i < found.size() && i < k; i++) {
        Neighbor n = found.get(i);
        out.add(new Neighbor(ids[n.id()], n.similarity()));
      }
      return out;
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
}
