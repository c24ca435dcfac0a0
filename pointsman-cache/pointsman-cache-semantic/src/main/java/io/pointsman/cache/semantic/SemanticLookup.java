package io.pointsman.cache.semantic;

import io.pointsman.spi.CacheLookup;
import java.util.Objects;

/**
 * What one semantic lookup found, with more detail than {@link CacheLookup}. Immutable.
 *
 * @param lookup the result as the gateway sees it
 * @param similarity the best candidate's cosine similarity, or {@code NaN} when none was
 *     compared (skipped, empty scope, error)
 * @param matchedText the cached text of the entry that answered or was refused, or empty
 * @param verdict the verification of that entry, or {@code null} when none ran
 */
public record SemanticLookup(CacheLookup lookup, double similarity, String matchedText,
    Verdict verdict) {

  /**
   * Validates the fields.
   *
   * @param lookup the result as the gateway sees it
   * @param similarity the best candidate's cosine similarity, or {@code NaN} when none was
   *     compared (skipped, empty scope, error)
   * @param matchedText the cached text of the entry that answered or was refused, or empty
   * @param verdict the lexical verification of that entry, or {@code null} when none ran
   * @throws NullPointerException if lookup or matchedText is null
   */
  public SemanticLookup {
    Objects.requireNonNull(lookup, "lookup");
    Objects.requireNonNull(matchedText, "matchedText");
  }
}
