package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Measures every detector on its labelled corpus and pins the result: precision and recall above
 * the floors documented in {@code docs/guardrails.md}, and the measured figures equal to the
 * committed {@code guardrail/quality.csv} that the documentation quotes. After a deliberate
 * change, rewrite that file with {@code -Dguardrail.writeQuality=true}.
 */
class CorpusQualityTest {
  /** Floors per rule: {precision, recall}. */
  static final Map<String, double[]> FLOORS = new LinkedHashMap<>();

  static {
    // The per-rule corpora cover the first thirteen secret rules; the wider secret corpus
    // (SecretCoverageTest) covers every rule, the newer ones included.
    for (String rule : List.of("secret.anthropic_key", "secret.aws_access_key",
        "secret.azure_client_secret", "secret.azure_storage_key",
        "secret.credential_assignment", "secret.gcp_api_key", "secret.github_token",
        "secret.gitlab_token", "secret.jwt", "secret.openai_key", "secret.private_key",
        "secret.slack_token", "secret.slack_webhook")) {
      FLOORS.put(rule, new double[] {0.98, 0.98});
    }
    FLOORS.put("secret.credential_assignment", new double[] {0.95, 0.90});
    FLOORS.put("pii.card", new double[] {0.98, 0.98});
    FLOORS.put("pii.email", new double[] {0.98, 0.98});
    FLOORS.put("pii.iban", new double[] {0.98, 0.98});
    FLOORS.put("pii.phone", new double[] {0.95, 0.95});
    FLOORS.put("injection.heuristic", new double[] {0.90, 0.75});
    FLOORS.put("pattern.blocked", new double[] {0.98, 0.98});
  }

  static final Path QUALITY = Path.of("src/test/resources/guardrail/quality.csv");

  record Quality(String rule, int positives, int negatives, int nearMisses, int tp, int fp,
      int fn, int nearMissFp) {
    double precision() {
      return tp + fp == 0 ? 0 : (double) tp / (tp + fp);
    }

    double recall() {
      return (double) tp / (tp + fn);
    }

    String csv() {
      double[] floor = FLOORS.get(rule);
      return String.format(Locale.ROOT, "%s,%d,%d,%d,%d,%d,%d,%d,%.4f,%.4f,%.2f,%.2f", rule,
          positives, negatives, nearMisses, tp, fp, fn, nearMissFp, precision(), recall(),
          floor[0], floor[1]);
    }
  }

  static Detector detectorFor(String rule) {
    if (rule.startsWith("secret.")) {
      return SecretDetector.ofDefaults();
    }
    if (rule.startsWith("pii.")) {
      return PiiDetector.ofDefaults();
    }
    if (rule.startsWith("injection.")) {
      return PromptInjectionDetector.ofDefaults();
    }
    return BlockedPatterns.builder("pattern.blocked")
        .literals(CorpusGenerator.blockedLiterals())
        .regex(CorpusGenerator.blockedRegexes().get(0))
        .regex(CorpusGenerator.blockedRegexes().get(1))
        .build();
  }

  static List<CorpusGenerator.Sample> load(String rule) throws IOException {
    try (InputStream in = CorpusQualityTest.class.getResourceAsStream(
        "/guardrail/corpus/" + rule + ".tsv")) {
      assertThat(in).as("corpus for %s", rule).isNotNull();
      return CorpusGenerator.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  static Quality measure(String rule, List<CorpusGenerator.Sample> samples) {
    Detector detector = detectorFor(rule);
    int positives = 0;
    int negatives = 0;
    int near = 0;
    int tp = 0;
    int fp = 0;
    int fn = 0;
    int nearFp = 0;
    List<Finding> found = new ArrayList<>();
    for (CorpusGenerator.Sample s : samples) {
      found.clear();
      detector.scan(s.text(), found);
      boolean hit = found.stream().anyMatch(f -> f.rule().equals(rule));
      if (s.positive()) {
        positives++;
        if (hit) {
          tp++;
        } else {
          fn++;
        }
      } else {
        negatives++;
        boolean isNear = s.kind().equals("near_miss");
        if (isNear) {
          near++;
        }
        if (hit) {
          fp++;
          if (isNear) {
            nearFp++;
          }
        }
      }
    }
    return new Quality(rule, positives, negatives, near, tp, fp, fn, nearFp);
  }

  @Test
  void everyDetectorMeetsItsPrecisionAndRecallFloorsOnItsCorpus() throws IOException {
    StringBuilder csv = new StringBuilder("rule,positives,negatives,near_misses,tp,fp,fn,"
        + "near_miss_fp,precision,recall,precision_floor,recall_floor\n");
    List<String> failures = new ArrayList<>();
    for (Map.Entry<String, double[]> e : FLOORS.entrySet()) {
      Quality q = measure(e.getKey(), load(e.getKey()));
      assertThat(q.positives()).as(q.rule()).isGreaterThanOrEqualTo(200);
      assertThat(q.negatives()).as(q.rule()).isGreaterThanOrEqualTo(200);
      assertThat(q.nearMisses()).as(q.rule()).isGreaterThanOrEqualTo(100);
      if (q.precision() < e.getValue()[0] || q.recall() < e.getValue()[1]) {
        failures.add(q.csv());
      }
      csv.append(q.csv()).append('\n');
    }
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(QUALITY, csv.toString(), StandardCharsets.UTF_8);
    }
    System.out.print(csv);
    assertThat(failures).as("rules below their floors").isEmpty();
    assertThat(Files.readString(QUALITY, StandardCharsets.UTF_8))
        .as("committed quality.csv (rewrite with -Dguardrail.writeQuality=true)")
        .isEqualTo(csv.toString());
  }

  @Test
  void committedCorporaAreExactlyWhatTheGeneratorProduces() throws IOException {
    Map<String, List<CorpusGenerator.Sample>> generated = CorpusGenerator.generate();
    assertThat(generated.keySet()).containsExactlyInAnyOrderElementsOf(FLOORS.keySet());
    for (Map.Entry<String, List<CorpusGenerator.Sample>> e : generated.entrySet()) {
      assertThat(load(e.getKey())).as(e.getKey()).isEqualTo(
          CorpusGenerator.parse(CorpusGenerator.render(e.getValue())));
    }
  }
}
