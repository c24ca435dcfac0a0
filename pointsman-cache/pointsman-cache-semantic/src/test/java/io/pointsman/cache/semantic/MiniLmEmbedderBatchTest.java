package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.testing.SharedEmbedder;
import java.util.List;
import org.junit.jupiter.api.Test;

class MiniLmEmbedderBatchTest {
  private static final List<String> TEXTS = List.of(
      "How do I reverse a list in Python?",
      "What is the capital of France?",
      "Explain the difference between a process and a thread in an operating system, with an"
          + " example of when each is the better choice and what it costs to switch between"
          + " them on a modern machine.",
      "hi",
      "Write a haiku about autumn leaves falling on a quiet pond at dusk.");

  private static double cosine(float[] a, float[] b) {
    double dot = 0;
    for (int i = 0; i < a.length; i++) {
      dot += (double) a[i] * b[i];
    }
    return dot;
  }

  @Test
  void aPaddedBatchGivesEachTextItsOwnVectorCloseToTheSingleRun() {
    MiniLmEmbedder embedder = SharedEmbedder.get();
    List<float[]> batched = embedder.embedBatch(TEXTS);
    assertThat(batched).hasSize(TEXTS.size());
    double worst = 1;
    for (int i = 0; i < TEXTS.size(); i++) {
      float[] single = embedder.embed(TEXTS.get(i));
      assertThat(batched.get(i)).hasSize(MiniLmEmbedder.DIMENSIONS);
      double c = cosine(single, batched.get(i));
      worst = Math.min(worst, c);
      // Each row is its own text, not a neighbour's: closer to its single run than to any other.
      for (int j = 0; j < TEXTS.size(); j++) {
        if (j != i) {
          assertThat(c).isGreaterThan(cosine(embedder.embed(TEXTS.get(j)), batched.get(i)));
        }
      }
    }
    System.out.printf("worst cosine batched vs single: %.6f%n", worst);
    assertThat(worst).isGreaterThan(0.97);
  }

  @Test
  void aBatchOfOneIsTheSingleRun() {
    MiniLmEmbedder embedder = SharedEmbedder.get();
    assertThat(embedder.embedBatch(List.of(TEXTS.get(0))).get(0))
        .containsExactly(embedder.embed(TEXTS.get(0)));
    assertThat(embedder.embedBatch(List.of())).isEmpty();
  }
}
