package io.pointsman.guardrail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Compares feature configurations of the injection classifier on tuning data only: trains on
 * the tuning part less the texts {@link TuningExtraCorpus} wrote, and scores those texts, whose
 * banks of wordings the rest of the tuning part does not use. No held-out part is read, so a
 * configuration can be chosen by it without looking at held-out data. Prints, per arm (without
 * and with the concept lexicon), the share of attacks and of benign texts at or above the block
 * floor (2.944) and the flag floor (0), overall and per family, and the share of attacks at
 * the thresholds that 0, 1, 2, 3 and 5% of the benign texts reach. The concept lexicon and the
 * trainer's feature dropout were chosen with it.
 *
 * <pre>
 * java -cp pointsman-core/target/test-classes:pointsman-core/target/classes:TEST_CLASS_PATH \
 *     io.pointsman.guardrail.InjectionCrossCheck
 * </pre>
 */
public final class InjectionCrossCheck {
  private InjectionCrossCheck() {}

  /**
   * Runs the comparison.
   *
   * @param args unused
   * @throws IOException if the tuning part cannot be read
   */
  public static void main(String[] args) throws IOException {
    System.out.print(report());
  }

  /**
   * The comparison's output, as committed in {@code guardrail/injection-crosscheck.txt} below its
   * comment lines.
   *
   * @return the report
   * @throws IOException if the tuning part cannot be read
   */
  static String report() throws IOException {
    StringBuilder out = new StringBuilder();
    List<CorpusGenerator.Sample> tuning = InjectionModelTest.part("tuning");
    Set<String> extra = new HashSet<>();
    for (CorpusGenerator.Sample s : TuningExtraCorpus.generate()) {
      extra.add(s.text());
    }
    List<CorpusGenerator.Sample> train = new ArrayList<>();
    List<CorpusGenerator.Sample> test = new ArrayList<>();
    for (CorpusGenerator.Sample s : tuning) {
      (extra.contains(s.text()) ? test : train).add(s);
    }
    out.append(String.format(Locale.ROOT, "train %d, validate %d%n", train.size(), test.size()));
    for (InjectionConcepts lexicon : new InjectionConcepts[] {null, InjectionConcepts.DEFAULT}) {
      double[] w = InjectionTrainer.fit(train, lexicon);
      Map<String, int[]> tally = new TreeMap<>();
      List<Double> benign = new ArrayList<>();
      List<Double> attacks = new ArrayList<>();
      for (CorpusGenerator.Sample s : test) {
        double v = InjectionTrainer.score(w, s.text(), lexicon);
        (s.positive() ? attacks : benign).add(v);
        for (String key : List.of(s.positive() ? "attack.all" : "benign.all", s.kind())) {
          int[] t = tally.computeIfAbsent(key, k -> new int[3]);
          t[0]++;
          t[1] += v >= InjectionTrainer.BLOCK_FLOOR ? 1 : 0;
          t[2] += v >= InjectionTrainer.FLAG_FLOOR ? 1 : 0;
        }
      }
      out.append(lexicon == null ? "== without concepts\n" : "== with concepts\n");
      benign.sort(java.util.Collections.reverseOrder());
      for (double fp : new double[] {0.0, 0.01, 0.02, 0.03, 0.05}) {
        double t = InjectionTrainer.above(benign, fp, 1e-9);
        out.append(String.format(Locale.ROOT, "benign <= %.2f: threshold %.3f, attacks %.3f%n",
            fp, t, InjectionTrainer.share(attacks, t)));
      }
      tally.forEach((k, t) -> out.append(String.format(Locale.ROOT,
          "%-28s %4d  block %.3f  flag %.3f%n", k, t[0], t[1] / (double) t[0],
          t[2] / (double) t[0])));
    }
    return out.toString();
  }
}
