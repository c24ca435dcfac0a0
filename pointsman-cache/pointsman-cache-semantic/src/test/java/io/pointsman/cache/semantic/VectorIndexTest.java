package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class VectorIndexTest {
  private static final int DIMENSIONS = 384;

  private static float[] unit(SplittableRandom random, float[] centre, double noise) {
    float[] v = new float[DIMENSIONS];
    double n = 0;
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] = (float) ((centre == null ? 0 : centre[i]) + random.nextGaussian() * noise);
      n += v[i] * v[i];
    }
    for (int i = 0; i < DIMENSIONS; i++) {
      v[i] /= (float) Math.sqrt(n);
    }
    return v;
  }

  @Test
  void flatFindsTheExactNeighboursMostSimilarFirst() {
    SplittableRandom random = new SplittableRandom(1);
    VectorIndex flat = VectorIndex.flat(DIMENSIONS);
    float[][] stored = new float[500][];
    for (int i = 0; i < stored.length; i++) {
      stored[i] = unit(random, null, 1);
      flat.add(i, stored[i]);
    }
    List<VectorIndex.Neighbor> found = flat.search(stored[42], 3);
    assertThat(found).hasSize(3);
    assertThat(found.get(0).id()).isEqualTo(42);
    assertThat(found.get(0).similarity()).isCloseTo(1.0f, org.assertj.core.data.Offset.offset(1e-5f));
    assertThat(found.get(1).similarity()).isLessThanOrEqualTo(found.get(0).similarity());
    assertThat(found.get(2).similarity()).isLessThanOrEqualTo(found.get(1).similarity());
  }

  @Test
  void hnswAgreesWithTheFlatScanOnAtLeast95PercentOfQueries() {
    SplittableRandom random = new SplittableRandom(2);
    VectorIndex flat = VectorIndex.flat(DIMENSIONS);
    VectorIndex hnsw = VectorIndex.hnsw(DIMENSIONS);
    float[][] centres = new float[200][];
    for (int c = 0; c < centres.length; c++) {
      centres[c] = unit(random, null, 1);
    }
    for (int i = 0; i < 5_000; i++) {
      float[] v = unit(random, centres[random.nextInt(centres.length)], 0.035);
      flat.add(i, v);
      hnsw.add(i, v);
    }
    int agree = 0;
    for (int q = 0; q < 500; q++) {
      float[] query = unit(random, centres[random.nextInt(centres.length)], 0.035);
      if (flat.search(query, 1).get(0).id() == hnsw.search(query, 1).get(0).id()) {
        agree++;
      }
    }
    assertThat(agree / 500.0).isGreaterThanOrEqualTo(0.95);
    assertThat(hnsw.size()).isEqualTo(5_000);
  }

  @Test
  void theAdaptiveIndexSwitchesToTheGraphAtItsThresholdAndKeepsEveryVector() {
    SplittableRandom random = new SplittableRandom(4);
    AdaptiveVectorIndex index = new AdaptiveVectorIndex(DIMENSIONS, 300);
    float[][] vectors = new float[600][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = unit(random, null, 1);
      index.add(i, vectors[i]);
      assertThat(index.isGraph()).isEqualTo(i + 1 >= 300);
    }
    assertThat(index.size()).isEqualTo(600);
    int found = 0;
    for (int i = 0; i < vectors.length; i++) {
      if (index.search(vectors[i], 1).get(0).id() == i) {
        found++;
      }
    }
    assertThat(found).isGreaterThanOrEqualTo(590);
  }

  @Test
  void hnswSearchesWhileAnotherThreadAdds() throws Exception {
    SplittableRandom random = new SplittableRandom(3);
    VectorIndex hnsw = VectorIndex.hnsw(DIMENSIONS);
    float[][] vectors = new float[3_000][];
    for (int i = 0; i < vectors.length; i++) {
      vectors[i] = unit(random, null, 1);
    }
    for (int i = 0; i < 1_000; i++) {
      hnsw.add(i, vectors[i]);
    }
    ExecutorService pool = Executors.newFixedThreadPool(3);
    try {
      List<Future<Integer>> searches = new ArrayList<>();
      Future<?> adder = pool.submit(() -> {
        for (int i = 1_000; i < vectors.length; i++) {
          hnsw.add(i, vectors[i]);
        }
      });
      for (int t = 0; t < 2; t++) {
        searches.add(pool.submit(() -> {
          int found = 0;
          for (int i = 0; i < 1_000; i++) {
            if (hnsw.search(vectors[i], 1).get(0).id() == i) {
              found++;
            }
          }
          return found;
        }));
      }
      adder.get();
      for (Future<Integer> f : searches) {
        assertThat(f.get()).isGreaterThanOrEqualTo(950);
      }
      assertThat(hnsw.size()).isEqualTo(vectors.length);
    } finally {
      pool.shutdownNow();
    }
  }
}
