package io.pointsman.jmh.cache;

import io.pointsman.cache.semantic.VectorIndex;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Nearest-neighbour lookup (top 5) in one scope of 1,000, 3,000, 10,000 and 100,000 entries,
 * exact flat scan against HNSW (M 16, efConstruction 64, efSearch 64 unless {@code efSearch} is
 * given, e.g. {@code -p efSearch=128}).
 *
 * <p>Data ({@code data}): {@code nested}, synthetic 384-wide unit vectors in a two-level mixture
 * like sentence embeddings (64 topics; 64 subtopics per topic at cosine about 0.6 to their
 * topic; entries at about 0.8 to their subtopic), or {@code orthogonal}, 2,000 unrelated
 * clusters (a worst case for graph navigation). Queries alternate between a fresh point of a
 * random subtopic or cluster and a near duplicate of a stored entry (cosine about 0.95, what a
 * paraphrase looks like to the cache). The setup prints the build time, HNSW's recall@1 against
 * the flat scan on fresh points, and how often the near duplicate's source is among the top 5.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar VectorIndexBenchmark -wi 2 -w 2s -i 3 -r 2s -f 1 \
 *     -rf json -rff pointsman-jmh/results/cache/index.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class VectorIndexBenchmark {
  static final int DIMENSIONS = 384;

  @Param({"1000", "3000", "10000", "100000"})
  public int entries;

  @Param({"flat", "hnsw"})
  public String kind;

  @Param({"nested"})
  public String data;

  @Param({"64"})
  public int efSearch;

  private VectorIndex index;
  private float[][] queries;
  private int next;

  @Setup(Level.Trial)
  public void setup() {
    SplittableRandom random = new SplittableRandom(7);
    float[][] groups;
    if (data.equals("orthogonal")) {
      groups = new float[2_000][];
      for (int c = 0; c < groups.length; c++) {
        groups[c] = unit(gaussian(random, 1.0f));
      }
    } else {
      groups = new float[64 * 64][];
      for (int t = 0; t < 64; t++) {
        float[] topic = unit(gaussian(random, 1.0f));
        for (int s = 0; s < 64; s++) {
          groups[t * 64 + s] = near(random, topic, 0.068f);
        }
      }
    }
    float noise = data.equals("orthogonal") ? 0.035f : 0.038f;
    index = kind.equals("flat") ? VectorIndex.flat(DIMENSIONS)
        : VectorIndex.hnsw(DIMENSIONS, efSearch);
    VectorIndex exact = kind.equals("hnsw") ? VectorIndex.flat(DIMENSIONS) : null;
    float[][] stored = new float[entries][];
    long started = System.nanoTime();
    for (int i = 0; i < entries; i++) {
      stored[i] = near(random, groups[random.nextInt(groups.length)], noise);
      index.add(i, stored[i]);
    }
    long buildMillis = (System.nanoTime() - started) / 1_000_000;
    if (exact != null) {
      for (int i = 0; i < entries; i++) {
        exact.add(i, stored[i]);
      }
    }
    queries = new float[1_000][];
    int[] sources = new int[queries.length];
    for (int q = 0; q < queries.length; q++) {
      if (q % 2 == 0) {
        queries[q] = near(random, groups[random.nextInt(groups.length)], noise);
        sources[q] = -1;
      } else {
        sources[q] = random.nextInt(entries);
        queries[q] = near(random, stored[sources[q]], 0.0168f);
      }
    }
    int fresh = 0;
    int freshAgree = 0;
    int duplicates = 0;
    int duplicatesFound = 0;
    for (int q = 0; q < queries.length; q++) {
      List<VectorIndex.Neighbor> top = index.search(queries[q], 5);
      if (sources[q] < 0) {
        if (exact != null) {
          fresh++;
          freshAgree += top.get(0).id() == exact.search(queries[q], 1).get(0).id() ? 1 : 0;
        }
      } else {
        duplicates++;
        for (VectorIndex.Neighbor n : top) {
          if (n.id() == sources[q]) {
            duplicatesFound++;
            break;
          }
        }
      }
    }
    System.out.printf("%n[index] data=%s kind=%s efSearch=%d entries=%d build=%d ms recall@1(fresh)=%s"
        + " near-duplicate found in top 5=%.3f%n", data, kind, efSearch, entries, buildMillis,
        exact == null ? "exact" : String.format("%.3f", freshAgree / (double) fresh),
        duplicatesFound / (double) duplicates);
  }

  private static float[] gaussian(SplittableRandom random, float scale) {
    float[] v = new float[DIMENSIONS];
    for (int i = 0; i < DIMENSIONS; i++) {
      // Box-Muller; one of the pair is enough here.
      double u1 = 1.0 - random.nextDouble();
      double u2 = random.nextDouble();
      v[i] = (float) (Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)) * scale;
    }
    return v;
  }

  private static float[] near(SplittableRandom random, float[] centre, float noisePerDimension) {
    float[] noise = gaussian(random, noisePerDimension);
    for (int i = 0; i < DIMENSIONS; i++) {
      noise[i] += centre[i];
    }
    return unit(noise);
  }

  private static float[] unit(float[] v) {
    double n = 0;
    for (float x : v) {
      n += x * x;
    }
    float inv = (float) (1 / Math.sqrt(n));
    for (int i = 0; i < v.length; i++) {
      v[i] *= inv;
    }
    return v;
  }

  @Benchmark
  public List<VectorIndex.Neighbor> search() {
    float[] q = queries[next];
    next = (next + 1) % queries.length;
    return index.search(q, 5);
  }
}
