package io.pointsman.guardrail;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Refuses regular expressions that are known to backtrack exponentially in {@code
 * java.util.regex}: a quantified group that itself contains an unbounded quantifier ({@code
 * (a+)+}, {@code (\w*\s?)*}, {@code (x{2,})+}), and backreferences. What this check cannot see
 * (overlapping alternatives under a star, such as {@code (a|aa)*}) is bounded at run time by
 * {@link BoundedText}.
 */
final class RegexSafety {
  private RegexSafety() {}

  private static final class Frame {
    boolean quantified;
  }

  /**
   * Checks a regex.
   *
   * @param regex the pattern source
   * @throws IllegalArgumentException naming the construct that is refused
   */
  static void check(String regex) {
    Deque<Frame> stack = new ArrayDeque<>();
    stack.push(new Frame());
    int n = regex.length();
    int i = 0;
    while (i < n) {
      char c = regex.charAt(i);
      switch (c) {
        case '\\' -> {
          char next = i + 1 < n ? regex.charAt(i + 1) : '\0';
          if ((next >= '1' && next <= '9') || next == 'k') {
            throw new IllegalArgumentException("backreferences are not allowed in guardrail "
                + "patterns (at index " + i + ")");
          }
          if (next == 'Q') {
            int end = regex.indexOf("\\E", i + 2);
            i = end < 0 ? n : end + 2;
          } else {
            i += 2;
          }
          i = quantifier(regex, i, stack.peek());
        }
        case '[' -> {
          i = skipClass(regex, i);
          i = quantifier(regex, i, stack.peek());
        }
        case '(' -> {
          int body = i + 1;
          if (body < n && regex.charAt(body) == '?') {
            int j = body + 1;
            while (j < n && (Character.isLetter(regex.charAt(j)) || regex.charAt(j) == '-')) {
              j++;
            }
            if (j < n && regex.charAt(j) == ')' && j > body + 1) {
              // An inline flag setting such as (?i): no group opens.
              i = j + 1;
              continue;
            }
          }
          stack.push(new Frame());
          i = groupBody(regex, body);
        }
        case ')' -> {
          if (stack.size() < 2) {
            throw new IllegalArgumentException("unbalanced ')' in pattern at index " + i);
          }
          Frame inner = stack.pop();
          Frame outer = stack.peek();
          int after = i + 1;
          boolean unbounded = unboundedAt(regex, after);
          if (unbounded && inner.quantified) {
            throw new IllegalArgumentException("nested quantifiers can backtrack "
                + "catastrophically (a quantified group ending at index " + i
                + " contains a quantifier)");
          }
          outer.quantified |= inner.quantified;
          i = quantifier(regex, after, outer);
        }
        default -> i = quantifier(regex, i + 1, stack.peek());
      }
    }
  }

  /** Index of the first character of a group's content, after any {@code ?…} modifier. */
  private static int groupBody(String regex, int body) {
    int n = regex.length();
    if (body >= n || regex.charAt(body) != '?') {
      return body;
    }
    int i = body + 1;
    if (i < n && (regex.charAt(i) == ':' || regex.charAt(i) == '=' || regex.charAt(i) == '!'
        || regex.charAt(i) == '>')) {
      return i + 1;
    }
    if (i < n && regex.charAt(i) == '<') {
      if (i + 1 < n && (regex.charAt(i + 1) == '=' || regex.charAt(i + 1) == '!')) {
        return i + 2;
      }
      int close = regex.indexOf('>', i);
      if (close < 0) {
        throw new IllegalArgumentException("malformed named group in pattern");
      }
      return close + 1;
    }
    while (i < n && (Character.isLetter(regex.charAt(i)) || regex.charAt(i) == '-')) {
      i++;
    }
    if (i < n && regex.charAt(i) == ':') {
      return i + 1;
    }
    throw new IllegalArgumentException("malformed group modifier in pattern");
  }

  private static int skipClass(String regex, int open) {
    int depth = 0;
    int i = open;
    int n = regex.length();
    while (i < n) {
      char c = regex.charAt(i);
      if (c == '\\') {
        i += 2;
        continue;
      }
      if (c == '[') {
        depth++;
      } else if (c == ']' && i > open + 1) {
        depth--;
        if (depth == 0) {
          return i + 1;
        }
      }
      i++;
    }
    return n;
  }

  private static boolean unboundedAt(String regex, int i) {
    if (i >= regex.length()) {
      return false;
    }
    char c = regex.charAt(i);
    if (c == '*' || c == '+') {
      return true;
    }
    if (c == '{') {
      int close = regex.indexOf('}', i);
      if (close < 0) {
        return false;
      }
      String inside = regex.substring(i + 1, close);
      int comma = inside.indexOf(',');
      if (comma < 0) {
        return false;
      }
      String max = inside.substring(comma + 1).trim();
      return max.isEmpty() || Integer.parseInt(max) > 16;
    }
    return false;
  }

  /** Skips a quantifier at {@code i}, marking the frame as quantified when there is one. */
  private static int quantifier(String regex, int i, Frame frame) {
    int n = regex.length();
    if (i >= n) {
      return i;
    }
    char c = regex.charAt(i);
    int after;
    if (c == '*' || c == '+' || c == '?') {
      after = i + 1;
      if (c != '?') {
        frame.quantified = true;
      }
    } else if (c == '{' && regex.indexOf('}', i) > 0) {
      after = regex.indexOf('}', i) + 1;
      frame.quantified |= unboundedAt(regex, i) || !regex.substring(i, after).matches("\\{1}");
    } else {
      return i;
    }
    if (after < n && (regex.charAt(after) == '?' || regex.charAt(after) == '+')) {
      after++;
    }
    return after;
  }
}
