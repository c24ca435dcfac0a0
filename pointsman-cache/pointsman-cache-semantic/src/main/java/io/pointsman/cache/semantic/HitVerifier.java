package io.pointsman.cache.semantic;

/**
 * The second half of the semantic hit rule: given the text being looked up and the text of a
 * cached entry whose embedding is within the threshold, decides whether the cached answer may
 * be served. Replace it with {@link SemanticCache.Builder#verifier}; the default is
 * {@link #standard()}.
 *
 * <p>Implementations must be thread-safe, fast (they run on the request thread, up to five
 * times per lookup), must not throw, and must accept every text compared with itself.
 *
 * <pre>{@code
 * SemanticCache cache = SemanticCache.builder(embedder)
 *     .verifier(HitVerifier.thresholdOnly())   // similarity alone decides
 *     .build();
 * }</pre>
 */
@FunctionalInterface
public interface HitVerifier {
  /**
   * Compares a query with a cached entry's text.
   *
   * @param query the text being looked up (the last user turn)
   * @param cached the cached entry's text
   * @return the verdict
   */
  Verdict verify(String query, String cached);

  /**
   * Returns the default verifier, {@link AlignmentVerifier#standard()}: the two texts must say
   * the same thing token for token, in the same order, after normalization.
   *
   * @return the verifier
   */
  static HitVerifier standard() {
    return AlignmentVerifier.standard();
  }

  /**
   * Returns a verifier that accepts every candidate, leaving the decision to the similarity
   * threshold alone. Expect wrong hits on near misses (negation, numbers, swapped words).
   *
   * @return the verifier
   */
  static HitVerifier thresholdOnly() {
    return (query, cached) -> Verdict.AGREE;
  }
}
