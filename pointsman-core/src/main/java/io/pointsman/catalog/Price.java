package io.pointsman.catalog;

/**
 * The price of a model in integer micro-units (one millionth of the currency unit) per million
 * tokens. Immutable.
 *
 * @param inputPerMillion price of one million uncached input tokens
 * @param outputPerMillion price of one million output tokens
 * @param cachedInputPerMillion price of one million cached input tokens
 */
public record Price(long inputPerMillion, long outputPerMillion, long cachedInputPerMillion) {

  /**
   * Validates the prices.
   *
   * @param inputPerMillion price of one million uncached input tokens
   * @param outputPerMillion price of one million output tokens
   * @param cachedInputPerMillion price of one million cached input tokens
   * @throws IllegalArgumentException if a price is negative
   */
  public Price {
    if (inputPerMillion < 0 || outputPerMillion < 0 || cachedInputPerMillion < 0) {
      throw new IllegalArgumentException("prices must not be negative: input=" + inputPerMillion
          + " output=" + outputPerMillion + " cachedInput=" + cachedInputPerMillion);
    }
  }

  /**
   * Returns a price whose cached input costs the same as uncached input.
   *
   * @param inputPerMillion micro-units per million input tokens
   * @param outputPerMillion micro-units per million output tokens
   * @return the price
   * @throws IllegalArgumentException if a price is negative
   */
  public static Price of(long inputPerMillion, long outputPerMillion) {
    return new Price(inputPerMillion, outputPerMillion, inputPerMillion);
  }

  /**
   * Returns the component-wise higher of this price and another: the price that covers either.
   *
   * @param other the other price, or {@code null}
   * @return the higher price; this price when {@code other} is null
   */
  public Price max(Price other) {
    if (other == null) {
      return this;
    }
    return new Price(Math.max(inputPerMillion, other.inputPerMillion),
        Math.max(outputPerMillion, other.outputPerMillion),
        Math.max(cachedInputPerMillion, other.cachedInputPerMillion));
  }

  /**
   * Returns the cost of the given token counts, rounded up to the next micro-unit so that a
   * charge is never below the true cost.
   *
   * @param uncachedInputTokens uncached input tokens
   * @param cachedInputTokens cached input tokens
   * @param outputTokens output tokens
   * @return the cost in micro-units
   * @throws IllegalArgumentException if a count is negative
   * @throws ArithmeticException if the cost overflows a long
   */
  public long cost(long uncachedInputTokens, long cachedInputTokens, long outputTokens) {
    if (uncachedInputTokens < 0 || cachedInputTokens < 0 || outputTokens < 0) {
      throw new IllegalArgumentException("token counts must not be negative");
    }
    // Sum the per-million products first, then round once: rounding each term up would
    // over-charge by up to three micro-units.
    long scaled = Math.addExact(Math.addExact(
            Math.multiplyExact(uncachedInputTokens, inputPerMillion),
            Math.multiplyExact(cachedInputTokens, cachedInputPerMillion)),
        Math.multiplyExact(outputTokens, outputPerMillion));
    return Math.floorDiv(scaled, 1_000_000L) + (Math.floorMod(scaled, 1_000_000L) == 0 ? 0 : 1);
  }
}
