package io.pointsman.model;

import java.util.List;
import java.util.Objects;

/**
 * One input of an embeddings request: a text, or a text already tokenized into token ids.
 * Immutable.
 *
 * @param text the text, or {@code null} for token ids
 * @param tokens the token ids, or {@code null} for a text
 */
public record EmbeddingInput(String text, List<Integer> tokens) {

  /**
   * Validates that exactly one of the two is set.
   *
   * @param text the text, or {@code null} for token ids
   * @param tokens the token ids, or {@code null} for a text
   * @throws IllegalArgumentException unless exactly one of text and tokens is set
   */
  public EmbeddingInput {
    if ((text == null) == (tokens == null)) {
      throw new IllegalArgumentException("an embedding input is a text or token ids");
    }
    tokens = tokens == null ? null : List.copyOf(tokens);
  }

  /**
   * A text input.
   *
   * @param text the text
   * @return the input
   * @throws NullPointerException if text is null
   */
  public static EmbeddingInput ofText(String text) {
    return new EmbeddingInput(Objects.requireNonNull(text, "text"), null);
  }

  /**
   * A tokenized input.
   *
   * @param tokens the token ids
   * @return the input
   * @throws NullPointerException if tokens is null
   */
  public static EmbeddingInput ofTokens(List<Integer> tokens) {
    return new EmbeddingInput(null, Objects.requireNonNull(tokens, "tokens"));
  }

  /**
   * Returns whether this input is token ids rather than a text.
   *
   * @return true for token ids
   */
  public boolean tokenized() {
    return tokens != null;
  }
}
