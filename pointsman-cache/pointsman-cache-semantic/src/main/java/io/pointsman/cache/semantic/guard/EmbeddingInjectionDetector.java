package io.pointsman.cache.semantic.guard;

import io.pointsman.cache.semantic.MiniLmEmbedder;
import io.pointsman.guardrail.Detector;
import io.pointsman.guardrail.Finding;
import io.pointsman.model.Role;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A prompt-injection detector over sentence embeddings: logistic regression on the
 * {@value MiniLmEmbedder#DIMENSIONS}-dimensional MiniLM embedding of the whole text and of each
 * of its sentence windows; the text's score is the highest window's log-odds, so one injected
 * sentence inside a long document is not diluted by the rest. At or above the threshold it
 * reports {@value #RULE} with the span of the highest window.
 *
 * <p><b>Cost.</b> Every scan embeds the text and each window (at most {@value #MAX_WINDOWS}
 * windows): milliseconds per text, against microseconds for the default chain's detectors. It
 * is meant for hosts that already run the semantic layer and its {@link MiniLmEmbedder}; add it
 * to a chain explicitly:
 *
 * <pre>{@code
 * InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
 *     .rule(EmbeddingInjectionDetector.ofDefaults(embedder), GuardrailAction.BLOCK)
 *     .build();
 * }</pre>
 *
 * <p>The weights are the resource {@value #RESOURCE}, written by the committed trainer from the
 * tuning part of the injection corpus; {@code docs/guardrails.md} gives its held-out figures.
 * It looks at user and tool messages (and JSON fields), not at system or developer messages.
 *
 * <p>Thread-safe when the embedder is (it is).
 */
public final class EmbeddingInjectionDetector implements Detector {
  /** The rule reported at or above the threshold. */
  public static final String RULE = "injection.embedding";
  /** The most windows (besides the whole text) embedded per text. */
  public static final int MAX_WINDOWS = 24;
  /** The class-path resource holding the committed model. */
  public static final String RESOURCE = "/io/pointsman/cache/semantic/guard/injection-embedding-model.txt";

  private final MiniLmEmbedder embedder;
  private final double[] weights;
  private final double bias;
  private final double threshold;

  private EmbeddingInjectionDetector(MiniLmEmbedder embedder, double[] weights, double bias,
      double threshold) {
    this.embedder = Objects.requireNonNull(embedder, "embedder");
    this.weights = weights;
    this.bias = bias;
    this.threshold = threshold;
  }

  /**
   * Returns the detector with the committed model and threshold.
   *
   * @param embedder the embedder to use; not closed by the detector
   * @return a detector
   * @throws IllegalStateException if the model resource is missing or malformed
   */
  public static EmbeddingInjectionDetector ofDefaults(MiniLmEmbedder embedder) {
    try (InputStream in = EmbeddingInjectionDetector.class.getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + RESOURCE);
      }
      return parse(embedder, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + RESOURCE, e);
    }
  }

  /**
   * Returns this model with another threshold.
   *
   * @param logOdds the score at or above which {@value #RULE} is reported
   * @return a detector sharing this one's weights
   * @throws IllegalArgumentException if the value is not finite
   */
  public EmbeddingInjectionDetector withThreshold(double logOdds) {
    if (!Double.isFinite(logOdds)) {
      throw new IllegalArgumentException("threshold must be finite, got " + logOdds);
    }
    return new EmbeddingInjectionDetector(embedder, weights, bias, logOdds);
  }

  /**
   * Returns the score at or above which {@value #RULE} is reported.
   *
   * @return the threshold, in log-odds
   */
  public double threshold() {
    return threshold;
  }

  /**
   * Returns the log-odds of one embedding.
   *
   * @param embedding a vector of {@value MiniLmEmbedder#DIMENSIONS} components
   * @return the model's log-odds that the embedded text is an injection
   * @throws IllegalArgumentException if the vector has another length
   */
  public double logOdds(float[] embedding) {
    return logOdds(weights, bias, embedding);
  }

  static double logOdds(double[] weights, double bias, float[] embedding) {
    if (embedding.length != weights.length) {
      throw new IllegalArgumentException("need " + weights.length + " components, got "
          + embedding.length);
    }
    double z = bias;
    for (int d = 0; d < weights.length; d++) {
      z += weights[d] * embedding[d];
    }
    return z;
  }

  /**
   * Scores a text: the highest log-odds over the whole text and its sentence windows.
   *
   * @param text the text
   * @return the score
   */
  public double score(CharSequence text) {
    return best(text.toString())[0];
  }

  /** Returns {score, start, end} of the best window. */
  private double[] best(String text) {
    double[] best = {Double.NEGATIVE_INFINITY, 0, text.length()};
    for (int[] w : windows(text)) {
      double s = logOdds(embedder.embed(text.substring(w[0], w[1])));
      if (s > best[0]) {
        best[0] = s;
        best[1] = w[0];
        best[2] = w[1];
      }
    }
    return best;
  }

  /**
   * The spans scored for a text: the whole text, then each sentence (ended by {@code . ! ?},
   * their full-width forms, {@code 。}, or a line break) that has at least three letters, when
   * the text has more than one; at most {@value #MAX_WINDOWS} sentences, the first and last
   * halves when there are more.
   *
   * @param text the text
   * @return {start, end} pairs
   */
  public static List<int[]> windows(String text) {
    List<int[]> sentences = new ArrayList<>();
    int start = 0;
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      boolean end = c == '\n' || c == '。' || c == '！' || c == '？'
          || (c == '.' || c == '!' || c == '?') && (i + 1 == n || Character.isWhitespace(
              text.charAt(i + 1)));
      if (end || i + 1 == n) {
        addSentence(text, start, i + 1, sentences);
        start = i + 1;
      }
    }
    List<int[]> out = new ArrayList<>();
    out.add(new int[] {0, n});
    if (sentences.size() > 1) {
      if (sentences.size() > MAX_WINDOWS) {
        List<int[]> capped = new ArrayList<>(sentences.subList(0, MAX_WINDOWS / 2));
        capped.addAll(sentences.subList(sentences.size() - MAX_WINDOWS / 2, sentences.size()));
        sentences = capped;
      }
      out.addAll(sentences);
    }
    return out;
  }

  private static void addSentence(String text, int from, int to, List<int[]> out) {
    int s = from;
    int e = to;
    while (s < e && Character.isWhitespace(text.charAt(s))) {
      s++;
    }
    while (e > s && Character.isWhitespace(text.charAt(e - 1))) {
      e--;
    }
    int letters = 0;
    for (int i = s; i < e && letters < 3; i++) {
      if (Character.isLetter(text.charAt(i))) {
        letters++;
      }
    }
    if (letters >= 3) {
      out.add(new int[] {s, e});
    }
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
    if (text.length() == 0) {
      return;
    }
    double[] b = best(text.toString());
    if (b[0] >= threshold) {
      out.add(new Finding(RULE, (int) b[1], (int) b[2]));
    }
  }

  /**
   * Parses a model file: {@code bias}, {@code threshold} and {@code w<d>} lines ({@code name
   * value}); lines starting with {@code #} are comments.
   */
  static EmbeddingInjectionDetector parse(MiniLmEmbedder embedder, String file) {
    double[] w = new double[MiniLmEmbedder.DIMENSIONS];
    boolean[] seen = new boolean[w.length];
    double bias = Double.NaN;
    double threshold = Double.NaN;
    for (String line : file.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      int sp = line.indexOf(' ');
      if (sp < 0) {
        throw new IllegalStateException("malformed model line: " + line);
      }
      String key = line.substring(0, sp);
      double value = Double.parseDouble(line.substring(sp + 1));
      if (key.equals("bias")) {
        bias = value;
      } else if (key.equals("threshold")) {
        threshold = value;
      } else if (key.startsWith("w")) {
        int d = Integer.parseInt(key.substring(1));
        w[d] = value;
        seen[d] = true;
      }
    }
    for (boolean s : seen) {
      if (!s) {
        throw new IllegalStateException("model lacks a weight");
      }
    }
    if (Double.isNaN(bias) || Double.isNaN(threshold)) {
      throw new IllegalStateException("model lacks bias or threshold");
    }
    return new EmbeddingInjectionDetector(embedder, w, bias, threshold);
  }
}
