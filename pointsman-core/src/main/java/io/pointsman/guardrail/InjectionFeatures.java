package io.pointsman.guardrail;

import java.nio.charset.StandardCharsets;
import java.text.Normalizer;

/**
 * Turns a text into the hashed features {@link PromptInjectionClassifier} scores and its trainer
 * learns from, one token at a time, in a single pass.
 *
 * <p>Normalisation undoes the usual obfuscations before tokens are formed: zero-width and soft
 * hyphen characters are dropped (they do not split a word), full-width forms and common
 * Cyrillic and Greek look-alikes fold to Latin letters, accents are stripped, letters are
 * lower-cased, digits and {@code @}/{@code $} inside a word that also has letters read as the
 * letters they imitate ({@code 1gn0r3} is {@code ignore}), single letters separated by one blank,
 * dot, dash, underscore or asterisk are joined ({@code i g n o r e} is {@code ignore}), a word
 * or a phrase of up to four tokens repeated back to back is read once, and a run
 * of 20 or more base64 characters that decodes to printable text is tokenised a second time,
 * decoded (a run of hexadecimal digits only, of even length, decoded as hex).
 *
 * <p>Tokens: words (letters and digits of any alphabetic script), each Han, kana, Hangul or Thai
 * character on its own, the structural characters {@code < > / [ ] # |} and line breaks. Each
 * token yields five features, hashed into {@link #BUCKETS} buckets: the token, the token with
 * the one before it, the token with the two before it, the token's stem, and the stem with the
 * stem before it. A word's stem is its first {@value #STEM} letters (a word of at most that many
 * letters is its own stem, less a plural {@code s}), so that inflections and cognates share a
 * feature: {@code instructions}, {@code instruction}, {@code instrucciones} and {@code
 * instruktioner} have the stem {@code instr}. Other tokens are their own stem.
 *
 * <p>Linear in the text's length: each character is read once, plus once more inside a
 * decoded base64 run. Not thread-safe: one instance per scan.
 */
final class InjectionFeatures {
  /** The number of hash buckets (weights) features map to. */
  static final int BUCKETS = 1 << 16;
  /**
   * The bucket a concept feature takes when the token has none: one past the hashed ones, its
   * weight always zero.
   */
  static final int NONE = BUCKETS;
  /** Tokens back within which an earlier concept pairs with a token's concept. */
  static final int CONCEPT_REACH = 10;

  private static final int MASK = BUCKETS - 1;
  private static final int MAX_WORD = 48;
  /** Letters in a word's stem. */
  static final int STEM = 5;
  private static final int NEWLINE = 0x4e4c;
  private static final char[] FOLD = new char[0x530];

  static {
    for (char c = 0; c < FOLD.length; c++) {
      char f = c;
      if (c >= 0xC0 && c < 0x250) {
        String d = Normalizer.normalize(String.valueOf(c), Normalizer.Form.NFD);
        if (d.length() > 0 && d.charAt(0) < 0x80) {
          f = d.charAt(0);
        }
      }
      FOLD[c] = Character.toLowerCase(f);
    }
    FOLD[0xDF] = 's';
    String cyrillic = "аaвbеeкkмmнhоoрpсcтtуyхxіiјjѕsԁdɡgӏl";
    for (int i = 0; i < cyrillic.length(); i += 2) {
      char c = cyrillic.charAt(i);
      FOLD[c] = cyrillic.charAt(i + 1);
      char upper = Character.toUpperCase(c);
      if (upper < FOLD.length) {
        FOLD[upper] = cyrillic.charAt(i + 1);
      }
    }
    String greek = "αaβbεeιiκkνvοoρpτtυuχxζzηnμm";
    for (int i = 0; i < greek.length(); i += 2) {
      char c = greek.charAt(i);
      FOLD[c] = greek.charAt(i + 1);
      char upper = Character.toUpperCase(c);
      if (upper < FOLD.length) {
        FOLD[upper] = greek.charAt(i + 1);
      }
    }
  }

