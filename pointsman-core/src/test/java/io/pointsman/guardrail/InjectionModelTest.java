package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Pins the prompt-injection classifier to its committed data: the corpora are what the
 * generator writes, the model resource is what the trainer derives from the tuning part and the
 * external tuning part (byte for byte), and on the held-out parts ({@code heldout}, {@code
 * fresh}, {@code third}, {@code fourth}, {@code external/heldout}, {@code external/gpts}) — never
 * used for training or thresholds — the default chain's injection rules stay at or above the
 * floors below. The goal (recall 0.90 with at most 2% of benign texts blocked) is not met; the
 * floors pin today's figures so that a regression fails the build, and {@code
 * docs/guardrails.md} says so. The figures it
 * measures are the committed {@code guardrail/injection-quality.csv} that {@code
 * docs/guardrails.md} quotes; after a deliberate change rewrite it with {@code
 * -Dguardrail.writeQuality=true}.
 */
class InjectionModelTest {
  static final Path DIR = Path.of("src/test/resources/guardrail/injection");
  static final Path MODEL =
      Path.of("src/main/resources/io/pointsman/guardrail/injection-model.txt");
  static final Path QUALITY = Path.of("src/test/resources/guardrail/injection-quality.csv");
  static final Path RANKING = Path.of("src/test/resources/guardrail/injection-ranking.csv");

  static byte[] resource(String name) throws IOException {
    try (InputStream in = InjectionModelTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  static List<CorpusGenerator.Sample> part(String name) throws IOException {
    return CorpusGenerator.parse(new String(resource("/guardrail/injection/" + name + ".tsv"),
        StandardCharsets.UTF_8));
  }

  @Test
  void committedCorporaAreExactlyWhatTheGeneratorProduces() throws IOException {
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      InjectionCorpusGenerator.main(new String[] {DIR.toString()});
    }
    assertThat(new String(resource("/guardrail/injection/tuning.tsv"), StandardCharsets.UTF_8))
        .isEqualTo(CorpusGenerator.render(InjectionCorpusGenerator.tuning()));
    assertThat(new String(resource("/guardrail/injection/heldout.tsv"), StandardCharsets.UTF_8))
        .isEqualTo(CorpusGenerator.render(InjectionCorpusGenerator.heldOut()));
  }

  @Test
  void corporaHoldAtLeastThreeHundredAttacksAndBenignTextsAndDoNotOverlap() throws IOException {
    List<CorpusGenerator.Sample> tuning = part("tuning");
    List<CorpusGenerator.Sample> heldOut = part("heldout");
    List<CorpusGenerator.Sample> both = new ArrayList<>(tuning);
    both.addAll(heldOut);
    assertThat(both.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(300);
    assertThat(both.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(300);
    assertThat(heldOut.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(300);
    assertThat(heldOut.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(300);
    List<String> tuningTexts = tuning.stream().map(CorpusGenerator.Sample::text).toList();
    assertThat(heldOut).noneMatch(s -> tuningTexts.contains(s.text()));
  }

  @Test
  void committedModelIsWhatTheTrainerDerivesFromTheTuningPart() throws IOException {
    byte[] tuning = resource("/guardrail/injection/tuning.tsv");
    byte[] external = resource("/guardrail/injection/external/tuning.tsv");
    String model = InjectionTrainer.train(tuning, external);
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(MODEL, model, StandardCharsets.UTF_8);
    }
    String committed = new String(resource(PromptInjectionClassifier.RESOURCE),
        StandardCharsets.UTF_8);
    assertThat(committed).contains("corpus-sha256 " + InjectionTrainer.sha256(tuning) + "\n");
    assertThat(committed).contains("external-sha256 " + InjectionTrainer.sha256(external) + "\n");
    assertThat(committed).as("model resource (retrain with -Dguardrail.writeQuality=true)")
        .isEqualTo(model);
  }

  /** Counts for one family of one part. */
  static final class Tally {
    int total;
    int blocked;
    int flagged;
  }

  /**
   * The default input chain's injection rules: the phrase heuristic confirmed by the classifier,
   * or the classifier.
   */
  static Detector defaultChainRules(PromptInjectionClassifier c) {
    PromptInjectionDetector heuristic = PromptInjectionDetector.ofDefaults().confirmedBy(c);
    return new Detector() {
      @Override
      public String family() {
        return "injection";
      }

      @Override
      public void scan(CharSequence text, List<Finding> out) {
        List<Finding> h = new ArrayList<>();
        heuristic.scan(text, h);
        if (h.stream().anyMatch(f -> f.rule().equals(PromptInjectionDetector.RULE))) {
          out.add(new Finding(PromptInjectionClassifier.RULE, 0, Math.max(1, text.length())));
        } else if (!h.isEmpty()) {
          out.add(new Finding(PromptInjectionClassifier.SUSPECTED, 0,
              Math.max(1, text.length())));
        }
        c.scan(text, out);
      }
    };
  }

  static Map<String, Tally> measure(Detector c, List<CorpusGenerator.Sample> samples) {
    Map<String, Tally> byFamily = new TreeMap<>();
    List<Finding> found = new ArrayList<>();
    for (CorpusGenerator.Sample s : samples) {
      found.clear();
      c.scan(s.text(), found);
      String key = (s.positive() ? "attack." : "benign.") + s.family();
      for (String k : List.of(key, s.positive() ? "attack.all" : "benign.all")) {
        Tally t = byFamily.computeIfAbsent(k, x -> new Tally());
        t.total++;
        if (found.stream().anyMatch(f -> f.rule().equals(PromptInjectionClassifier.RULE))) {
          t.blocked++;
        }
        if (!found.isEmpty()) {
          t.flagged++;
        }
      }
    }
    return byFamily;
  }

  private static void floors(String part, Map<String, Tally> tallies, double recall,
      double benignBlocked) {
    Tally attacks = tallies.get("attack.all");
    Tally benign = tallies.get("benign.all");
    assertThat((double) attacks.blocked / attacks.total).as(part + " recall")
        .isGreaterThanOrEqualTo(recall);
    assertThat((double) benign.blocked / benign.total).as(part + " benign blocked")
        .isLessThanOrEqualTo(benignBlocked);
  }

  static String csv(String part, Map<String, Tally> tallies) {
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<String, Tally> e : tallies.entrySet()) {
      Tally t = e.getValue();
      sb.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%.4f,%d,%.4f%n", part, e.getKey(),
          t.total, t.blocked, (double) t.blocked / t.total, t.flagged,
          (double) t.flagged / t.total));
    }
    return sb.toString();
  }

  @Test
  void heldOutFiguresStayAtOrAboveTheirFloors()
      throws IOException {
    PromptInjectionClassifier c = PromptInjectionClassifier.ofDefaults();
    Map<String, Tally> heldOut = measure(defaultChainRules(c), part("heldout"));
    Map<String, Tally> tuning = measure(defaultChainRules(c), part("tuning"));
    Map<String, Tally> classifierOnly = measure(c, part("heldout"));
    Map<String, Tally> fresh = measure(defaultChainRules(c), part("fresh"));
    Map<String, Tally> third = measure(defaultChainRules(c), part("third"));
    Map<String, Tally> fourth = measure(defaultChainRules(c), part("fourth"));
    Map<String, Tally> external = measure(defaultChainRules(c), part("external/heldout"));
    Map<String, Tally> gpts = measure(defaultChainRules(c), part("external/gpts"));
    String report = "part,class.family,texts,blocked,blocked_share,flagged_or_blocked,"
        + "flagged_or_blocked_share\n" + csv("heldout", heldOut) + csv("tuning", tuning)
        + csv("heldout-classifier-only", classifierOnly) + csv("fresh", fresh)
        + csv("fresh-classifier-only", measure(c, part("fresh"))) + csv("third", third)
        + csv("third-classifier-only", measure(c, part("third")))
        + csv("fourth", fourth) + csv("fourth-classifier-only", measure(c, part("fourth")))
        + csv("external-heldout", external)
        + csv("external-heldout-classifier-only", measure(c, part("external/heldout")))
        + csv("external-gpts", gpts);
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(QUALITY, report, StandardCharsets.UTF_8);
    }
    System.out.print(report);
    floors("heldout", heldOut, 0.47, 0.009);
    floors("fresh", fresh, 0.61, 0.01);
    floors("third", third, 0.45, 0.001);
    floors("fourth", fourth, 0.21, 0.006);
    floors("external heldout", external, 0.83, 0.004);
    assertThat((double) external.get("benign.prompts").blocked
        / external.get("benign.prompts").total).as("external held-out prompts blocked")
        .isLessThanOrEqualTo(0.007);
    assertThat((double) gpts.get("benign.all").blocked / gpts.get("benign.all").total)
        .as("GPT instructions blocked").isLessThanOrEqualTo(0.27);
    assertThat(Files.readString(QUALITY, StandardCharsets.UTF_8))
        .as("committed injection-quality.csv (rewrite with -Dguardrail.writeQuality=true)")
        .isEqualTo(report);
  }

