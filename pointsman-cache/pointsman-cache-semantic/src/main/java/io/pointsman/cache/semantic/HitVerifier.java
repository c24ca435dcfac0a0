package io.pointsman.cache.semantic;

/**
 * The second half of the semantic hit rule: given the text being looked up and the text of a
 * cached entry whose embedding is within the threshold, decides whether the cached answer may
 * be served. Replace it with {@link SemanticCache.Builder#verifier}; the default is
 * {@link #standard()}.
 *
 * <p>Implementations must be thread-safe, fast (they run on the request thread, up to five
 * times per lookup), must not throw, and must accept every text compared with itself. A lookup
 * binds the verifier to its query once ({@link #bind}) and compares that with each candidate.
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
   * Returns this verifier bound to one query, which a lookup then compares with each of its
   * candidates in turn. A verifier that prepares a text before comparing it (the standard one
   * normalizes it, most of the work for a long prompt) prepares the query once here instead of
   * once per candidate. The default binds {@link #verify} as it is.
   *
   * <p>The bound verifier must give for each cached text the verdict {@link #verify} gives; it is
   * used on the lookup's thread only.
   *
   * @param query the text being looked up
   * @return the verifier for that query
   */
  default Query bind(String query) {
    return cached -> verify(query, cached);
  }

  /** A verifier bound to one query (see {@link #bind}). */
  @FunctionalInterface
  interface Query {
    /**
     * Compares the bound query with a cached entry's text.
     *
     * @param cached the cached entry's text
     * @return the verdict, as {@link HitVerifier#verify} gives it for the query and that text
     */
    Verdict verify(String cached);
  }

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
