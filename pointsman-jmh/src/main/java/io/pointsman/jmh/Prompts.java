package io.pointsman.jmh;

/** Prompt texts of an exact size, shared by the benchmarks and the harness. */
public final class Prompts {
  private static final String WORDS =
      "the pointsman sets the switch so the train takes the right track ";

  private Prompts() {}

  /**
   * Returns English-like ASCII text of exactly the given length.
   *
   * @param bytes the length in bytes (ASCII: one byte per character)
   * @return the text
   */
  public static String ofBytes(int bytes) {
    StringBuilder sb = new StringBuilder(bytes + WORDS.length());
    while (sb.length() < bytes) {
      sb.append(WORDS);
    }
    sb.setLength(bytes);
    return sb.toString();
  }
}
