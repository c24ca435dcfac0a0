package io.pointsman.guardrail;

import java.util.Objects;

/**
 * One thing a {@link Detector} found in a text: the rule that matched and where. It carries
 * offsets, never the matched text, so that a finding can be logged without leaking a secret.
 *
 * <p>Immutable and thread-safe.
 *
 * @param rule the rule's name, for example {@code secret.github_token}
 * @param start the index of the first character of the match
 * @param end the index after the last character of the match
 */
public record Finding(String rule, int start, int end) {
  /**
   * Validates the fields.
   *
   * @param rule the rule's name, for example {@code secret.github_token}
   * @param start the index of the first character of the match
   * @param end the index after the last character of the match
   * @throws NullPointerException if rule is null
   * @throws IllegalArgumentException if the span is negative or empty
   */
  public Finding {
    Objects.requireNonNull(rule, "rule");
    if (start < 0 || end <= start) {
      throw new IllegalArgumentException("bad span [" + start + ", " + end + ")");
    }
  }
}