  private static final byte A_OTHER = 0;
  private static final byte A_LETTER = 1;
  private static final byte A_DIGIT = 2;
  /** {@code +}, {@code /}, {@code =}: base64 characters that are no word characters. */
  private static final byte A_BASE64 = 3;
  /** {@code /}: a base64 character and a structural token. */
  private static final byte A_SLASH = 4;
  private static final byte A_STRUCT = 5;
  private static final byte A_NEWLINE = 6;
  /** {@code @} and {@code $}: part of a word already started, else a separator. */
  private static final byte A_LEET = 7;
  /** Any character from U+0080 on. */
  private static final byte A_NON_ASCII = 8;
  private static final byte[] ASCII_KIND = new byte[0x80];
  /** The shortest run of base64 characters that is decoded. */
  private static final int MIN_BASE64 = 20;

  static {
    for (char c = 0; c < 0x80; c++) {
      byte k = A_OTHER;
      if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
        k = A_LETTER;
      } else if (c >= '0' && c <= '9') {
        k = A_DIGIT;
      } else if (c == '/') {
        k = A_SLASH;
      } else if (c == '<' || c == '>' || c == '[' || c == ']' || c == '#' || c == '|') {
        k = A_STRUCT;
      } else if (c == '\n') {
        k = A_NEWLINE;
      } else if (c == '@' || c == '$') {
        k = A_LEET;
      } else if (c == '+' || c == '=') {
        k = A_BASE64;
      }
      ASCII_KIND[c] = k;
    }
  }

  /** Receives each token's features and the span of text it came from. */
  interface Sink {
    /**
     * One token.
     *
     * @param unigram the bucket of the token
     * @param bigram the bucket of the token with the one before it
     * @param trigram the bucket of the token with the two before it
     * @param stem the bucket of the token's stem
     * @param stemBigram the bucket of the stem with the stem before it
     * @param start where the token starts in the scanned text
     * @param end where it ends
     */
    void token(int unigram, int bigram, int trigram, int stem, int stemBigram, int concept,
        int conceptPair, int conceptSkip, int start, int end);
  }

  /** Receives each token's raw hashes, before any feature is formed (for the lexicon). */
  interface RawSink {
    /**
     * One token.
     *
     * @param token the token's hash
     * @param stem its stem's hash
     */
    void raw(int token, int stem);
  }

  private static final int FNV_OFFSET = 0x811C9DC5;
  private static final int FNV_PRIME = 0x01000193;

  private final Sink sink;
  private final char[] word = new char[MAX_WORD];
  private int wordLen;
  /**
   * FNV-1a of the word's characters so far, of its first {@value #STEM} and of all but its
   * last, kept as characters are appended (see {@link #endWord}).
   */
  private int wordHash = FNV_OFFSET;
  private int wordPrefix = FNV_OFFSET;
  private int wordBefore = FNV_OFFSET;
  private int wordStart;
  private int wordEnd;
  private boolean wordHasLetter;
  private boolean wordHasLeet;
  private final char[] spelled = new char[MAX_WORD];
  private final int[] spelledStart = new int[MAX_WORD];
  private int spelledLen;
  private int spelledEnd;
  private int gap;
  private int prev1;
  private int prev2;
  private int prevStem;
  /**
   * The last tokens read (emitted or not), for {@link #repeats}: the token k back is at {@code
   * history[(seen - k) & 7]}.
   */
  private final int[] history = new int[8];
  private int seen;
  /** While tokenising decoded base64: where the run starts in the scanned text, else -1. */
  private int decodedAt = -1;
  private final InjectionConcepts lexicon;
  private final RawSink rawSink;
  /** Whether the token before this one starts a two-token lexicon entry. */
  private boolean pairOpen;
  private int tokens;
  /** The last two distinct concepts seen and the token index each was last seen at. */
  private int lastConcept;
  private int lastConceptAt;
  private int olderConcept;
  private int olderConceptAt;

  /** Features with the default concept lexicon. */
  InjectionFeatures(Sink sink) {
    this(sink, InjectionConcepts.DEFAULT);
  }

  /** Features with a concept lexicon, or none ({@code null}: the concept features are NONE). */
  InjectionFeatures(Sink sink, InjectionConcepts lexicon) {
    this.sink = sink;
    this.lexicon = lexicon;
    this.rawSink = null;
  }

  private InjectionFeatures(RawSink rawSink) {
    this.sink = null;
    this.lexicon = null;
    this.rawSink = rawSink;
  }

  /** A tokeniser that reports raw token hashes only (the lexicon is built with it). */
  static InjectionFeatures raw(RawSink rawSink) {
    return new InjectionFeatures(rawSink);
  }

  /** Tokenises a whole text, reporting spans relative to it. */
  void accept(CharSequence text) {
    char[] chars = new char[text.length()];
    if (text instanceof String s) {
      s.getChars(0, chars.length, chars, 0);
    } else {
      for (int i = 0; i < chars.length; i++) {
        chars[i] = text.charAt(i);
      }
    }
    accept(chars, chars.length);
  }

  /** Tokenises {@code text[0, length)}, reporting spans relative to it. */
  void accept(char[] text, int length) {
    process(text, 0, length, true);
  }

  /**
   * Tokenises {@code text[from, to)}. The common characters (ASCII letters, digits, blanks and
   * punctuation) are decided here; the others in {@link #other}, which keeps this loop small
   * enough for the compiler to keep whole.
   */
  private void process(char[] text, int from, int to, boolean decodeBase64) {
    int b64Start = -1;
    for (int i = from; i < to; i++) {
      char raw = text[i];
      byte kind = raw < 0x80 ? ASCII_KIND[raw] : A_NON_ASCII;
      if (decodeBase64) {
        // Non-ASCII characters are no base64 characters.
        boolean b64 = kind >= A_LETTER && kind <= A_SLASH;
        if (b64 && b64Start < 0) {
          b64Start = i;
        } else if (!b64 && b64Start >= 0) {
          if (i - b64Start >= MIN_BASE64) {
            base64Run(text, b64Start, i);
          }
          b64Start = -1;
        }
      }
      if (kind == A_LETTER || kind == A_DIGIT) {
        i = asciiWord(text, i, to, decodedAt < 0 ? i : decodedAt) - 1;
      } else if (kind == A_OTHER || kind == A_BASE64) {
        endWord();
        gap++;
      } else {
        other(raw, kind, decodedAt < 0 ? i : decodedAt);
      }
    }
    if (decodeBase64 && b64Start >= 0 && to - b64Start >= MIN_BASE64) {
      base64Run(text, b64Start, to);
    }
  }

  /** Every character but ASCII letters, digits and separators; {@code at} is its position. */
  private void other(char raw, byte kind, int at) {
    switch (kind) {
      case A_SLASH, A_STRUCT -> {
        endWord();
        if (!(prev1 == raw && gap == 0 && spelledLen == 0)) {
          emit(raw, at, at + 1);
        }
        return;
      }
      case A_NEWLINE -> {
        endWord();
        newline(at);
        return;
      }
      case A_LEET -> {
        if (wordLen > 0) {
          appendWord(raw, at, false, true);
        } else {
          endWord();
          gap++;
        }
        return;
      }
      default -> { }
    }
    if (raw == 0x200B || raw == 0x200C || raw == 0x200D || raw == 0x2060 || raw == 0xFEFF
        || raw == 0xAD || raw == 0x200E || raw == 0x200F) {
      return;
    }
    char c = raw;
    if (c >= 0xFF01 && c <= 0xFF5E) {
      c = (char) (c - 0xFEE0);
    }
    c = c < FOLD.length ? FOLD[c] : Character.toLowerCase(c);
    if ((c >= 'a' && c <= 'z') || Character.isLetter(c) && !isIdeographic(c)) {
      appendWord(c, at, true, false);
    } else if (c >= '0' && c <= '9') {
      appendWord(c, at, false, true);
    } else if ((c == '@' || c == '$') && wordLen > 0) {
      appendWord(c, at, false, true);
    } else if (isIdeographic(c)) {
      endWord();
      emit(c, at, at + 1);
    } else if (c == '<' || c == '>' || c == '/' || c == '[' || c == ']' || c == '#'
        || c == '|') {
      endWord();
      // A run of one structural character ("[[[[", "####") is one token.
      if (!(prev1 == c && gap == 0 && spelledLen == 0)) {
        emit(c, at, at + 1);
      }
    } else if (c == '\n') {
      endWord();
      newline(at);
    } else {
      endWord();
      gap++;
    }
  }

  /**
   * Appends the run of ASCII letters and digits at {@code i} to the word, exactly as {@link
   * #appendWord} would one character at a time, and returns where the run ends. Every character
   * of the run is a base64 character, so the caller's base64 run goes on through it.
   */
  private int asciiWord(char[] text, int i, int to, int at) {
    int len = wordLen;
    int hash = wordHash;
    int prefix = wordPrefix;
    int before = wordBefore;
    boolean letter = wordHasLetter;
    boolean leet = wordHasLeet;
    if (len == 0) {
      wordStart = at;
    }
    char[] w = word;
    int j = i;
    while (true) {
      char c = text[j];
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z') {
        c |= 0x20;
        letter = true;
      } else if (c >= '0' && c <= '9') {
        leet = true;
      } else {
        break;
      }
      if (len < MAX_WORD) {
        w[len] = c;
        if (len == STEM) {
          prefix = hash;
        }
        before = hash;
        hash = (hash ^ c) * FNV_PRIME;
        len++;
      }
      if (++j == to) {
        break;
      }
    }
    wordLen = len;
    wordHash = hash;
    wordPrefix = prefix;
    wordBefore = before;
    wordHasLetter = letter;
    wordHasLeet = leet;
    wordEnd = (decodedAt < 0 ? j - 1 : decodedAt) + 1;
    return j;
  }

  /** Ends the text: flushes the last word. Call once after {@link #accept}. */
  void finish() {
    endWord();
    flushSpelled();
  }

  private static boolean isIdeographic(char c) {
    return (c >= 0x3040 && c <= 0x30FF) || (c >= 0x3400 && c <= 0x9FFF)
        || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0x0E00 && c <= 0x0E7F)
        || (c >= 0xF900 && c <= 0xFAFF);
  }

  private void appendWord(char c, int at, boolean letter, boolean leet) {
    if (wordLen == 0) {
      wordStart = at;
    }
    if (wordLen < MAX_WORD) {
      if (wordLen == STEM) {
        wordPrefix = wordHash;
      }
      wordBefore = wordHash;
      wordHash = (wordHash ^ c) * FNV_PRIME;
      word[wordLen++] = c;
    }
    wordEnd = at + 1;
    wordHasLetter |= letter;
    wordHasLeet |= leet;
  }

  /**
   * Ends the word being read, if any: emits it as a token unless it repeats. A word of two or
   * more characters with no letters spelled out before it, the common case, is decided here;
   * the others in {@link #endWordSlow}.
   */
  private void endWord() {
    int n = wordLen;
    if (n == 0) {
      return;
    }
    if (n == 1 || spelledLen > 0 || wordHasLetter && wordHasLeet) {
      endWordSlow();
      return;
    }
    wordLen = 0;
    wordHasLetter = false;
    wordHasLeet = false;
    int token = wordHash;
    int stem = n > STEM ? wordPrefix : n > 3 && word[n - 1] == 's' ? wordBefore : token;
    wordHash = FNV_OFFSET;
    wordPrefix = FNV_OFFSET;
    wordBefore = FNV_OFFSET;
    // A word repeated back to back ("hello hello hello") is one token, and a phrase of two to
    // four tokens repeated back to back ("hello world hello world") is read once: repetition is
    // no evidence, and it would otherwise add up over a window.
    boolean again = repeats(token);
    if (token == prev1 || again) {
      gap = 0;
      return;
    }
    emitRaw(token, stem, wordStart, wordEnd);
  }

  /**
   * {@link #endWord} for a single character, a word after letters spelled out one by one
   * ({@code i g n o r e}), or digits in a word of letters, which read as the letters they
   * imitate.
   */
  private void endWordSlow() {
    int n = wordLen;
    wordLen = 0;
    // The word's hash and its stem's: FNV-1a after STEM letters is the stem's hash, after n - 1
    // letters the hash of the word less its last letter.
    int token = wordHash;
    int prefix = wordPrefix;
    int before = wordBefore;
    wordHash = FNV_OFFSET;
    wordPrefix = FNV_OFFSET;
    wordBefore = FNV_OFFSET;
    if (wordHasLetter && wordHasLeet) {
      token = FNV_OFFSET;
      for (int i = 0; i < n; i++) {
        word[i] = unleet(word[i]);
        if (i == STEM) {
          prefix = token;
        }
        before = token;
        token = (token ^ word[i]) * FNV_PRIME;
      }
    }
    wordHasLetter = false;
    wordHasLeet = false;
    boolean single = n == 1 && word[0] >= 'a' && word[0] <= 'z';
    if (single && (spelledLen == 0 || gap == 1 && spelledLen < MAX_WORD)) {
      spelledStart[spelledLen] = wordStart;
      spelled[spelledLen++] = word[0];
      spelledEnd = wordEnd;
      gap = 0;
      return;
    }
    flushSpelled();
    if (single) {
      spelledStart[0] = wordStart;
      spelled[0] = word[0];
      spelledLen = 1;
      spelledEnd = wordEnd;
      gap = 0;
      return;
    }
    int stem = n > STEM ? prefix : n > 3 && word[n - 1] == 's' ? before : token;
    boolean again = repeats(token);
    if ((token == prev1 || again) && spelledLen == 0) {
      gap = 0;
      return;
    }
    flushSpelled();
    emitRaw(token, stem, wordStart, wordEnd);
  }

  private void flushSpelled() {
    int n = spelledLen;
    if (n == 0) {
      return;
    }
    spelledLen = 0;
    if (n >= 3) {
      int token = hash(spelled, n);
      note(token);
      emitRaw(token, stem(spelled, n, token), spelledStart[0], spelledEnd);
    } else {
      for (int i = 0; i < n; i++) {
        int token = hash(spelled, i, 1);
        note(token);
        emitRaw(token, token, spelledStart[i], spelledStart[i] + 1);
      }
    }
  }

  private static final char[] UNLEET = new char[0x80];

  static {
    for (char c = 0; c < 0x80; c++) {
      UNLEET[c] = unleetSlow(c);
    }
  }

  private static char unleet(char c) {
    return c < 0x80 ? UNLEET[c] : c;
  }

  private static char unleetSlow(char c) {
    return switch (c) {
      case '0' -> 'o';
      case '1' -> 'i';
      case '3' -> 'e';
      case '4', '@' -> 'a';
      case '5', '$' -> 's';
      case '7' -> 't';
      case '8' -> 'b';
      default -> c;
    };
  }

  private void emit(int token, int start, int end) {
    flushSpelled();
    note(token);
    emitRaw(token, token, start, end);
  }

  /** A line break; one that continues a repeated phrase (see {@link #repeats}) is skipped. */
  private void newline(int at) {
    if (repeats(NEWLINE) && spelledLen == 0) {
      return;
    }
    flushSpelled();
    emitRaw(NEWLINE, NEWLINE, at, at + 1);
  }

  /** Records a token read without asking whether it repeats. */
  private void note(int token) {
    history[seen & 7] = token;
    seen++;
  }

  /**
   * Records a token read and says whether it continues a phrase of two to four tokens that the
   * text repeats back to back ({@code a b a b}: the second {@code b} and everything after it
   * that keeps the cycle).
   */
  private boolean repeats(int token) {
    int[] h = history;
    int n = seen;
    int h1 = h[(n - 1) & 7];
    int h2 = h[(n - 2) & 7];
    int h3 = h[(n - 3) & 7];
    boolean cycle = n >= 3 && token == h2 && h1 == h3
        || n >= 5 && token == h3 && h1 == h[(n - 4) & 7] && h2 == h[(n - 5) & 7]
        || n >= 7 && token == h[(n - 4) & 7] && h1 == h[(n - 5) & 7] && h2 == h[(n - 6) & 7]
            && h3 == h[(n - 7) & 7];
    note(token);
    return cycle;
  }

  private void emitRaw(int token, int stem, int start, int end) {
    gap = 0;
    if (rawSink != null) {
      rawSink.raw(token, stem);
      prev2 = prev1;
      prev1 = token;
      prevStem = stem;
      return;
    }
    int cu = NONE;
    int cp = NONE;
    int cs = NONE;
    if (lexicon != null) {
      // One bit test decides for most tokens: every word and stem entry and the first token of
      // every pair set their stem's bit, so a token whose bit is clear starts no pair and has
      // no concept, unless it ends a pair the token before it started.
      if (pairOpen || lexicon.mayHold(stem)) {
        long c = concepts(token, stem);
        cu = (int) c & 0xFFFFF;
        cp = (int) (c >>> 20) & 0xFFFFF;
        cs = (int) (c >>> 40);
      } else {
        pairOpen = false;
      }
    }
    tokens++;
    int uni = mix(token * 0x9E3779B1 + 1);
    int bi = mix(prev1 * 0x85EBCA6B + token * 0x9E3779B1 + 2);
    int tri = mix(prev2 * 0xC2B2AE35 + prev1 * 0x85EBCA6B + token * 0x9E3779B1 + 3);
    int st = mix(stem * 0x9E3779B1 + 4);
    int stBi = mix(prevStem * 0x85EBCA6B + stem * 0x9E3779B1 + 5);
    prev2 = prev1;
    prev1 = token;
    prevStem = stem;
    sink.token(uni & MASK, bi & MASK, tri & MASK, st & MASK, stBi & MASK, cu, cp, cs, start,
        end);
  }

  /**
   * The concept features of a token that may be in the lexicon, packed as {@code unigram |
   * pair << 20 | skip << 40} (each {@link #NONE} when absent), and the pair and recency state
   * moved on.
   */
  private long concepts(int token, int stem) {
    int concept = lexicon.concept(token, stem, prev1, pairOpen);
    pairOpen = lexicon.startsPair(token);
    if (concept == 0) {
      return NONE | (long) NONE << 20 | (long) NONE << 40;
    }
    int cu = mix(concept * 0x9E3779B1 + 6) & MASK;
    int cp = NONE;
    int cs = NONE;
    if (concept == lastConcept) {
      if (olderConcept != 0 && tokens - olderConceptAt <= CONCEPT_REACH) {
        cp = mix(olderConcept * 0x85EBCA6B + concept * 0x9E3779B1 + 7) & MASK;
      }
      lastConceptAt = tokens;
    } else {
      if (lastConcept != 0 && tokens - lastConceptAt <= CONCEPT_REACH) {
        cp = mix(lastConcept * 0x85EBCA6B + concept * 0x9E3779B1 + 7) & MASK;
      }
      if (olderConcept != 0 && tokens - olderConceptAt <= CONCEPT_REACH) {
        cs = mix(olderConcept * 0xC2B2AE35 + concept * 0x9E3779B1 + 8) & MASK;
      }
      olderConcept = lastConcept;
      olderConceptAt = lastConceptAt;
      lastConcept = concept;
      lastConceptAt = tokens;
    }
    return cu | (long) cp << 20 | (long) cs << 40;
  }

  /** The hash of a word's stem (see the class comment); {@code token} is the whole word's. */
  private static int stem(char[] chars, int n, int token) {
    if (n > STEM) {
      return hash(chars, 0, STEM);
    }
    if (n > 3 && chars[n - 1] == 's') {
      return hash(chars, 0, n - 1);
    }
    return token;
  }

  private static int hash(char[] chars, int n) {
    return hash(chars, 0, n);
  }

  private static int hash(char[] chars, int from, int n) {
    int h = FNV_OFFSET;
    for (int i = from; i < from + n; i++) {
      h = (h ^ chars[i]) * FNV_PRIME;
    }
    return h;
  }

  private static int mix(int x) {
    // Written to stay under the compiler's 35-byte limit for inlining at every call site even
    // when the constant pool has outgrown one-byte indexes (ldc_w).
    x = (x ^ (x >>> 16)) * 0x7FEB352D;
    x = (x ^ (x >>> 15)) * 0x846CA68B;
    return x ^ (x >>> 16);
  }

  /**
   * Tokenises a base64 run's decoded text too, when it is printable; spans point at the run. A
   * run of hexadecimal digits only, of even length, is read as hex first.
   */
  private void base64Run(char[] text, int start, int end) {
    int n = end - start;
    if (n < MIN_BASE64 || decodedAt >= 0) {
      return;
    }
    if (n % 2 == 0 && hexRun(text, start, end)) {
      return;
    }
    int padded = n;
    while (padded > 0 && text[start + padded - 1] == '=') {
      padded--;
    }
    int len = padded - padded % 4 == padded ? padded : padded - padded % 4;
    if (len < 16) {
      return;
    }
    byte[] out = new byte[len / 4 * 3];
    int o = 0;
    int printable = 0;
    for (int i = 0; i < len; i += 4) {
      int v = 0;
      for (int k = 0; k < 4; k++) {
        int d = base64Value(text[start + i + k]);
        if (d < 0) {
          return;
        }
        v = v << 6 | d;
      }
      for (int k = 2; k >= 0; k--) {
        byte b = (byte) (v >> (8 * k));
        out[o++] = b;
        if (b >= 0x20 && b < 0x7F || b == '\n' || b == '\t' || b < 0) {
          printable++;
        }
      }
      // Binary data is recognised within its first 48 bytes, so a large image costs little.
      if (o >= 48 && printable < o * 0.9) {
        return;
      }
    }
    if (printable < o * 0.9) {
      return;
    }
    decodeAndTokenise(out, o, start);
  }

  /**
   * Decodes a run of hexadecimal digits, when it is one, and tokenises the text when at least 90%
   * of its bytes are printable and 70% letters or blanks; returns whether it did (else the run is
   * tried as base64).
   */
  private boolean hexRun(char[] text, int start, int end) {
    byte[] out = new byte[(end - start) / 2];
    int printable = 0;
    int words = 0;
    for (int i = 0; i < out.length; i++) {
      int hi = Character.digit(text[start + 2 * i], 16);
      int lo = Character.digit(text[start + 2 * i + 1], 16);
      if (hi < 0 || lo < 0) {
        return false;
      }
      int b = hi << 4 | lo;
      out[i] = (byte) b;
      if (b >= 0x20 && b < 0x7F || b == '\n' || b == '\t' || b >= 0x80) {
        printable++;
      }
      if (b == ' ' || (b | 0x20) >= 'a' && (b | 0x20) <= 'z') {
        words++;
      }
    }
    // Text, not digits that happen to be hex (account numbers, ids): mostly letters and blanks.
    if (printable >= out.length * 0.9 && words >= out.length * 0.7) {
      decodeAndTokenise(out, out.length, start);
      return true;
    }
    return false;
  }

  private void decodeAndTokenise(byte[] out, int o, int at) {
    endWord();
    flushSpelled();
    char[] decoded = new String(out, 0, o, StandardCharsets.UTF_8).toCharArray();
    decodedAt = at;
    process(decoded, 0, decoded.length, false);
    endWord();
    flushSpelled();
    decodedAt = -1;
  }

  private static int base64Value(char c) {
    if (c >= 'A' && c <= 'Z') {
      return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
      return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
      return c - '0' + 52;
    }
    if (c == '+' || c == '-') {
      return 62;
    }
    if (c == '/' || c == '_') {
      return 63;
    }
    return -1;
  }
}
