package io.pointsman.cache.semantic;

import java.util.Objects;

/**
 * A {@link HitVerifier}'s decision on one candidate. Immutable.
 *
 * @param agrees whether the two texts may share an answer
 * @param reason the first disagreement found, or empty when they agree
 */
public record Verdict(boolean agrees, String reason) {
  /** The verdict of two texts that may share an answer. */
  public static final Verdict AGREE = new Verdict(true, "");

  /**
   * Validates the fields.
   *
   * @param agrees whether the two texts may share an answer
   * @param reason the first disagreement found, or empty when they agree
   * @throws NullPointerException if reason is null
   */
  public Verdict {
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * Returns a refusal.
   *
   * @param reason what differs, for the cache status and logs
   * @return the verdict
   * @throws NullPointerException if reason is null
   */
  public static Verdict disagree(String reason) {
    return new Verdict(false, reason);
  }
}
