package io.pointsman.guardrail;

/** A text that counts how many characters were read from it, to prove scans are linear. */
final class CountingText implements CharSequence {
  private final String text;
  private long reads;

  CountingText(String text) {
    this.text = text;
  }

  long reads() {
    return reads;
  }

  @Override
  public int length() {
    return text.length();
  }

  @Override
  public char charAt(int index) {
    reads++;
    return text.charAt(index);
  }

  @Override
  public CharSequence subSequence(int start, int end) {
    reads += end - start;
    return text.subSequence(start, end);
  }

  @Override
  public String toString() {
    return text;
  }
}
