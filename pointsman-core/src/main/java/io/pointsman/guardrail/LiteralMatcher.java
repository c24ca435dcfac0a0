package io.pointsman.guardrail;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Finds every occurrence of many literal strings in one pass over a text: an Aho–Corasick
 * automaton compiled into a dense transition table over the literals' own alphabet, so that the
 * cost per character does not grow with the number of literals (only the table's memory does:
 * states × distinct characters × 4 bytes).
 *
 * <pre>{@code
 * LiteralMatcher matcher = LiteralMatcher.builder()
 *     .caseInsensitive(true)
 *     .add("ignore previous instructions")
 *     .add("developer mode")
 *     .build();
 * matcher.find(text, (literal, start, end) -> {
 *   System.out.println(matcher.literal(literal) + " at " + start);
 *   return true;
 * });
 * }</pre>
 *
 * <p>Options: case-insensitive matching (simple per-character case folding; a literal can still
 * be marked case-sensitive), whitespace collapsing (a run of whitespace in the text matches one
 * space in a literal) and whole-word matching (a match must not touch a letter, digit or
 * underscore on either side).
 *
 * <p>Immutable and thread-safe once built. Scanning is linear in the text's length: each
 * character is read exactly once, except that the paired scan of a plain and a collapsing
 * matcher (the default input chain's) steps the collapsing automaton on every character, the
 * whitespace it skips included (a state entered on whitespace loops to itself on more of it),
 * and finds a match's start afterwards by reading the match back from its end; it remembers
 * the last 8 runs of whitespace it read, so that the matches spanning one long run read it once.
 */
public final class LiteralMatcher {
  /** The most table cells (states × alphabet) a matcher may hold: 256 MiB of transitions. */
  static final long MAX_CELLS = 64L << 20;

  private final String[] literals;
  private final boolean[] exact;
  private final int[] lengths;
  private final char[] classOf;
  private final int alphabet;
  // Entry for (state, class) is the next state's row offset, bitwise-negated when that state
  // ends at least one literal, so that the hot loop tests for output with one sign check.
  private final int[] delta;
  private final int[] outLiteral;
  private final int[] outLink;
  private final boolean foldCase;
  private final boolean collapseWhitespace;
  private final boolean wholeWords;
  private final int maxLength;
  private final int states;
  /** The class of ' ' when whitespace collapses (every whitespace character has it), else 0. */
  private final int spaceClass;
  private final boolean[] asciiWord;
  /** {@link #pairClasses}: the other matcher and the table; replaced, never changed. */
  private volatile Object[] pairCache;

  /**
   * Receives matches.
   *
   * <p>Called on the scanning thread, in order of match end; must not throw.
   */
  @FunctionalInterface
  public interface Sink {
    /**
     * Receives one match.
     *
     * @param literal the index of the literal, in the order it was added
     * @param start the index of the match's first character in the text
     * @param end the index after the match's last character
     * @return true to go on scanning, false to stop
     */
    boolean onMatch(int literal, int start, int end);
  }

  private LiteralMatcher(Builder b) {
    this.foldCase = b.caseInsensitive;
    this.collapseWhitespace = b.collapseWhitespace;
    this.wholeWords = b.wholeWords;
    int n = b.literals.size();
    this.literals = b.literals.toArray(new String[0]);
    if (collapseWhitespace) {
      for (int i = 0; i < n; i++) {
        literals[i] = literals[i].replaceAll("\\s+", " ");
      }
    }
    this.exact = new boolean[n];
    this.lengths = new int[n];
    for (int i = 0; i < n; i++) {
      exact[i] = b.exact.get(i);
      lengths[i] = literals[i].length();
    }
    this.classOf = new char[Character.MAX_VALUE + 1];
    int classes = 1;
    int longest = 0;
    for (String literal : literals) {
      longest = Math.max(longest, literal.length());
      for (int i = 0; i < literal.length(); i++) {
        char c = normalize(literal.charAt(i));
        if (classOf[c] == 0) {
          if (classes == Character.MAX_VALUE) {
            throw new IllegalArgumentException("the literals use too many distinct characters");
          }
          classOf[c] = (char) classes++;
        }
      }
    }
    this.maxLength = longest;
    if (foldCase || collapseWhitespace) {
      // Every character whose normal form is in the alphabet shares that form's class.
      for (int c = 0; c <= Character.MAX_VALUE; c++) {
        char norm = normalize((char) c);
        if (norm != c && classOf[norm] != 0) {
          classOf[c] = classOf[norm];
        }
      }
    }
    this.alphabet = classes;

    // Trie, built straight into the dense table; 0 marks a missing edge (no edge leads to root).
    int capacity = 64;
    int[] table = new int[capacity * alphabet];
    int[] out = new int[capacity];
    Arrays.fill(out, -1);
    int count = 1;
    for (int id = 0; id < n; id++) {
      String literal = literals[id];
      int s = 0;
      for (int i = 0; i < literal.length(); i++) {
        int k = classOf[normalize(literal.charAt(i))];
        int next = table[s * alphabet + k];
        if (next == 0) {
          if (count == capacity) {
            if ((long) capacity * 2 * alphabet > MAX_CELLS) {
              throw new IllegalArgumentException("the literals need more than " + MAX_CELLS
                  + " transition cells; split them into several matchers");
            }
            capacity *= 2;
            table = Arrays.copyOf(table, capacity * alphabet);
            out = Arrays.copyOf(out, capacity);
            Arrays.fill(out, capacity / 2, capacity, -1);
          }
          next = count++;
          table[s * alphabet + k] = next;
        }
        s = next;
      }
      // A duplicate literal keeps the first index: the later one can never report separately.
      if (out[s] == -1) {
        out[s] = id;
      }
    }
    this.states = count;

    // Breadth-first: failure links, dictionary links, and completion of missing edges.
    int[] fail = new int[count];
    int[] link = new int[count];
    Arrays.fill(link, -1);
    int[] queue = new int[count];
    int head = 0;
    int tail = 0;
    for (int k = 1; k < alphabet; k++) {
      int child = table[k];
      if (child != 0) {
        fail[child] = 0;
        queue[tail++] = child;
      }
    }
    while (head < tail) {
      int s = queue[head++];
      int f = fail[s];
      link[s] = out[f] >= 0 ? f : link[f];
      for (int k = 1; k < alphabet; k++) {
        int child = table[s * alphabet + k];
        if (child != 0) {
          fail[child] = table[f * alphabet + k];
          queue[tail++] = child;
        } else {
          table[s * alphabet + k] = table[f * alphabet + k];
        }
      }
    }
    this.spaceClass = collapseWhitespace ? classOf[' '] : 0;
    this.asciiWord = new boolean[0x80];
    for (char c = 0; c < 0x80; c++) {
      asciiWord[c] = c == '_' || Character.isLetterOrDigit(c);
    }
    // Rewrite entries as row offsets, negated for states with output along their dictionary chain.
    int[] dense = new int[count * alphabet];
    for (int s = 0; s < count; s++) {
      for (int k = 0; k < alphabet; k++) {
        int target = table[s * alphabet + k];
        int offset = target * alphabet;
        dense[s * alphabet + k] = (out[target] >= 0 || link[target] >= 0) ? ~offset : offset;
      }
    }
    if (spaceClass != 0) {
      // A state entered on whitespace is left as it is by the whitespace after it, which a
      // collapsing scan skips: give it that self-loop, without an output mark (so that nothing
      // is reported twice), and a scan may step the automaton on every character. The entry
      // replaced is one no scan reads, since after whitespace comes either more of it (skipped)
      // or something else. The root needs none: it is entered on whitespace only when no
      // literal starts with whitespace, and then its whitespace entry leads to itself.
      boolean[] afterSpace = new boolean[count];
      for (int st = 0; st < count; st++) {
        afterSpace[table[st * alphabet + spaceClass]] = true;
      }
      for (int st = 1; st < count; st++) {
        if (afterSpace[st]) {
          dense[st * alphabet + spaceClass] = st * alphabet;
        }
      }
    }
    this.delta = dense;
    this.outLiteral = Arrays.copyOf(out, count);
    this.outLink = link;
  }

  /**
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the number of literals.
   *
   * @return the count, including duplicates
   */
  public int size() {
    return literals.length;
  }

  /**
   * Returns a literal by index.
   *
   * @param index the index, in the order literals were added
   * @return the literal
   * @throws IndexOutOfBoundsException if there is no such literal
   */
  public String literal(int index) {
    return literals[index];
  }

  /**
   * Returns the number of automaton states, a measure of the matcher's memory.
   *
   * @return the state count
   */
  public int states() {
    return states;
  }

  /**
   * Returns the number of character classes (distinct characters of the literals, plus one).
   *
   * @return the alphabet size
   */
  public int alphabetSize() {
    return alphabet;
  }

  /**
   * Reports every match in a text, in order of match end.
   *
   * @param text the text
   * @param sink receives the matches; returning false stops the scan
   * @return false if the sink stopped the scan, true if it ran to the end
   * @throws NullPointerException if text or sink is null
   */
  public boolean find(CharSequence text, Sink sink) {
    Objects.requireNonNull(sink, "sink");
    int length = text.length();
    if (literals.length == 0) {
      return true;
    }
    if (collapseWhitespace) {
      return findCollapsing(text, length, sink);
    }
    final int[] d = delta;
    final char[] cls = classOf;
    int s = 0;
    for (int i = 0; i < length; i++) {
      int t = d[s + cls[text.charAt(i)]];
      if (t < 0) {
        t = ~t;
        if (!report(text, t / alphabet, i + 1, sink)) {
          return false;
        }
      }
      s = t;
    }
    return true;
  }

  /**
   * Returns whether a text contains at least one of the literals.
   *
   * @param text the text
   * @return true on the first match
   * @throws NullPointerException if text is null
   */
  public boolean containsAny(CharSequence text) {
    return !find(text, (literal, start, end) -> false);
  }

  private boolean findCollapsing(CharSequence text, int length, Sink sink) {
    final int[] d = delta;
    final char[] cls = classOf;
    // Start offsets of the last characters fed to the automaton, to recover a match's start
    // when collapsed whitespace made it longer in the text than the literal is.
    int ringSize = Integer.highestOneBit(Math.max(1, maxLength) * 2);
    int[] ring = new int[ringSize];
    int mask = ringSize - 1;
    int fed = 0;
    boolean lastSpace = false;
    int s = 0;
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      // Character.isWhitespace, with ASCII decided inline.
      boolean space = c < 0x80 ? c == ' ' || c >= 0x09 && c <= 0x0D || c >= 0x1C && c <= 0x1F
          : Character.isWhitespace(c);
      if (space && lastSpace) {
        continue;
      }
      lastSpace = space;
      ring[fed & mask] = i;
      fed++;
      int t = d[s + cls[c]];
      if (t < 0) {
        t = ~t;
        if (!reportCollapsed(text, t / alphabet, i + 1, ring, fed, mask, sink)) {
          return false;
        }
      }
      s = t;
    }
    return true;
  }

  private boolean reportCollapsed(CharSequence text, int state, int end, int[] ring, int fed,
      int mask, Sink sink) {
    for (int s = outLiteral[state] >= 0 ? state : outLink[state]; s >= 0; s = outLink[s]) {
      int id = outLiteral[s];
      int start = ring[(fed - lengths[id]) & mask];
      if (accept(text, id, start, end, true) && !sink.onMatch(id, start, end)) {
        return false;
      }
    }
    return true;
  }

  private boolean report(CharSequence text, int state, int end, Sink sink) {
    for (int s = outLiteral[state] >= 0 ? state : outLink[state]; s >= 0; s = outLink[s]) {
      int id = outLiteral[s];
      int start = end - lengths[id];
      if (accept(text, id, start, end, false) && !sink.onMatch(id, start, end)) {
        return false;
      }
    }
    return true;
  }

  private boolean accept(CharSequence text, int id, int start, int end, boolean collapsed) {
    // Like a regex \b: a boundary is required only where the literal's own edge is a word
    // character, so that "<|im_start|>" still matches right after a letter.
    if (wholeWords && ((isWordChar(text, start) && isWordChar(text, start - 1))
        || (isWordChar(text, end - 1) && isWordChar(text, end)))) {
      return false;
    }
    if (exact[id] && (foldCase || collapseWhitespace)) {
      String literal = literals[id];
      if (collapsed && end - start != literal.length()) {
        return false;
      }
      for (int i = 0; i < literal.length(); i++) {
        if (text.charAt(start + i) != literal.charAt(i)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean isWordChar(CharSequence text, int index) {
    if (index < 0 || index >= text.length()) {
      return false;
    }
    char c = text.charAt(index);
    return c == '_' || Character.isLetterOrDigit(c);
  }

  /**
   * Collects every match in {@code text[0, length)} into {@code out}: the same matches, in the
   * same order, as {@link #find} reports, for the built-in detectors, which read a text copied
   * once into an array ({@link ScanText}).
   *
   * @param text the characters
   * @param length how many of them to scan
   * @param out receives the matches; cleared first
   */
  void findAll(char[] text, int length, Matches out) {
    findAll(this, out, null, null, text, length, null);
  }

  /**
   * {@link #findAll(LiteralMatcher, Matches, LiteralMatcher, Matches, char[], int, Buffers)}
   * with working arrays of its own.
   */
  static void findAll(LiteralMatcher a, Matches outA, LiteralMatcher b, Matches outB,
      char[] text, int length) {
    findAll(a, outA, b, outB, text, length, null);
  }

  /**
   * Runs two matchers over one text in a single loop: each keeps its own state and output and
   * reports exactly what {@link #findAll(char[], int, Matches)} would, but the two automata
   * step side by side, so that the processor overlaps the two chains of table look-ups that
   * would otherwise run one after the other. The default input chain reads each text with its
   * secret triggers and its injection phrases at once.
   *
   * @param a the first matcher
   * @param outA receives its matches; cleared first
   * @param b the second matcher, or null for the first alone
   * @param outB receives its matches; cleared first (ignored when b is null)
   * @param text the characters
   * @param length how many of them to scan
   * @param buffers the scan's working arrays, reused from an earlier scan on this thread, or
   *     null for new ones
   */
  static void findAll(LiteralMatcher a, Matches outA, LiteralMatcher b, Matches outB,
      char[] text, int length, Buffers buffers) {
    Buffers buf = buffers == null ? new Buffers() : buffers;
    outA.clear();
    if (b != null) {
      outB.clear();
    }
    if (b == null || b.literals.length == 0) {
      a.scan(text, length, outA, buf);
      return;
    }
    if (a.literals.length == 0) {
      b.scan(text, length, outB, buf);
      return;
    }
    if (a.alphabet > 0x100 || b.alphabet > 0x100) {
      a.scan(text, length, outA, buf);
      b.scan(text, length, outB, buf);
      return;
    }
    if (!a.collapseWhitespace && b.collapseWhitespace) {
      plainAndCollapsing(a, outA, b, outB, text, length, buf);
      return;
    }
    if (a.collapseWhitespace && !b.collapseWhitespace) {
      plainAndCollapsing(b, outB, a, outA, text, length, buf);
      return;
    }
    final int[] da = a.delta;
    final int[] db = b.delta;
    // Both classes of a character from one look-up: a's in the low byte, b's in the high one.
    final char[] classes = a.pairClasses(b);
    final boolean collapseA = a.collapseWhitespace;
    final boolean collapseB = b.collapseWhitespace;
    final int spaceA = a.spaceClass;
    final int spaceB = b.spaceClass;
    int[] ringA = collapseA ? buf.ringA(a.chunkRingSize()) : null;
    int[] ringB = collapseB ? buf.ringB(b.chunkRingSize()) : null;
    int maskA = collapseA ? ringA.length - 1 : 0;
    int maskB = collapseB ? ringB.length - 1 : 0;
    int fedA = 0;
    int fedB = 0;
    boolean lastSpaceA = false;
    boolean lastSpaceB = false;
    int sa = 0;
    int sb = 0;
    for (int i = 0; i < length; i++) {
      char c = text[i];
      int both = classes[c];
      int ka = both & 0xFF;
      boolean stepA = true;
      if (collapseA) {
        boolean space = ka == spaceA && (spaceA != 0 || isSpace(c));
        stepA = !(space && lastSpaceA);
        lastSpaceA = space;
        if (stepA) {
          ringA[fedA++ & maskA] = i;
        }
      }
      if (stepA) {
        int t = da[sa + ka];
        if (t < 0) {
          t = ~t;
          a.collect(text, length, t / a.alphabet, i + 1, ringA, fedA, maskA, outA);
        }
        sa = t;
      }
      int kb = both >>> 8;
      boolean stepB = true;
      if (collapseB) {
        boolean space = kb == spaceB && (spaceB != 0 || isSpace(c));
        stepB = !(space && lastSpaceB);
        lastSpaceB = space;
        if (stepB) {
          ringB[fedB++ & maskB] = i;
        }
      }
      if (stepB) {
        int t = db[sb + kb];
        if (t < 0) {
          t = ~t;
          b.collect(text, length, t / b.alphabet, i + 1, ringB, fedB, maskB, outB);
        }
        sb = t;
      }
    }
  }

  /**
   * Characters per chunk of the array scans: the automata step through a chunk without calling
   * anything (a call in the loop would make the compiler keep the loop's state in memory), note
   * where they reached a state with output, and the matches are collected after the chunk.
   */
  private static final int CHUNK = 512;

  /**
   * {@link #findAll(LiteralMatcher, Matches, LiteralMatcher, Matches, char[], int)} for a
   * matcher that does not collapse whitespace and one that does (the default input chain's
   * secret triggers and injection phrases), with the loop written for that pair.
   */
  private static void plainAndCollapsing(LiteralMatcher a, Matches outA, LiteralMatcher b,
      Matches outB, char[] text, int length, Buffers buf) {
    if (length >= SPLIT) {
      plainAndCollapsingInHalves(a, outA, b, outB, text, length, buf);
      return;
    }
    final int[] da = a.delta;
    final int[] db = b.delta;
    final char[] classes = a.pairClasses(b);
    // Per chunk: (state, end) where each reached output.
    final int[] pendingA = buf.pendingA;
    final int[] pendingB = buf.pendingB;
    final Backtrack starts = new Backtrack();
    int sa = 0;
    int sb = 0;
    for (int from = 0; from < length; from += CHUNK) {
      int to = Math.min(length, from + CHUNK);
      int na = 0;
      int nb = 0;
      for (int i = from; i < to; i++) {
        int both = classes[text[i]];
        int ta = da[sa + (both & 0xFF)];
        if (ta < 0) {
          ta = ~ta;
          pendingA[na] = ta;
          pendingA[na + 1] = i + 1;
          na += 2;
        }
        sa = ta;
        // b steps on every character, the whitespace it skips too, which leaves its state as
        // it is (see the constructor); a match's start is found afterwards, from the text.
        int tb = db[sb + (both >>> 8)];
        if (tb < 0) {
          tb = ~tb;
          pendingB[nb] = tb;
          pendingB[nb + 1] = i + 1;
          nb += 2;
        }
        sb = tb;
      }
      for (int k = 0; k < na; k += 2) {
        a.collect(text, length, pendingA[k] / a.alphabet, pendingA[k + 1], null, 0, 0, outA);
      }
      for (int k = 0; k < nb; k += 2) {
        b.collectBacktracking(text, length, pendingB[k] / b.alphabet, pendingB[k + 1], starts,
            outB);
      }
    }
  }

  /**
   * The length from which {@link #plainAndCollapsing} reads a text as two halves side by side.
   */
  static final int SPLIT = 2 * CHUNK;

  /**
   * {@link #plainAndCollapsing} for a long text: each automaton reads the text's two halves
   * side by side, four independent chains of table look-ups in one loop where there were two,
   * so that the processor overlaps twice as many (each step waits for the one before it in its
   * chain). The second half's automata start from the root far enough before the middle to be
   * in the very state a scan from the start is in there: an automaton's state is the longest
   * suffix of what it was fed that is a prefix of a literal, so it depends only on the last
   * {@code maxLength} characters fed (see {@link #syncStart}). Each match is reported by the
   * half its end falls in; the second half's are collected after the first half's, so that
   * each list stays in order of match end.
   */
  private static void plainAndCollapsingInHalves(LiteralMatcher a, Matches outA,
      LiteralMatcher b, Matches outB, char[] text, int length, Buffers buf) {
    final int[] da = a.delta;
    final int[] db = b.delta;
    final char[] classes = a.pairClasses(b);
    final int[] pendingA = buf.pendingA;
    final int[] pendingB = buf.pendingB;
    final int mid = length >>> 1;
    int sa2 = 0;
    for (int i = a.syncStart(text, mid); i < mid; i++) {
      int t = da[sa2 + (classes[text[i]] & 0xFF)];
      sa2 = t < 0 ? ~t : t;
    }
    int sb2 = 0;
    for (int i = b.syncStart(text, mid); i < mid; i++) {
      int t = db[sb2 + (classes[text[i]] >>> 8)];
      sb2 = t < 0 ? ~t : t;
    }
    final Backtrack starts = new Backtrack();
    // Reassigned before each chunk, which may have grown them; mid is at least one chunk.
    int[] laterA = null;
    int[] laterB = null;
    int nla = 0;
    int nlb = 0;
    int sa = 0;
    int sb = 0;
    for (int from = 0; from < mid; from += CHUNK) {
      int to = Math.min(mid, from + CHUNK);
      laterA = buf.laterA(nla + 2 * CHUNK);
      laterB = buf.laterB(nlb + 2 * CHUNK);
      int na = 0;
      int nb = 0;
      for (int i = from; i < to; i++) {
        int j = i + mid;
        int both = classes[text[i]];
        int both2 = classes[text[j]];
        int ta = da[sa + (both & 0xFF)];
        int ta2 = da[sa2 + (both2 & 0xFF)];
        int tb = db[sb + (both >>> 8)];
        int tb2 = db[sb2 + (both2 >>> 8)];
        if (ta < 0) {
          ta = ~ta;
          pendingA[na] = ta;
          pendingA[na + 1] = i + 1;
          na += 2;
        }
        if (ta2 < 0) {
          ta2 = ~ta2;
          laterA[nla] = ta2;
          laterA[nla + 1] = j + 1;
          nla += 2;
        }
        if (tb < 0) {
          tb = ~tb;
          pendingB[nb] = tb;
          pendingB[nb + 1] = i + 1;
          nb += 2;
        }
        if (tb2 < 0) {
          tb2 = ~tb2;
          laterB[nlb] = tb2;
          laterB[nlb + 1] = j + 1;
          nlb += 2;
        }
        sa = ta;
        sa2 = ta2;
        sb = tb;
        sb2 = tb2;
      }
      for (int k = 0; k < na; k += 2) {
        a.collect(text, length, pendingA[k] / a.alphabet, pendingA[k + 1], null, 0, 0, outA);
      }
      for (int k = 0; k < nb; k += 2) {
        b.collectBacktracking(text, length, pendingB[k] / b.alphabet, pendingB[k + 1], starts,
            outB);
      }
    }
    // An odd length leaves the second half one character longer.
    if (length > 2 * mid) {
      int j = length - 1;
      laterA = buf.laterA(nla + 2);
      laterB = buf.laterB(nlb + 2);
      int both2 = classes[text[j]];
      int ta2 = da[sa2 + (both2 & 0xFF)];
      if (ta2 < 0) {
        ta2 = ~ta2;
        laterA[nla++] = ta2;
        laterA[nla++] = j + 1;
      }
      int tb2 = db[sb2 + (both2 >>> 8)];
      if (tb2 < 0) {
        tb2 = ~tb2;
        laterB[nlb++] = tb2;
        laterB[nlb++] = j + 1;
      }
    }
    for (int k = 0; k < nla; k += 2) {
      a.collect(text, length, laterA[k] / a.alphabet, laterA[k + 1], null, 0, 0, outA);
    }
    for (int k = 0; k < nlb; k += 2) {
      b.collectBacktracking(text, length, laterB[k] / b.alphabet, laterB[k + 1], starts, outB);
    }
    buf.trimLater();
  }

  /**
   * Where an automaton stepped on every character from the root must start so that at {@code
   * p} it is in the state a scan from the text's start is in: {@code maxLength + 1} characters
   * fed before {@code p}, counting a run of whitespace once when this matcher collapses it (the
   * one more covers a start inside such a run, whose first character the full scan fed earlier).
   */
  private int syncStart(char[] text, int p) {
    int need = maxLength + 1;
    int q = p;
    while (q > 0 && need > 0) {
      q--;
      if (!(collapseWhitespace && q > 0 && collapsedSpace(text[q])
          && collapsedSpace(text[q - 1]))) {
        need--;
      }
    }
    return q;
  }

  /**
   * Where runs of whitespace start, remembered between the matches of one collapsing scan, so
   * that finding the starts of matches across a long run of whitespace reads the run once
   * rather than once per match: the last {@value #RUNS} runs of two or more whitespace
   * characters found, as [start, end).
   */
  private static final class Backtrack {
    static final int RUNS = 8;
    final int[] starts = new int[RUNS];
    final int[] ends = {-1, -1, -1, -1, -1, -1, -1, -1};
    int next;

    int startOf(int end) {
      for (int k = 0; k < RUNS; k++) {
        if (ends[k] == end) {
          return starts[k];
        }
      }
      return -1;
    }

    void remember(int start, int end) {
      starts[next] = start;
      ends[next] = end;
      next = (next + 1) % RUNS;
    }
  }

  /** Whether a collapsing scan reads c as whitespace (every whitespace shares one class). */
  private boolean collapsedSpace(char c) {
    return spaceClass != 0 ? classOf[c] == spaceClass : isSpace(c);
  }

  /**
   * {@link #collect} for a collapsing matcher stepped on every character: the start of a match
   * whose literal has n characters is where the n-th character fed to the automaton before
   * {@code end} is, counting back, where a character is fed unless it is whitespace after
   * whitespace.
   */
  private void collectBacktracking(char[] text, int length, int state, int end,
      Backtrack memo, Matches out) {
    for (int s = outLiteral[state] >= 0 ? state : outLink[state]; s >= 0; s = outLink[s]) {
      int id = outLiteral[s];
      int start = fedStart(text, end, lengths[id], memo);
      if (accept(text, length, id, start, end)) {
        out.add(id, start, end);
      }
    }
  }

  private int fedStart(char[] text, int end, int n, Backtrack memo) {
    int p = end - 1;
    int count = 1;
    while (count < n) {
      // p is fed; step to the fed character before it.
      int q = p - 1;
      if (q > 0 && collapsedSpace(text[q]) && collapsedSpace(text[q - 1])) {
        // q ends a run of whitespace whose first character alone was fed.
        int runStart = memo.startOf(q + 1);
        if (runStart < 0) {
          runStart = q - 1;
          while (runStart > 0 && collapsedSpace(text[runStart - 1])) {
            runStart--;
          }
          memo.remember(runStart, q + 1);
        }
        q = runStart;
      }
      p = q;
      count++;
    }
    return p;
  }

  /**
   * The class of every character under this matcher in the low byte and under another in the
   * high byte; both alphabets must have at most 256 classes. Kept for the last matcher asked
   * about.
   */
  private char[] pairClasses(LiteralMatcher other) {
    Object[] cached = pairCache;
    if (cached != null && cached[0] == other) {
      return (char[]) cached[1];
    }
    char[] both = new char[classOf.length];
    for (int c = 0; c < both.length; c++) {
      both[c] = (char) (classOf[c] | other.classOf[c] << 8);
    }
    pairCache = new Object[] {other, both};
    return both;
  }

  /** One matcher's automaton over an array, in chunks (see {@link #CHUNK}). */
  private void scan(char[] text, int length, Matches out, Buffers buf) {
    if (literals.length == 0) {
      return;
    }
    final int[] d = delta;
    final char[] cls = classOf;
    final int space = spaceClass;
    final boolean collapse = collapseWhitespace;
    final int[] ring = collapse ? buf.ringA(chunkRingSize()) : null;
    final int mask = collapse ? ring.length - 1 : 0;
    final int[] pending = buf.pendingB;
    int fed = 0;
    boolean lastSpace = false;
    int s = 0;
    for (int from = 0; from < length; from += CHUNK) {
      int to = Math.min(length, from + CHUNK);
      int n = 0;
      if (!collapse) {
        for (int i = from; i < to; i++) {
          int t = d[s + cls[text[i]]];
          if (t < 0) {
            t = ~t;
            pending[n] = t;
            pending[n + 1] = i + 1;
            n += 3;
          }
          s = t;
        }
      } else {
        for (int i = from; i < to; i++) {
          char c = text[i];
          int k = cls[c];
          boolean isSpace = k == space && (space != 0 || isSpace(c));
          if (isSpace && lastSpace) {
            continue;
          }
          lastSpace = isSpace;
          ring[fed++ & mask] = i;
          int t = d[s + k];
          if (t < 0) {
            t = ~t;
            pending[n] = t;
            pending[n + 1] = i + 1;
            pending[n + 2] = fed;
            n += 3;
          }
          s = t;
        }
      }
      for (int k = 0; k < n; k += 3) {
        collect(text, length, pending[k] / alphabet, pending[k + 1], ring, pending[k + 2], mask,
            out);
      }
    }
  }

  /**
   * A ring of the positions of the last characters fed to the automaton, from which a match's
   * start is read when collapsed whitespace made it longer in the text than the literal is:
   * large enough for a chunk and the longest literal before it.
   */
  private int chunkRingSize() {
    return Integer.highestOneBit((CHUNK + Math.max(1, maxLength)) * 2);
  }

  /**
   * The working arrays of the array scans: what a chunk noted and the rings of positions. A
   * chain keeps one per thread with its scratch state, so that scanning a text allocates
   * nothing; every scan writes each entry before it reads it. Not thread-safe.
   */
  static final class Buffers {
    final int[] pendingA = new int[3 * CHUNK];
    final int[] pendingB = new int[3 * CHUNK];
    /** What a scan in halves noted in the second half, collected after the first. */
    private int[] laterA = new int[2 * CHUNK];
    private int[] laterB = new int[2 * CHUNK];
    private int[] ringA = new int[0];
    private int[] ringB = new int[0];

    /** The second-half array of matcher a, with room for {@code size} entries. */
    int[] laterA(int size) {
      return laterA = room(laterA, size);
    }

    /** The second-half array of matcher b, with room for {@code size} entries. */
    int[] laterB(int size) {
      return laterB = room(laterB, size);
    }

    private static int[] room(int[] array, int size) {
      return array.length >= size ? array : Arrays.copyOf(array, Math.max(size, array.length * 2));
    }

    /** Drops second-half arrays that a text with many matches grew. */
    void trimLater() {
      if (laterA.length > KEEP_LATER) {
        laterA = new int[2 * CHUNK];
      }
      if (laterB.length > KEEP_LATER) {
        laterB = new int[2 * CHUNK];
      }
    }

    private static final int KEEP_LATER = 16 * CHUNK;

    int[] ringA(int size) {
      if (ringA.length != size) {
        ringA = new int[size];
      }
      return ringA;
    }

    int[] ringB(int size) {
      if (ringB.length != size) {
        ringB = new int[size];
      }
      return ringB;
    }
  }


  /** Adds the literals ending at {@code end} in {@code state}, as {@link #report} reports them. */
  void collect(char[] text, int length, int state, int end, int[] ring, int fed,
      int mask, Matches out) {
    for (int s = outLiteral[state] >= 0 ? state : outLink[state]; s >= 0; s = outLink[s]) {
      int id = outLiteral[s];
      int start = ring == null ? end - lengths[id] : ring[(fed - lengths[id]) & mask];
      if (accept(text, length, id, start, end)) {
        out.add(id, start, end);
      }
    }
  }

  private boolean accept(char[] text, int length, int id, int start, int end) {
    if (wholeWords && ((isWordChar(text, length, start) && isWordChar(text, length, start - 1))
        || (isWordChar(text, length, end - 1) && isWordChar(text, length, end)))) {
      return false;
    }
    if (exact[id] && (foldCase || collapseWhitespace)) {
      String literal = literals[id];
      if (collapseWhitespace && end - start != literal.length()) {
        return false;
      }
      for (int i = 0; i < literal.length(); i++) {
        if (text[start + i] != literal.charAt(i)) {
          return false;
        }
      }
    }
    return true;
  }

  private boolean isWordChar(char[] text, int length, int index) {
    if (index < 0 || index >= length) {
      return false;
    }
    char c = text[index];
    return c < 0x80 ? asciiWord[c] : Character.isLetterOrDigit(c);
  }

  /** Character.isWhitespace, with ASCII decided inline. */
  private static boolean isSpace(char c) {
    return c < 0x80 ? c == ' ' || c >= 0x09 && c <= 0x0D || c >= 0x1C && c <= 0x1F
        : Character.isWhitespace(c);
  }

  /**
   * Matches collected by {@link #findAll}: literal index, start and end of each, in the order
   * {@link #find} reports them. Reusable; not thread-safe.
   */
  static final class Matches {
    private int[] data = new int[48];
    private int size;

    void clear() {
      size = 0;
    }

    /** Clears, and lets go of an array grown past {@code maxMatches} matches. */
    void release(int maxMatches) {
      size = 0;
      if (data.length > 3 * maxMatches) {
        data = new int[48];
      }
    }

    /** How many matches the list holds without growing. */
    int capacity() {
      return data.length / 3;
    }

    /** The number of matches. */
    int size() {
      return size;
    }

    /** The literal index of match i. */
    int literal(int i) {
      return data[3 * i];
    }

    /** The start of match i. */
    int start(int i) {
      return data[3 * i + 1];
    }

    /** The end of match i. */
    int end(int i) {
      return data[3 * i + 2];
    }

    void add(int literal, int start, int end) {
      if (3 * size + 3 > data.length) {
        data = Arrays.copyOf(data, data.length * 2);
      }
      data[3 * size] = literal;
      data[3 * size + 1] = start;
      data[3 * size + 2] = end;
      size++;
    }
  }

  private char normalize(char c) {
    if (collapseWhitespace && Character.isWhitespace(c)) {
      return ' ';
    }
    if (foldCase) {
      return Character.toLowerCase(Character.toUpperCase(c));
    }
    return c;
  }

  /** Collects literals and options; not thread-safe. */
  public static final class Builder {
    private final List<String> literals = new ArrayList<>();
    private final List<Boolean> exact = new ArrayList<>();
    private boolean caseInsensitive;
    private boolean collapseWhitespace;
    private boolean wholeWords;

    private Builder() {}

    /**
     * Matches letters regardless of case (per character, {@code toLowerCase(toUpperCase(c))}).
     *
     * @param value true to ignore case
     * @return this builder
     */
    public Builder caseInsensitive(boolean value) {
      this.caseInsensitive = value;
      return this;
    }

    /**
     * Lets a run of whitespace in the text match a single whitespace character of a literal.
     *
     * @param value true to collapse whitespace
     * @return this builder
     */
    public Builder collapseWhitespace(boolean value) {
      this.collapseWhitespace = value;
      return this;
    }

    /**
     * Reports only matches not touching a letter, digit or underscore on either side.
     *
     * @param value true for whole words only
     * @return this builder
     */
    public Builder wholeWords(boolean value) {
      this.wholeWords = value;
      return this;
    }

    /**
     * Adds a literal, matched under the builder's case option.
     *
     * @param literal the literal
     * @return this builder
     * @throws NullPointerException if literal is null
     * @throws IllegalArgumentException if literal is empty
     */
    public Builder add(String literal) {
      return add(literal, false);
    }

    /**
     * Adds a literal that must match with exact case even in a case-insensitive matcher.
     *
     * @param literal the literal
     * @return this builder
     * @throws NullPointerException if literal is null
     * @throws IllegalArgumentException if literal is empty
     */
    public Builder addExact(String literal) {
      return add(literal, true);
    }

    /**
     * Adds several literals.
     *
     * @param values the literals
     * @return this builder
     * @throws NullPointerException if values or a literal is null
     * @throws IllegalArgumentException if a literal is empty
     */
    public Builder addAll(Iterable<String> values) {
      for (String v : values) {
        add(v);
      }
      return this;
    }

    private Builder add(String literal, boolean exactCase) {
      Objects.requireNonNull(literal, "literal");
      if (literal.isEmpty()) {
        throw new IllegalArgumentException("a literal must not be empty");
      }
      literals.add(literal);
      exact.add(exactCase);
      return this;
    }

    /**
     * Compiles the automaton.
     *
     * @return the matcher
     * @throws IllegalArgumentException if the automaton would exceed its memory bound
     */
    public LiteralMatcher build() {
      return new LiteralMatcher(this);
    }
  }
}
