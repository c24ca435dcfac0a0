package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The secret detector on test strings written outside this project: the literal examples of
 * gitleaks' rules ({@code guardrail/secrets/external}, its {@code SOURCES.md} says what was
 * taken). The figures are the committed {@code secret-external-quality.csv} (rewrite with
 * {@code -Dguardrail.writeQuality=true}); floors keep them from falling, and each credential
 * shape these strings showed the detector missing, and each non-secret it reported, is pinned
 * below with the string that showed it.
 */
class ExternalSecretCorpusTest {
  static final Path DIR = Path.of("src/test/resources/guardrail/secrets/external");
  static final Path QUALITY = Path.of("src/test/resources/guardrail/secret-external-quality.csv");
  /** gitleaks rule files for credentials docs/guardrails.md says the detector covers. */
  static final Set<String> COVERED = Set.of("aws", "azure", "gcp", "generic", "github",
      "gitlab", "jwt", "npm", "openai", "anthropic", "privatekey", "slack", "stripe",
      "huggingface", "sendgrid", "curl");

  private static List<CorpusGenerator.Sample> corpus() throws IOException {
    return CorpusGenerator.parse(Files.readString(DIR.resolve("gitleaks.tsv"),
        StandardCharsets.UTF_8));
  }

  private static boolean flagged(String text) {
    List<Finding> found = new ArrayList<>();
    SecretDetector.ofDefaults().scan(text, found);
    return !found.isEmpty();
  }

  @Test
  void fileIsTheRecordedOne() throws IOException {
    String sources = Files.readString(DIR.resolve("SOURCES.md"), StandardCharsets.UTF_8);
    String digest = InjectionTrainer.sha256(Files.readAllBytes(DIR.resolve("gitleaks.tsv")));
    assertThat(sources).contains("| `gitleaks.tsv` | `" + digest + "` |");
  }

  @Test
  void figuresAreTheCommittedOnesAndStayAtTheirFloors() throws IOException {
    Map<String, int[]> t = new TreeMap<>();
    for (CorpusGenerator.Sample s : corpus()) {
      boolean hit = flagged(s.text());
      String label = s.positive() ? "pos" : "neg";
      List<String> keys = new ArrayList<>(List.of(label + ",all", label + "," + s.kind()));
      if (COVERED.contains(s.kind())) {
        keys.add(label + ",covered");
      }
      for (String k : keys) {
        int[] c = t.computeIfAbsent(k, x -> new int[2]);
        c[0]++;
        c[1] += hit ? 1 : 0;
      }
    }
    StringBuilder csv = new StringBuilder("label,kind,texts,flagged,flagged_share\n");
    t.forEach((k, c) -> csv.append(String.format(Locale.ROOT, "%s,%d,%d,%.4f%n", k, c[0], c[1],
        (double) c[1] / c[0])));
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(QUALITY, csv.toString(), StandardCharsets.UTF_8);
    }
    System.out.print(csv);
    assertThat(share(t, "pos,all")).as("all positives").isGreaterThanOrEqualTo(0.77);
    assertThat(share(t, "pos,covered")).as("positives of covered kinds")
        .isGreaterThanOrEqualTo(0.96);
    assertThat(share(t, "neg,generic")).as("generic negatives flagged").isLessThanOrEqualTo(0.06);
    assertThat(Files.readString(QUALITY, StandardCharsets.UTF_8))
        .as("committed secret-external-quality.csv").isEqualTo(csv.toString());
  }

  private static double share(Map<String, int[]> t, String key) {
    int[] c = t.get(key);
    return (double) c[1] / c[0];
  }

  /** Strings of the external corpus that the detector missed before, one per shape. */
  @Test
  void shapesTheExternalStringsShowedAreReported() {
    for (String text : List.of(
        "curl --cacert ca.crt -u elastic:P@ssw0rd$1 https://localhost:9200",
        "curl --user roger23@gmail.com:pQ9wTxu4Fg https://www.dropbox.com/cli_link",
        "curl -u \"d2LkV78zLx!t:\" https://localhost:9200",
        "https://cafeb4b3:d3adb33f@enterprise.contribsys.com/",
        "curl -X POST --header \"Authorization: Basic djJlNEpYa0NJUHZ5a2FWT0VRXzRqZmZUdDkwYTp2emN\"",
        "curl -H \"Authorization: Token 22cb987851bc5659229114c62e60c79abd0d2c08\" --request PUT",
        "Set-PSUAuthenticationMethod -ClientSecret '2Vq7Q~q5VgKljZ7cb3.0sp0Apz.vOjRIPyeTr'",
        "Example= GN.7Q~4AkLZBNEbz4Jxlm~O5G6SsyFxYg6zMR",
        "http://hooks.slack.com/services/T024TTTTT/BBB72BBL/AZAAA9u0pA4ad666eMgbi555",
        "https://hooks.slack.com/workflows/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"
            + "F6Vm03reCkhPmwBtaqbN6OW9",
        "\"access_token\": \"xoxa-2-511111111-31111111111-3111111111111-e039d02840a0b9379c\"",
        "\"bot_token9\": \"xoxb-50014434-slacktokenx29U9X1bQ\"",
        "rk_prod_51OuEMLAlTWGaDypquDn9aZigaJOsa9NR1w1BxZXs9JlYsVVkv5XDu6aLmAxwt5Tgun5WcSwQMKzQ",
        "os.environ['HUGGINGFACEHUB_API_TOKEN'] = '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'",
        "ABSKQmVkcm9ja0FQSUtleS1EXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLE"
            + "EXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXAMPLEEXM=",
        "EAAM9GOnCB9kBO2frzOAWGN2zMnZClQshlWydZCrBNdodesbwimx1mfVJgqZBP5RSpMfUzWhtjTTXHG5I1Ulvl"
            + "wRZCgjm3ZBVGeTYiqAAoxyED6HaUdhpGVNoPUwAuAWWFsi9OvyYBQt22DGLqMIgD7VktuCTTZCW")) {
      assertThat(flagged(text)).as(text).isTrue();
    }
  }

  /** Strings that are no secret, or a documented placeholder, that the detector reported. */
  @Test
  void nonSecretsTheExternalStringsShowedAreLeftAlone() {
    for (String text : List.of(
        "publicToken = \"9Cnzj4p4WGeKLs1Pt8QuKUpRKfFLfRYC9AIKjbJTWit\"",
        "csrf-token=Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxmiW9rhROG/Whikle15syazJOkrjJa",
        "aws_access_key: AKIAIOSFODNN7EXAMPLE",
        "github_pat_xxxxxxxxxxxxxxxxxxxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
            + "xxxxxx",
        "curl -i -u 'test:test'",
        "curl http://127.0.0.1:5000/file --user user:pass --digest",
        "docker run -u 1000:1000 image",
        "git push -u origin main",
        "psql postgres://app:${DB_PASSWORD}@db:5432/app",
        "See https://user:password@example.com for the format")) {
      assertThat(flagged(text)).as(text).isFalse();
    }
  }
}
