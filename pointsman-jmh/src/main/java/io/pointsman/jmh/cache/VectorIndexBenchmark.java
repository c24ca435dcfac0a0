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
 * Nearest-neighbour lookup (top 5) in one scope of 1,000, 10,000 and 100,000 entries, exact flat
 * scan against HNSW (M 16, efConstruction 64, efSearch 64). Vectors are synthetic 384-wide unit
 * vectors in 2,000 clusters (a centre plus Gaussian noise), as sentence embeddings cluster by
 * topic; queries are fresh noisy points near random centres. The setup prints HNSW's recall@1
 * against the flat scan over 1,000 queries and the build time.
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

  @Param({"1000", "10000", "100000"})
  public int entries;

  @Param({"flat", "hnsw"})
  public String kind;

  private VectorIndex index;
  private float[][] queries;
  private int next;

  @Setup(Level.Trial)
  public void setup() {
    SplittableRandom random = new SplittableRandom(7);
    float[][] centres = new float[2_000][];
    for (int c = 0; c < centres.length; c++) {
      centres[c] = unit(gaussian(random, 1.0f));
    }
    index = kind.equals("flat") ? VectorIndex.flat(DIMENSIONS) : VectorIndex.hnsw(DIMENSIONS);
    VectorIndex exact = kind.equals("hnsw") ? VectorIndex.flat(DIMENSIONS) : null;
    long started = System.nanoTime();
    for (int i = 0; i < entries; i++) {
      float[] v = near(random, centres[random.nextInt(centres.length)]);
      index.add(i, v);
      if (exact != null) {
        exact.add(i, v);
      }
    }
    long buildMillis = (System.nanoTime() - started) / 1_000_000;
    queries = new float[1_000][];
    for (int q = 0; q < queries.length; q++) {
      queries[q] = near(random, centres[random.nextInt(centres.length)]);
    }
    if (exact != null) {
      int agree = 0;
      for (float[] q : queries) {
        if (index.search(q, 1).get(0).id() == exact.search(q, 1).get(0).id()) {
          agree++;
        }
      }
      System.out.printf("%n[index] kind=%s entries=%d build=%d ms recall@1=%.3f%n", kind,
          entries, buildMillis, agree / (double) queries.length);
    } else {
      System.out.printf("%n[index] kind=%s entries=%d build=%d ms%n", kind, entries, buildMillis);
    }
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

  private static float[] near(SplittableRandom random, float[] centre) {
    float[] noise = gaussian(random, 0.035f);
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
