package io.pointsman.guardrail;

import java.util.List;

/**
 * One text as the built-in detectors read it: its characters copied once into an array that
 * every detector of a chain indexes directly, instead of each one reading the text through
 * {@link CharSequence#charAt}. A chain refills one instance per text; detectors must not keep
 * it. Not thread-safe.
 */
final class ScanText {
  /** The text itself, for the detectors' checks at the few places they look closer. */
  CharSequence text;
  /** The text's characters in {@code [0, length)}; the array may be longer. */
  char[] chars = new char[0];
  /** The number of characters. */
  int length;
  /**
   * Two matchers the chain's detectors will run over every text, found in one pass (see
   * {@link LiteralMatcher#findAll(LiteralMatcher, LiteralMatcher.Matches, LiteralMatcher,
   * LiteralMatcher.Matches, char[], int)}) when the first of them asks; null when unpaired.
   */
  private LiteralMatcher pairA;
  private LiteralMatcher pairB;
  private boolean pairDone;
  private final LiteralMatcher.Matches matchesA = new LiteralMatcher.Matches();
  private final LiteralMatcher.Matches matchesB = new LiteralMatcher.Matches();
  private final LiteralMatcher.Matches single = new LiteralMatcher.Matches();
  private final LiteralMatcher.Buffers buffers = new LiteralMatcher.Buffers();
  /** The longest array {@link #release} keeps, in characters. */
  static final int KEEP_CHARS = 1 << 16;
  /** The most matches per list {@link #release} keeps room for. */
  static final int KEEP_MATCHES = 1 << 12;

  /**
   * Returns whether a detector is one of the built-in ones, which read a {@link ScanText}
   * through {@link #scan}.
   */
  static boolean reads(Detector detector) {
    return detector instanceof SecretDetector || detector instanceof PromptInjectionDetector
        || detector instanceof PromptInjectionClassifier;
  }

  /** Runs a detector for which {@link #reads} holds over this text. */
  void scan(Detector detector, List<Finding> out) {
    if (detector instanceof SecretDetector d) {
      d.scan(this, out);
    } else if (detector instanceof PromptInjectionDetector d) {
      d.scan(this, out);
    } else {
      ((PromptInjectionClassifier) detector).scan(this, out);
    }
  }

  /** Returns a new instance holding a copy of the text. */
  static ScanText of(CharSequence text) {
    return new ScanText().fill(text);
  }

  /** Makes this instance hold the text, reusing its array when it is large enough. */
  ScanText fill(CharSequence value) {
    int n = value.length();
    if (chars.length < n) {
      chars = new char[n];
    }
    if (value instanceof String s) {
      s.getChars(0, n, chars, 0);
    } else {
      for (int i = 0; i < n; i++) {
        chars[i] = value.charAt(i);
      }
    }
    this.text = value;
    this.length = n;
    this.pairDone = false;
    return this;
  }

  /**
   * Forgets the last text, and the copy of it when that is longer than {@link #KEEP_CHARS}
   * (and match lists grown past {@link #KEEP_MATCHES}), so that an instance kept for reuse
   * holds neither a caller's text nor much memory.
   */
  void release() {
    text = null;
    length = 0;
    if (chars.length > KEEP_CHARS) {
      chars = new char[0];
    }
    matchesA.release(KEEP_MATCHES);
    matchesB.release(KEEP_MATCHES);
    single.release(KEEP_MATCHES);
  }

  /**
   * Sets the two matchers to run together over the next texts (distinct, or nothing is paired).
   *
   * @param a a matcher, or null
   * @param b another, or null
   */
  void pair(LiteralMatcher a, LiteralMatcher b) {
    boolean paired = a != null && b != null && a != b;
    this.pairA = paired ? a : null;
    this.pairB = paired ? b : null;
    this.pairDone = false;
  }

  /**
   * Returns a matcher's matches in this text, in {@link LiteralMatcher#find} order; valid until
   * the next {@link #fill} or call for another unpaired matcher.
   */
  LiteralMatcher.Matches matches(LiteralMatcher matcher) {
    if (matcher == pairA || matcher == pairB) {
      if (!pairDone) {
        LiteralMatcher.findAll(pairA, matchesA, pairB, matchesB, chars, length, buffers);
        pairDone = true;
      }
      return matcher == pairA ? matchesA : matchesB;
    }
    LiteralMatcher.findAll(matcher, single, null, null, chars, length, buffers);
    return single;
  }

  /** The matcher of a built-in detector that runs one, else null. */
  static LiteralMatcher matcherOf(Detector detector) {
    if (detector instanceof SecretDetector d) {
      return d.triggers();
    }
    if (detector instanceof PromptInjectionDetector d) {
      return d.matcher();
    }
    return null;
  }
}
