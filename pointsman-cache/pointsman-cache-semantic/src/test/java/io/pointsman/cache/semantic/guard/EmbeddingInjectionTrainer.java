package io.pointsman.cache.semantic.guard;

import io.pointsman.cache.semantic.MiniLmEmbedder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Trains {@link EmbeddingInjectionDetector}'s model from the tuning part of the injection corpus
 * only ({@code pointsman-core/src/test/resources/guardrail/injection/tuning.tsv}), and writes
 * {@value EmbeddingInjectionDetector#RESOURCE} under {@code pointsman-cache/pointsman-cache-semantic/src/main/resources}.
 *
 * <p>Examples: each tuning text's embedding with its label, and each sentence window of a benign
 * text as benign (an attack's other sentences are not attacks, so an attack's windows are not
 * examples). Logistic regression by full-batch gradient descent with Nesterov momentum
 * {@value #MOMENTUM}, {@value #STEPS} steps of {@value #RATE}, L2 {@value #L2}, classes weighted equally, in a fixed order with {@code
 * StrictMath}: deterministic for the same embeddings. The embedder runs with one intra-op thread.
 *
 * <p>Threshold: 5-fold out-of-fold scores of the benign tuning texts (max over windows, as the
 * detector scores), at the value fewer than {@value #BENIGN_SHARE} of them reach; at least 0
 * (probability 0.5). Chosen by this rule before any held-out text was scored.
 *
 * <pre>
 * mvn -q -B -ntp -o -pl pointsman-cache -am test -Dtest=EmbeddingInjectionDetectorTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dguardrail.writeModel=true
 * </pre>
 */
public final class EmbeddingInjectionTrainer {
  static final Path CORPUS = Path.of("../../pointsman-core/src/test/resources/guardrail/injection");
  static final Path MODEL = Path.of("src/main/resources/io/pointsman/cache/semantic/guard/"
      + "injection-embedding-model.txt");
  static final int STEPS = 1500;
  static final double RATE = 4.0;
  static final double MOMENTUM = 0.9;
  static final double L2 = 1e-5;
  static final double BENIGN_SHARE = 0.01;
  static final int FOLDS = 5;

  private EmbeddingInjectionTrainer() {}

  /** One labelled text of the corpus. */
  record Sample(boolean positive, String kind, String text) {
    /** The kind without the class in front that newer parts write ("attack.direct"). */
    String family() {
      return kind.replaceFirst("^(attack|benign)\\.", "");
    }
  }

  /** Embeddings by text, so a window shared by many texts is embedded once. */
  static final class Embeddings {
    private final MiniLmEmbedder embedder;
    private final Map<String, float[]> cache = new HashMap<>();

    Embeddings(MiniLmEmbedder embedder) {
      this.embedder = embedder;
    }

    float[] of(String text) {
      return cache.computeIfAbsent(text, embedder::embed);
    }

    /** The embeddings of a text's windows, the whole text first. */
    List<float[]> windows(String text) {
      List<float[]> out = new ArrayList<>();
      for (int[] w : EmbeddingInjectionDetector.windows(text)) {
        out.add(of(text.substring(w[0], w[1])));
      }
      return out;
    }
  }

  static List<Sample> read(String part) throws IOException {
    String file = Files.readString(CORPUS.resolve(part + ".tsv"), StandardCharsets.UTF_8);
    List<Sample> out = new ArrayList<>();
    for (String line : file.split("\n")) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\t", 3);
      StringBuilder text = new StringBuilder();
      String raw = f[2];
      for (int i = 0; i < raw.length(); i++) {
        char c = raw.charAt(i);
        if (c == '\\' && i + 1 < raw.length()) {
          char n = raw.charAt(++i);
          text.append(n == 'n' ? '\n' : n == 't' ? '\t' : n);
        } else {
          text.append(c);
        }
      }
      out.add(new Sample(f[0].equals("pos"), f[1], text.toString()));
    }
    return out;
  }

  /**
   * Writes the model file.
   *
   * @param args unused
   * @throws IOException if the corpus cannot be read or the model written
   */
  public static void main(String[] args) throws IOException {
    try (MiniLmEmbedder embedder = MiniLmEmbedder.builder().intraOpThreads(1).build()) {
      Files.writeString(MODEL, train(new Embeddings(embedder)), StandardCharsets.UTF_8);
    }
  }

  /** Trains on the tuning part and returns the model file's text. */
  static String train(Embeddings embeddings) throws IOException {
    List<Sample> tuning = read("tuning");
    List<List<float[]>> windows = new ArrayList<>();
    for (Sample s : tuning) {
      windows.add(embeddings.windows(s.text()));
    }
    double[] model = fit(tuning, windows, -1);
    // Out-of-fold benign scores for the threshold.
    List<Double> benign = new ArrayList<>();
    for (int fold = 0; fold < FOLDS; fold++) {
      double[] m = fit(tuning, windows, fold);
      for (int i = 0; i < tuning.size(); i++) {
        if (i % FOLDS == fold && !tuning.get(i).positive()) {
          benign.add(maxScore(m, windows.get(i)));
        }
      }
    }
    double[] sorted = benign.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int allowed = (int) Math.floor(sorted.length * BENIGN_SHARE);
    // Fewer than BENIGN_SHARE of benign texts reach the threshold: just above the score of the
    // (allowed + 1)-th highest.
    double threshold = Math.max(0, sorted[sorted.length - 1 - allowed] + 1e-3);
    StringBuilder sb = new StringBuilder();
    sb.append("# EmbeddingInjectionDetector model: logistic regression over MiniLM-L6-v2 "
        + "embeddings, written by EmbeddingInjectionTrainer\n");
    sb.append("# tuning.tsv sha256 ").append(sha256(CORPUS.resolve("tuning.tsv"))).append('\n');
    sb.append(String.format(Locale.ROOT, "# examples %d texts, steps %d, rate %.1f, momentum %.1f, "
        + "l2 %.0e, benign share %.2f%n", tuning.size(), STEPS, RATE, MOMENTUM, L2,
        BENIGN_SHARE));
    sb.append(String.format(Locale.ROOT, "bias %.6f%n", model[MiniLmEmbedder.DIMENSIONS]));
    sb.append(String.format(Locale.ROOT, "threshold %.3f%n", threshold));
    for (int d = 0; d < MiniLmEmbedder.DIMENSIONS; d++) {
      sb.append(String.format(Locale.ROOT, "w%d %.6f%n", d, model[d]));
    }
    return sb.toString();
  }

  static double maxScore(double[] m, List<float[]> windows) {
    double best = Double.NEGATIVE_INFINITY;
    double[] w = Arrays.copyOf(m, MiniLmEmbedder.DIMENSIONS);
    for (float[] e : windows) {
      best = Math.max(best, EmbeddingInjectionDetector.logOdds(w, m[MiniLmEmbedder.DIMENSIONS], e));
    }
    return best;
  }

  /** Fits on every sample not in {@code holdOut} (fold index; -1 for none); weights then bias. */
  static double[] fit(List<Sample> samples, List<List<float[]>> windows, int holdOut) {
    return fit(samples, windows, holdOut, STEPS, L2);
  }

  static double[] fit(List<Sample> samples, List<List<float[]>> windows, int holdOut,
      int steps, double l2) {
    List<float[]> x = new ArrayList<>();
    List<Boolean> y = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      if (i % FOLDS == holdOut) {
        continue;
      }
      boolean positive = samples.get(i).positive();
      List<float[]> w = windows.get(i);
      x.add(w.get(0));
      y.add(positive);
      if (!positive) {
        for (int k = 1; k < w.size(); k++) {
          x.add(w.get(k));
          y.add(false);
        }
      }
    }
    int dims = MiniLmEmbedder.DIMENSIONS;
    int rows = x.size();
    float[] flat = new float[rows * dims];
    double[] target = new double[rows];
    double[] weight = new double[rows];
    int pos = 0;
    for (boolean b : y) {
      pos += b ? 1 : 0;
    }
    for (int i = 0; i < rows; i++) {
      System.arraycopy(x.get(i), 0, flat, i * dims, dims);
      target[i] = y.get(i) ? 1 : 0;
      weight[i] = y.get(i) ? 0.5 / pos : 0.5 / (rows - pos);
    }
    // Nesterov's accelerated gradient on the class-weighted log loss plus L2 (not on the bias).
    double[] m = new double[dims + 1];
    double[] velocity = new double[dims + 1];
    double[] look = new double[dims + 1];
    double[] grad = new double[dims + 1];
    for (int step = 0; step < steps; step++) {
      for (int d = 0; d <= dims; d++) {
        look[d] = m[d] + MOMENTUM * velocity[d];
      }
      Arrays.fill(grad, 0);
      for (int i = 0; i < rows; i++) {
        int base = i * dims;
        double z = look[dims];
        for (int d = 0; d < dims; d++) {
          z += look[d] * flat[base + d];
        }
        double g = (1 / (1 + StrictMath.exp(-z)) - target[i]) * weight[i];
        for (int d = 0; d < dims; d++) {
          grad[d] += g * flat[base + d];
        }
        grad[dims] += g;
      }
      for (int d = 0; d <= dims; d++) {
        double gd = grad[d] + (d < dims ? l2 * look[d] : 0);
        velocity[d] = MOMENTUM * velocity[d] - RATE * gd;
        m[d] += velocity[d];
      }
    }
    return m;
  }

  static String sha256(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
          .digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
