package io.pointsman.guardrail;

import io.pointsman.model.Role;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * A learned prompt-injection detector: logistic regression over hashed word uni-, bi- and
 * trigrams, word-stem uni- and bigrams, and concepts (words that cancel, replace, reveal or send
 * instructions, in many languages, and pairs of such concepts near each other) of normalised
 * text (see the normalisation below), scored over sliding windows of
 * {@value #WINDOW} tokens so that one injected sentence inside a long document counts as much as
 * a short prompt does. The score is the highest window's log-odds.
 *
 * <p>Two thresholds, both chosen on the tuning part of the committed corpus by the committed
 * trainer: at or above {@link #blockThreshold()} the detector reports {@value #RULE} (high
 * confidence; the default input chain blocks it); at or above {@link #flagThreshold()} it
 * reports {@value #SUSPECTED} (the default chain flags it to the listener and lets the request
 * through). The finding's span is the highest-scoring window.
 *
 * <p>Before tokens are formed, the text is normalised against the usual obfuscations:
 * zero-width characters are dropped, full-width forms and Cyrillic or Greek look-alikes fold to
 * Latin letters, accents are stripped, leetspeak digits inside words read as letters, spaced-out
 * letters are joined, and printable base64 and hex are decoded and read too. A text that asks to
 * be read in ROT13 or backwards (one of the words {@code rot13}, {@code caesar}, {@code
 * reverse}, {@code reversed}, {@code reversing}, {@code backward}, {@code backwards}) is scored
 * decoded that way too, and the higher score counts. Han, kana and Hangul characters are
 * tokens of their own, so Chinese, Japanese and Korean text is scored by character n-grams. Role markers ({@code </user><system>}, {@code [INST]}, {@code ### system})
 * are tokens and n-grams like any other.
 *
 * <p>The model (about {@value InjectionFeatures#BUCKETS} weights) is the resource {@code
 * io/pointsman/guardrail/injection-model.txt}; {@code docs/guardrails.md} says how it is
 * trained and what it scores on held-out data. It looks at user and tool messages (and JSON
 * fields), not at system or developer messages, which are the host's own.
 *
 * <p>Immutable and thread-safe; linear in the text's length. It reads the text from one copy of
 * its characters (in a chain, the copy all built-in detectors share) and allocates nothing else
 * that grows with it, but for one decoded copy of a text that asks for ROT13 or reading
 * backwards.
 *
 * <pre>{@code
 * PromptInjectionClassifier stricter = PromptInjectionClassifier.ofDefaults()
 *     .withThresholds(2.0, 0.0);
 * }</pre>
 */
public final class PromptInjectionClassifier implements Detector {
  /** The rule reported at or above the block threshold. */
  public static final String RULE = "injection.classifier";
  /** The rule reported at or above the flag threshold and below the block threshold. */
  public static final String SUSPECTED = "injection.suspected";
  /** Tokens per scoring window. */
  public static final int WINDOW = 32;

  static final String RESOURCE = "/io/pointsman/guardrail/injection-model.txt";

  /** Weights in thousandths, as the model file stores them: 128 KiB, exact integer sums. */
  private final short[] weights;
  private final float bias;
  private final double block;
  private final double flag;

  private PromptInjectionClassifier(short[] weights, float bias, double block, double flag) {
    this.weights = weights;
    this.bias = bias;
    this.block = block;
    this.flag = flag;
  }

  private static final class Default {
    static final PromptInjectionClassifier INSTANCE = load();

    private static PromptInjectionClassifier load() {
      try (InputStream in = PromptInjectionClassifier.class.getResourceAsStream(RESOURCE)) {
        if (in == null) {
          throw new IllegalStateException("missing resource " + RESOURCE);
        }
        return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + RESOURCE, e);
      }
    }
  }

  /**
   * Returns the classifier with the committed model and thresholds.
   *
   * @return the shared instance
   * @throws IllegalStateException if the model resource is missing or malformed
   */
  public static PromptInjectionClassifier ofDefaults() {
    return Default.INSTANCE;
  }

  /**
   * Returns this model with other thresholds.
   *
   * @param blockAt the score at or above which {@value #RULE} is reported
   * @param flagAt the score at or above which {@value #SUSPECTED} is reported, below blockAt
   * @return a classifier sharing this one's weights
   * @throws IllegalArgumentException if flagAt is above blockAt or a value is not finite
   */
  public PromptInjectionClassifier withThresholds(double blockAt, double flagAt) {
    if (!Double.isFinite(blockAt) || !Double.isFinite(flagAt) || flagAt > blockAt) {
      throw new IllegalArgumentException("need finite thresholds with flag <= block, got block "
          + blockAt + ", flag " + flagAt);
    }
    return new PromptInjectionClassifier(weights, bias, blockAt, flagAt);
  }

  /**
   * Returns the score at or above which {@value #RULE} is reported.
   *
   * @return the block threshold, in log-odds
   */
  public double blockThreshold() {
    return block;
  }

  /**
   * Returns the score at or above which {@value #SUSPECTED} is reported.
   *
   * @return the flag threshold, in log-odds
   */
  public double flagThreshold() {
    return flag;
  }

  /**
   * Scores a text: the log-odds of its most suspicious window of tokens.
   *
   * @param text the text
   * @return the score; the model's bias for a text without tokens
   */
  public double score(CharSequence text) {
    return score(ScanText.of(text));
  }

  /** {@link #score(CharSequence)} over a text the chain copied once for its detectors. */
  double score(ScanText t) {
    return scored(t).best;
  }

  /** The text's scan, or the better of it and the decodings its words ask for. */
  private Scorer scored(ScanText t) {
    Scorer s = new Scorer(t.chars, t.length);
    return s.cues == 0 ? s : decoded(t, s, s.cues);
  }

  /** Bits of {@code Scorer.cues}. */
  private static final int ROT13 = 1;
  private static final int REVERSED = 2;

  /**
   * The better of a text's own scan {@code s} and the scan of the decodings it asks for (ROT13,
   * backwards), the span given in the text's own positions. Kept apart from the common path,
   * which stays one scan.
   */
  private Scorer decoded(ScanText text, Scorer s, int cues) {
    char[] t = text.chars;
    int n = text.length;
    if ((cues & ROT13) != 0) {
      char[] r = new char[n];
      for (int i = 0; i < n; i++) {
        char c = t[i];
        char lower = (char) (c | 0x20);
        r[i] = lower >= 'a' && lower <= 'z' ? (char) (c + (lower <= 'm' ? 13 : -13)) : c;
      }
      Scorer d = new Scorer(r, n);
      if (d.best > s.best) {
        s = d;
      }
    }
    if ((cues & REVERSED) != 0) {
      char[] r = new StringBuilder(n).append(t, 0, n).reverse().toString().toCharArray();
      Scorer d = new Scorer(r, r.length);
      if (d.best > s.best) {
        int start = n - d.bestEnd;
        d.bestEnd = n - d.bestStart;
        d.bestStart = start;
        s = d;
      }
    }
    return s;
  }

  /** Cue words that ask for ROT13 or for reading backwards. */
  private static final String[] ROT13_CUES = {"rot13", "caesar"};
  private static final String[] REVERSED_CUES = {"reverse", "reversed", "reversing",
      "backward", "backwards"};
  /** The unigram buckets of each kind's cue words, as the tokeniser forms them, one bit each. */
  private static final long[] ROT13_BITS = cueBits(ROT13_CUES);
  private static final long[] REVERSED_BITS = cueBits(REVERSED_CUES);

  private static long[] cueBits(String[] words) {
    long[] bits = new long[InjectionFeatures.BUCKETS / 64 + 1];
    for (String w : words) {
      int[] first = {-1};
      InjectionFeatures f = new InjectionFeatures((u, b, t, st, sb, cu, cp, cs, from, to) -> {
        if (first[0] < 0) {
          first[0] = u;
        }
      });
      f.accept(w.toCharArray(), w.length());
      f.finish();
      bits[first[0] >>> 6] |= 1L << first[0];
    }
    return bits;
  }

  @Override
  public String family() {
    return "injection";
  }

  @Override
  public boolean appliesTo(Role role) {
    return role != Role.SYSTEM && role != Role.DEVELOPER;
  }

  @Override
  public void scan(CharSequence text, List<Finding> out) {
    Objects.requireNonNull(out, "out");
    scan(ScanText.of(text), out);
  }

  /** {@link #scan(CharSequence, List)} over a text the chain copied once for its detectors. */
  void scan(ScanText text, List<Finding> out) {
    Scorer s = scored(text);
    if (s.bestEnd <= s.bestStart) {
      return;
    }
    if (s.best >= block) {
      out.add(new Finding(RULE, s.bestStart, s.bestEnd));
    } else if (s.best >= flag) {
      out.add(new Finding(SUSPECTED, s.bestStart, s.bestEnd));
    }
  }

  /** One scan: window sums over the tokens as they come. */
  private final class Scorer implements InjectionFeatures.Sink {
    private final int[] ring = new int[WINDOW];
    private final int[] starts = new int[WINDOW];
    private final int[] ends = new int[WINDOW];
    private int count;
    /** The window's sum of weights, in thousandths. */
    private int sum;
    /**
     * The best full window's sum. Windows are compared by their integer sums: the score {@code
     * bias + sum / 1000.0} grows strictly with the sum over the range sums can take, so that
     * the score is computed once, from the best sum, and comes out the same.
     */
    private int bestSum;
    private boolean windowSeen;
    double best;
    int bestStart;
    int bestEnd;
    /** The decodings the text's words ask for ({@link #ROT13}, {@link #REVERSED}). */
    int cues;

    Scorer(char[] text, int length) {
      best = bias;
      InjectionFeatures f = new InjectionFeatures(this);
      f.accept(text, length);
      f.finish();
      if (windowSeen) {
        best = bias + bestSum / 1000.0;
      }
      if (count > 0 && count < WINDOW) {
        // A text shorter than one window is scored whole.
        best = bias + sum / 1000.0;
        span(count);
      }
    }

    private void span(int n) {
      int lo = Integer.MAX_VALUE;
      int hi = 0;
      for (int k = 0; k < n; k++) {
        lo = Math.min(lo, starts[k]);
        hi = Math.max(hi, ends[k]);
      }
      bestStart = lo;
      bestEnd = hi;
    }

    @Override
    public void token(int unigram, int bigram, int trigram, int stem, int stemBigram,
        int concept, int conceptPair, int conceptSkip, int start, int end) {
      int c = weights[unigram] + weights[bigram] + weights[trigram] + weights[stem]
          + weights[stemBigram] + weights[concept] + weights[conceptPair] + weights[conceptSkip];
      // A hash collision with a cue word only costs a second scan.
      cues |= (int) (ROT13_BITS[unigram >>> 6] >>> unigram & 1)
          | (int) (REVERSED_BITS[unigram >>> 6] >>> unigram & 1) << 1;
      int slot = count & (WINDOW - 1);
      if (count >= WINDOW) {
        sum -= ring[slot];
      }
      ring[slot] = c;
      starts[slot] = start;
      ends[slot] = end;
      sum += c;
      count++;
      if (count >= WINDOW && (sum > bestSum || !windowSeen)) {
        windowSeen = true;
        bestSum = sum;
        span(WINDOW);
      }
    }
  }

  /**
   * Parses a model file: header lines {@code name value} ({@code bias}, {@code block}, {@code
   * flag}, and informational ones), then one {@code bucket weight} line per non-zero weight.
   */
  static PromptInjectionClassifier parse(String file) {
    // One more than the hashed buckets: InjectionFeatures.NONE, whose weight stays zero.
    short[] w = new short[InjectionFeatures.BUCKETS + 1];
    float bias = Float.NaN;
    double block = Double.NaN;
    double flag = Double.NaN;
    for (String line : file.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int sp = line.indexOf(' ');
      if (sp < 0) {
        throw new IllegalStateException("malformed model line: " + line);
      }
      String key = line.substring(0, sp);
      String value = line.substring(sp + 1);
      switch (key) {
        case "bias" -> bias = Float.parseFloat(value);
        case "block" -> block = Double.parseDouble(value);
        case "flag" -> flag = Double.parseDouble(value);
        default -> {
          if (Character.isDigit(key.charAt(0))) {
            long milli = Math.round(Double.parseDouble(value) * 1000);
            if (milli < Short.MIN_VALUE || milli > Short.MAX_VALUE) {
              throw new IllegalStateException("weight out of range: " + line);
            }
            int bucket = Integer.parseInt(key);
            if (bucket >= InjectionFeatures.BUCKETS) {
              throw new IllegalStateException("bucket out of range: " + line);
            }
            w[bucket] = (short) milli;
          }
        }
      }
    }
    if (Float.isNaN(bias) || Double.isNaN(block) || Double.isNaN(flag)) {
      throw new IllegalStateException("model lacks bias, block or flag");
    }
    return new PromptInjectionClassifier(w, bias, block, flag);
  }
}