  /**
   * How well the classifier's score ranks each held-out part, apart from where its thresholds
   * sit: the share of attacks at or above the score that a given share of the part's own benign
   * texts reach. Those thresholds are read off the held-out part itself, so the figures say
   * what a host could get by setting the block threshold on its own benign traffic, not what
   * the committed thresholds give; {@code injection-ranking.csv} holds them.
   */
  @Test
  void rankingOfEachHeldOutPartIsWhatTheCommittedFileRecords() throws IOException {
    PromptInjectionClassifier c = PromptInjectionClassifier.ofDefaults();
    StringBuilder sb = new StringBuilder("part,benign_share_at_or_above,threshold,attacks,"
        + "attacks_at_or_above,attack_share\n");
    for (String name : List.of("heldout", "fresh", "third", "fourth", "external/heldout")) {
      List<Double> benign = new ArrayList<>();
      List<Double> attacks = new ArrayList<>();
      for (CorpusGenerator.Sample s : part(name)) {
        (s.positive() ? attacks : benign).add(c.score(s.text()));
      }
      benign.sort(java.util.Collections.reverseOrder());
      for (double share : new double[] {0.0, 0.01, 0.02, 0.05}) {
        double t = InjectionTrainer.above(benign, share, 0.0005);
        long at = attacks.stream().filter(v -> v >= t).count();
        sb.append(String.format(Locale.ROOT, "%s,%.2f,%.3f,%d,%d,%.4f%n", name, share, t,
            attacks.size(), at, at / (double) attacks.size()));
      }
    }
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(RANKING, sb.toString(), StandardCharsets.UTF_8);
    }
    assertThat(Files.readString(RANKING, StandardCharsets.UTF_8))
        .as("committed injection-ranking.csv (rewrite with -Dguardrail.writeQuality=true)")
        .isEqualTo(sb.toString());
  }
}
