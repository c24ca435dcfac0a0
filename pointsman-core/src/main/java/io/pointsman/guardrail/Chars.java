package io.pointsman.guardrail;

/** Character tests and small computations shared by the detectors. */
final class Chars {
  private Chars() {}

  static boolean isAsciiAlnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  static boolean isUpperOrDigit(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }

  static boolean isBase64Url(char c) {
    return isAsciiAlnum(c) || c == '-' || c == '_';
  }

  static boolean isBase64(char c) {
    return isAsciiAlnum(c) || c == '+' || c == '/';
  }

  static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  /** Character at index, or NUL outside the text, so that boundaries read as non-word. */
  static char at(CharSequence text, int index) {
    return index < 0 || index >= text.length() ? '\0' : text.charAt(index);
  }

  /** Index after the run of characters from {@code from} that pass the test, at most max long. */
  static int run(CharSequence text, int from, CharTest test, int max) {
    int limit = (int) Math.min(text.length(), (long) from + max);
    int i = from;
    while (i < limit && test.test(text.charAt(i))) {
      i++;
    }
    return i;
  }

  /** Shannon entropy in bits per character of text[start, end). */
  static double entropy(CharSequence text, int start, int end) {
    int n = end - start;
    if (n <= 0) {
      return 0;
    }
    int[] counts = new int[128];
    int other = 0;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      if (c < 128) {
        counts[c]++;
      } else {
        other++;
      }
    }
    double h = 0;
    for (int count : counts) {
      if (count > 0) {
        double p = (double) count / n;
        h -= p * Math.log(p);
      }
    }
    if (other > 0) {
      double p = (double) other / n;
      h -= p * Math.log(p);
    }
    return h / Math.log(2);
  }

  static int distinct(CharSequence text, int start, int end) {
    boolean[] seen = new boolean[128];
    int count = 0;
    for (int i = start; i < end; i++) {
      char c = text.charAt(i);
      if (c < 128 && !seen[c]) {
        seen[c] = true;
        count++;
      }
    }
    return count;
  }

  static boolean regionEquals(CharSequence text, int at, String s) {
    if (at < 0 || at + s.length() > text.length()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      if (text.charAt(at + i) != s.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  static boolean containsIgnoreCase(CharSequence text, int start, int end, String lowerNeedle) {
    int n = lowerNeedle.length();
    outer:
    for (int i = start; i + n <= end; i++) {
      for (int j = 0; j < n; j++) {
        if (Character.toLowerCase(text.charAt(i + j)) != lowerNeedle.charAt(j)) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** A test on one character. */
  @FunctionalInterface
  interface CharTest {
    boolean test(char c);
  }
}
