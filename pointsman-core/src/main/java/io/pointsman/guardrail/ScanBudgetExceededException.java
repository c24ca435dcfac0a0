package io.pointsman.guardrail;

/**
 * Thrown by a {@link Detector} whose scan of one text ran over its step budget, so that a
 * pathological input cannot hold a thread. Guardrail chains turn it into a 400 naming
 * {@code <family>.budget}: a text that cannot be checked in bounded time is refused.
 *
 * <p>Created without a stack trace: it is an expected outcome of hostile input.
 */
public final class ScanBudgetExceededException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** The family of checks whose budget ran out. */
  private final String family;

  /**
   * Creates the exception.
   *
   * @param family the family of the detector that gave up
   * @param steps the budget that was spent
   */
  public ScanBudgetExceededException(String family, long steps) {
    super("the " + family + " scan exceeded its budget of " + steps + " steps", null, false,
        false);
    this.family = family;
  }

  /**
   * Returns the family of the detector that gave up.
   *
   * @return the family name
   */
  public String family() {
    return family;
  }
}
