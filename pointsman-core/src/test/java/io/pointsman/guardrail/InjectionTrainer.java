package io.pointsman.guardrail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * Trains the model of {@link PromptInjectionClassifier} from the tuning part of the injection
 * corpus and the external tuning part (texts written outside this project, {@code
 * guardrail/injection/external/SOURCES.md}), deterministically: the same files give the same
 * model file, byte for byte ({@link InjectionModelTest} checks it against the committed
 * resource).
 *
 * <p>Logistic regression by stochastic gradient descent (fixed seed, {@value #EPOCHS} epochs,
 * learning rate {@value #RATE} decaying per epoch, L2 {@value #L2}, each feature dropped with
 * probability {@value #DROP} each time an example is seen), each example scored like the
 * classifier scores it: the best window of {@value PromptInjectionClassifier#WINDOW} tokens; the
 * gradient flows through that window's features. Thresholds come from a split of the tuning
 * part across its sources: a model fitted to the texts {@link TuningExtraCorpus} did not write
 * and to the external texts {@link #scoredInSplit} leaves out scores those it left out; block at
 * the score that fewer than {@value #BLOCK_FP} of the benign texts scored reach, flag at the one
 * fewer than {@value #FLAG_FP} reach, each at least its floor.
 * Weights are stored in thousandths; zero ones are left out. {@code StrictMath} keeps the run
 * identical across machines.
 *
 * <pre>
 * java -cp pointsman-core/target/test-classes:pointsman-core/target/classes \
 *     io.pointsman.guardrail.InjectionTrainer \
 *     pointsman-core/src/test/resources/guardrail/injection/tuning.tsv \
 *     pointsman-core/src/test/resources/guardrail/injection/external/tuning.tsv \
 *     pointsman-core/src/main/resources/io/pointsman/guardrail/injection-model.txt
 * </pre>
 */
public final class InjectionTrainer {
  static final long SEED = 20_261_201L;
  static final int EPOCHS = 15;
  static final double RATE = 0.2;
  static final double L2 = 1e-4;
  static final double BLOCK_FP = 0.01;
  static final double FLAG_FP = 0.04;
  static final double PRIOR = -4.0;
  /** log(0.95 / 0.05): block only when the model gives at least 95%. */
  static final double BLOCK_FLOOR = 2.944;
  static final double FLAG_FLOOR = 0.0;

  private InjectionTrainer() {}

  /**
   * Trains from the tuning files and writes the model file.
   *
   * @param args the tuning file, the external tuning file and the model file to write
   * @throws IOException if a file cannot be read or written
   */
  public static void main(String[] args) throws IOException {
    byte[] tuning = Files.readAllBytes(Path.of(args[0]));
    byte[] external = Files.readAllBytes(Path.of(args[1]));
    Files.writeString(Path.of(args[2]), train(tuning, external), StandardCharsets.UTF_8);
  }

  private record Example(boolean positive, int[] features) {}

  /**
   * Features per token: unigram, bigram, trigram, stem and stem-bigram buckets, and the concept,
   * concept-pair and concept-skip buckets ({@link InjectionFeatures#NONE} when the token has no
   * concept).
   */
  static final int PER_TOKEN = 8;
  /**
   * The share of an example's features dropped (read as {@link InjectionFeatures#NONE}) each
   * time it is seen in training, each feature on its own draw. Without it the weight of a
   * pattern is spread over every feature that co-occurs with it in the tuning part, and an
   * attack worded differently keeps only a small part; with it each feature, the concept
   * features among them, must carry evidence on its own. Chosen by {@link InjectionCrossCheck}
   * on tuning data only.
   */
  static final double DROP = 0.5;
  /** Where the (fixed) bias sits in the weight vector, after the buckets and NONE. */
  static final int BIAS = InjectionFeatures.BUCKETS + 1;

  /** The features of one text with the default lexicon, {@link #PER_TOKEN} per token. */
  static int[] features(String text) {
    return features(text, InjectionConcepts.DEFAULT);
  }

  /** The features of one text with a lexicon, or none. */
  static int[] features(String text, InjectionConcepts lexicon) {
    int[][] buf = {new int[256]};
    int[] n = {0};
    InjectionFeatures f = new InjectionFeatures((u, b, t, st, sb, cu, cp, cs, start, end) -> {
      if (n[0] + PER_TOKEN > buf[0].length) {
        buf[0] = Arrays.copyOf(buf[0], buf[0].length * 2);
      }
      buf[0][n[0]++] = u;
      buf[0][n[0]++] = b;
      buf[0][n[0]++] = t;
      buf[0][n[0]++] = st;
      buf[0][n[0]++] = sb;
      buf[0][n[0]++] = cu;
      buf[0][n[0]++] = cp;
      buf[0][n[0]++] = cs;
    }, lexicon);
    f.accept(text);
    f.finish();
    return Arrays.copyOf(buf[0], n[0]);
  }

  /** Trains on the tuning and external tuning files and returns the model file's text. */
  static String train(byte[] tuningFile, byte[] externalFile) {
    List<CorpusGenerator.Sample> samples = new ArrayList<>(
        CorpusGenerator.parse(new String(tuningFile, StandardCharsets.UTF_8)));
    List<CorpusGenerator.Sample> external =
        CorpusGenerator.parse(new String(externalFile, StandardCharsets.UTF_8));
    samples.addAll(external);
    List<Example> all = new ArrayList<>();
    for (CorpusGenerator.Sample s : samples) {
      all.add(new Example(s.positive(), features(s.text())));
    }
    // Thresholds from a split across sources, not from random folds: random folds share the
    // tuning part's sentence frames, so their benign texts score lower than unseen benign text
    // does. The model is fitted to the tuning texts that TuningExtraCorpus did not write and
    // scores the ones it wrote, whose banks of wordings the others do not use.
    Set<String> extra = new HashSet<>();
    for (CorpusGenerator.Sample s : TuningExtraCorpus.generate()) {
      extra.add(s.text());
    }
    for (CorpusGenerator.Sample s : external) {
      if (scoredInSplit(s.text())) {
        extra.add(s.text());
      }
    }
    List<Example> train = new ArrayList<>();
    List<Example> test = new ArrayList<>();
    for (int i = 0; i < samples.size(); i++) {
      (extra.contains(samples.get(i).text()) ? test : train).add(all.get(i));
    }
    List<Double> benign = new ArrayList<>();
    List<Double> attacks = new ArrayList<>();
    double[] split = fit(train);
    for (Example e : test) {
      (e.positive() ? attacks : benign).add(best(split, e.features())[0]);
    }
    benign.sort(Collections.reverseOrder());
    // The floors keep the block threshold at a probability of 0.95 and the flag threshold at
    // 0.5 at least.
    double block = Math.max(BLOCK_FLOOR, threshold(benign, BLOCK_FP));
    double flag = Math.min(block, Math.max(FLAG_FLOOR, threshold(benign, FLAG_FP)));
    if (Boolean.getBoolean("guardrail.trainerReport")) {
      System.out.printf(Locale.ROOT, "across sources (%d trained, %d scored): block %.3f flag"
          + " %.3f; attacks blocked %.4f, flagged %.4f; benign blocked %.4f, flagged %.4f%n",
          train.size(), test.size(), block, flag, share(attacks, block), share(attacks, flag),
          share(benign, block), share(benign, flag));
    }
    double[] w = fit(all);
    StringBuilder sb = new StringBuilder();
    sb.append("# Pointsman prompt-injection model: logistic regression over hashed token n-grams\n")
        .append("# written by io.pointsman.guardrail.InjectionTrainer from the tuning part of ")
        .append("guardrail/injection; do not edit\n")
        .append("format 1\n")
        .append("corpus-sha256 ").append(sha256(tuningFile)).append('\n')
        .append("external-sha256 ").append(sha256(externalFile)).append('\n')
        .append("examples ").append(all.size()).append('\n')
        .append("buckets ").append(InjectionFeatures.BUCKETS).append('\n')
        .append("window ").append(PromptInjectionClassifier.WINDOW).append('\n')
        .append("bias ").append(milli(w[BIAS]) / 1000.0).append('\n')
        .append("block ").append(String.format(Locale.ROOT, "%.3f", block)).append('\n')
        .append("flag ").append(String.format(Locale.ROOT, "%.3f", flag)).append('\n');
    for (int i = 0; i < InjectionFeatures.BUCKETS; i++) {
      long m = milli(w[i]);
      if (m != 0) {
        sb.append(i).append(' ').append(m / 1000.0).append('\n');
      }
    }
    return sb.toString();
  }

  /**
   * Whether an external tuning text is scored, not fitted, in the split that sets the
   * thresholds: half of them, by the second byte of the text's SHA-256 (the first byte split the
   * external sources into their tuning and held-out parts).
   */
  static boolean scoredInSplit(String text) {
    return (digest(text.getBytes(StandardCharsets.UTF_8))[1] & 1) == 1;
  }

  /** The share of scores at or above a threshold. */
  static double share(List<Double> scores, double threshold) {
    return scores.stream().filter(v -> v >= threshold).count() / (double) scores.size();
  }

  private static long milli(double v) {
    return Math.round(v * 1000);
  }

  /** A threshold above all but the given share of benign scores (sorted high to low). */
  private static double threshold(List<Double> benignDesc, double share) {
    double t = above(benignDesc, share, 0.001);
    return Math.round(t * 1000) / 1000.0;
  }

  /**
   * The score {@code margin} above the highest benign score past the allowed share, so that at
   * most that share of the benign scores (sorted high to low) reach it.
   */
  static double above(List<Double> benignDesc, double share, double margin) {
    int allowed = (int) Math.floor(share * benignDesc.size());
    return benignDesc.get(Math.min(allowed, benignDesc.size() - 1)) + margin;
  }

  /** Fits weights to samples whose features come from a lexicon, or none. */
  static double[] fit(List<CorpusGenerator.Sample> samples, InjectionConcepts lexicon) {
    List<Example> examples = new ArrayList<>();
    for (CorpusGenerator.Sample s : samples) {
      examples.add(new Example(s.positive(), features(s.text(), lexicon)));
    }
    return fit(examples);
  }

  /** Scores a text as the classifier would with weights {@code w} (unrounded). */
  static double score(double[] w, String text, InjectionConcepts lexicon) {
    return best(w, features(text, lexicon))[0];
  }

  /** Fits weights; index {@link #BIAS} is the bias. */
  private static double[] fit(List<Example> examples) {
    double[] w = new double[BIAS + 1];
    // The bias is fixed, not learned: a text with no known evidence scores PRIOR, well below
    // the thresholds, so words the corpus never had cannot push a benign text over them.
    w[BIAS] = PRIOR;
    long positives = examples.stream().filter(Example::positive).count();
    double posWeight = (double) (examples.size() - positives) / Math.max(1, positives);
    List<Example> order = new ArrayList<>(examples);
    Random random = new Random(SEED + 1);
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
      Collections.shuffle(order, random);
      double rate = RATE / (1 + epoch * 0.3);
      for (Example e : order) {
        int[] features = e.features();
        if (DROP > 0) {
          features = features.clone();
          for (int k = 0; k < features.length; k++) {
            if (random.nextDouble() < DROP) {
              features[k] = InjectionFeatures.NONE;
            }
          }
        }
        double[] b = best(w, features);
        double p = 1 / (1 + StrictMath.exp(-b[0]));
        double g = (p - (e.positive() ? 1 : 0)) * (e.positive() ? posWeight : 1);
        int from = (int) b[1];
        int to = (int) b[2];
        for (int k = from * PER_TOKEN; k < to * PER_TOKEN; k++) {
          int f = features[k];
          if (f != InjectionFeatures.NONE) {
            w[f] -= rate * (g + L2 * w[f]);
          }
        }
      }
    }
    return w;
  }

  /**
   * The best window as the classifier finds it: {score, first token, token after the last}.
   */
  static double[] best(double[] w, int[] features) {
    int tokens = features.length / PER_TOKEN;
    double bias = w[BIAS];
    if (tokens == 0) {
      return new double[] {bias, 0, 0};
    }
    double[] c = new double[tokens];
    for (int t = 0; t < tokens; t++) {
      int k = PER_TOKEN * t;
      float sum = 0;
      for (int j = 0; j < PER_TOKEN; j++) {
        sum += (float) w[features[k + j]];
      }
      c[t] = sum;
    }
    double sum = 0;
    double best = Double.NEGATIVE_INFINITY;
    int bestFrom = 0;
    int bestTo = 0;
    int window = PromptInjectionClassifier.WINDOW;
    if (tokens < window) {
      for (double v : c) {
        sum += v;
      }
      return new double[] {bias + sum, 0, tokens};
    }
    for (int t = 0; t < tokens; t++) {
      sum += c[t];
      if (t >= window) {
        sum -= c[t - window];
      }
      if (t >= window - 1 && bias + sum > best) {
        best = bias + sum;
        bestFrom = Math.max(0, t - window + 1);
        bestTo = t + 1;
      }
    }
    return new double[] {best, bestFrom, bestTo};
  }

  static String sha256(byte[] bytes) {
    return HexFormat.of().formatHex(digest(bytes));
  }

  /** The SHA-256 of some bytes. */
  static byte[] digest(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
