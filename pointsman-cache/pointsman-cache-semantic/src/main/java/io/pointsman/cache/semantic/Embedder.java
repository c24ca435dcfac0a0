package io.pointsman.cache.semantic;

import java.util.ArrayList;
import java.util.List;

/**
 * Turns a text into a unit vector for {@link SemanticCache}. {@link MiniLmEmbedder} is the
 * implementation; the interface lets a host wrap it (for example to meter it) or put another
 * model of the same width behind the cache.
 *
 * <p>Implementations must be thread-safe.
 */
public interface Embedder {
  /**
   * Returns the width of every vector.
   *
   * @return the number of components
   */
  int dimensions();

  /**
   * Embeds one text.
   *
   * @param text the text
   * @return a unit vector of {@link #dimensions()} components
   * @throws EmbeddingException if the model fails
   */
  float[] embed(String text);

  /**
   * Embeds several texts in one model run where the implementation can; by default one
   * {@link #embed} per text.
   *
   * @param texts the texts
   * @return the vectors, in order
   * @throws EmbeddingException if the model fails
   */
  default List<float[]> embedBatch(List<String> texts) {
    List<float[]> out = new ArrayList<>(texts.size());
    for (String text : texts) {
      out.add(embed(text));
    }
    return out;
  }
}
