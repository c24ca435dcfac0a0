package io.pointsman.guardrail;

/**
 * A text whose every character read costs one step of a budget, so that a regex engine that
 * backtracks on it stops after a known amount of work with a {@link ScanBudgetExceededException}
 * instead of holding a thread. Not thread-safe: one instance per scan.
 */
final class BoundedText implements CharSequence {
  private final CharSequence text;
  private final String family;
  private final long budget;
  private long steps;

  BoundedText(CharSequence text, String family, long budget) {
    this.text = text;
    this.family = family;
    this.budget = budget;
  }

  long steps() {
    return steps;
  }

  @Override
  public int length() {
    return text.length();
  }

  @Override
  public char charAt(int index) {
    if (++steps > budget) {
      throw new ScanBudgetExceededException(family, budget);
    }
    return text.charAt(index);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    // Charged as if read, so that no read path escapes the budget.
    steps += end - start;
    if (steps > budget) {
      throw new ScanBudgetExceededException(family, budget);
    }
    return text.subSequence(start, end);
  }

  @Override
  public String toString() {
    return text.toString();
  }
}
