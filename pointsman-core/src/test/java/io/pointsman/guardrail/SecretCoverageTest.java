package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Secret coverage across providers on one corpus, {@code guardrail/secrets/coverage.tsv}: 30
 * fake credentials of each of 14 kinds (AWS key ids and bare secret access keys, Stripe live
 * and restricted keys, GitHub, GitLab with and without a digit, Google API keys, Azure storage
 * connection strings, npm, Slack, OpenAI, JWTs, private key blocks, generic credentials after a
 * credential word) in prose, code, logs and configuration, and 360 negatives that look random
 * (git SHAs, SHA-256 hex, UUIDs, base64 images and data, ids in URLs, lockfile integrity hashes,
 * build ids). A positive counts when redaction by {@link SecretDetector} leaves no 6-character
 * run of the value; a negative counts as a false positive when any secret rule reports. The
 * corpus is generated here (fixed seed) and must equal the committed file; the figures must
 * equal the committed {@code guardrail/secret-coverage.csv} quoted in {@code
 * docs/guardrails.md} (rewrite both with {@code -Dguardrail.writeQuality=true}).
 */
class SecretCoverageTest {
  static final Path CORPUS = Path.of("src/test/resources/guardrail/secrets/coverage.tsv");
  static final Path REPORT = Path.of("src/test/resources/guardrail/secret-coverage.csv");
  static final String ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  static final String B64 = ALNUM + "+/";

  private final Random r = new Random(20_261_201L);

  private String chars(String alphabet, int n) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append(alphabet.charAt(r.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  private String pick(String... options) {
    return options[r.nextInt(options.length)];
  }

  private String surround(String value) {
    return String.format(pick(
        "Here is the value: %s — can you check why the request fails?",
        "export TOKEN_VALUE=%s\n./deploy.sh",
        "{\"config\": {\"value\": \"%s\", \"region\": \"eu-west-1\"}}",
        "2026-11-30T10:00:00Z INFO using %s for upload",
        "curl -H 'Authorization: %s' https://api.example.test/v1/items",
        "settings:\n  value: %s\n  retries: 3",
        "My colleague pasted %s in the chat, is that a problem?",
        "| name | value |\n| prod | %s |"), value);
  }

  private final Map<String, Supplier<String>> kinds = new java.util.LinkedHashMap<>();

  {
    kinds.put("aws_access_key_id", () -> "AKIA" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16));
    kinds.put("aws_secret_bare", () -> {
      String s;
      do {
        s = chars(B64, 40);
      } while (!(s.matches(".*[A-Z].*") && s.matches(".*[a-z].*") && s.matches(".*[0-9].*")));
      return s;
    });
    kinds.put("stripe", () -> pick("sk_live_", "rk_live_", "sk_test_") + chars(ALNUM, 24 + r.nextInt(75)));
    kinds.put("github", () -> "github_pat_" + chars(ALNUM, 22) + "_" + chars(ALNUM, 59));
    kinds.put("gitlab_digit", () -> "glpat-" + chars(ALNUM, 19) + r.nextInt(10));
    kinds.put("gitlab_no_digit", () -> "glpat-" + chars("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", 10)
        + "Ab" + chars("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", 8));
    kinds.put("google_api", () -> "AIza" + chars(ALNUM + "-_", 35));
    kinds.put("azure_connection", () -> "DefaultEndpointsProtocol=https;AccountName=acct"
        + r.nextInt(1000) + ";AccountKey=" + chars(B64, 86) + "==");
    kinds.put("npm", () -> "npm_" + chars(ALNUM, 36));
    kinds.put("slack", () -> "xoxb-" + (1_000_000_000L + r.nextInt(900_000_000)) + "-"
        + (1_000_000_000L + r.nextInt(900_000_000)) + "-" + chars(ALNUM, 24));
    kinds.put("openai", () -> "sk-proj-" + chars(ALNUM, 20) + "T3BlbkFJ" + chars(ALNUM, 20));
    kinds.put("jwt", () -> Base64.getUrlEncoder().withoutPadding().encodeToString(
        "{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8)) + "."
        + Base64.getUrlEncoder().withoutPadding().encodeToString(("{\"sub\":\"" + r.nextInt()
        + "\"}").getBytes(StandardCharsets.UTF_8)) + "." + chars(ALNUM + "-_", 43));
    kinds.put("private_key", () -> "-----BEGIN PRIVATE KEY-----\n" + chars(B64, 64) + "\n"
        + chars(B64, 64) + "\n-----END PRIVATE KEY-----");
    kinds.put("generic_in_context", () -> pick("password: ", "api_key=", "the secret is ",
        "--token ", "client_secret = \"") + chars(ALNUM, 24));
  }

  private final Map<String, Supplier<String>> negatives = new java.util.LinkedHashMap<>();

  {
    negatives.put("git_sha", () -> "commit " + HexFormat.of().formatHex(bytes(20)));
    negatives.put("sha256", () -> "sha256sum: " + HexFormat.of().formatHex(bytes(32))
        + "  release.tar.gz");
    negatives.put("uuid", () -> "request id " + new UUID(r.nextLong(), r.nextLong()));
    negatives.put("base64_image", () -> "<img src=\"data:image/png;base64,"
        + Base64.getEncoder().encodeToString(bytes(120 + r.nextInt(200))) + "\">");
    negatives.put("base64_data", () -> "payload: " + Base64.getEncoder().encodeToString(
        bytes(48 + r.nextInt(64))));
    negatives.put("url_id", () -> "https://docs.example.test/d/" + chars(ALNUM + "-_", 33)
        + "/edit");
    negatives.put("lockfile", () -> "\"integrity\": \"sha512-" + Base64.getEncoder()
        .encodeToString(bytes(64)) + "\"");
    negatives.put("yarn_lock", () -> "  resolved \"https://registry.yarnpkg.test/x/-/x-1."
        + r.nextInt(9) + ".0.tgz#" + HexFormat.of().formatHex(bytes(20)) + "\"");
    negatives.put("build_id", () -> "build " + chars("abcdefghijklmnopqrstuvwxyz0123456789", 12)
        + " finished in " + r.nextInt(300) + " s");
    negatives.put("docker_digest", () -> "image@sha256:" + HexFormat.of().formatHex(bytes(32)));
    negatives.put("cache_key", () -> "cache key: " + HexFormat.of().formatHex(bytes(16)));
    negatives.put("prose", () -> pick("How do I rotate an API key safely?",
        "The password must have 14 characters.", "Our token bucket refills every second.",
        "Store the secret in Vault, never in git.", "What is a private key?",
        "Set the key to your own value before deploying."));
  }

  private byte[] bytes(int n) {
    byte[] b = new byte[n];
    r.nextBytes(b);
    return b;
  }

  List<CorpusGenerator.Sample> generate() {
    List<CorpusGenerator.Sample> out = new ArrayList<>();
    for (Map.Entry<String, Supplier<String>> k : kinds.entrySet()) {
      for (int i = 0; i < 30; i++) {
        String v = k.getValue().get();
        // What must not survive: the credential itself, not the name or the connection string
        // around it.
        String secret = k.getKey().equals("generic_in_context") ? v.substring(v.length() - 24)
            : k.getKey().equals("azure_connection") ? v.substring(v.indexOf("AccountKey=") + 11)
            : v;
        // The value is kept in the kind column after a tab-free separator, for the check.
        out.add(new CorpusGenerator.Sample(true, k.getKey() + "|" + secret.replace("\n", "\\n"),
            surround(v)));
      }
    }
    for (Map.Entry<String, Supplier<String>> k : negatives.entrySet()) {
      for (int i = 0; i < 30; i++) {
        out.add(new CorpusGenerator.Sample(false, k.getKey(), k.getValue().get()));
      }
    }
    return out;
  }

  static boolean leaks(String redactedText, String value) {
    String redacted = redactedText.replaceAll("\\[REDACTED:[a-z_.]+]", " ");
    for (int i = 0; i + 6 <= value.length(); i++) {
      String run = value.substring(i, i + 6);
      if (run.chars().allMatch(c -> Character.isLetterOrDigit(c)) && redacted.contains(run)) {
        return true;
      }
    }
    return false;
  }

  @Test
  void recallOnEveryProviderAndFalsePositivesOnRandomLookingDataMeetTheirFloors()
      throws IOException {
    String rendered = CorpusGenerator.render(generate());
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.createDirectories(CORPUS.getParent());
      Files.writeString(CORPUS, rendered, StandardCharsets.UTF_8);
    }
    String committed = Files.readString(CORPUS, StandardCharsets.UTF_8);
    assertThat(committed).isEqualTo(rendered);
    Map<String, int[]> tally = new TreeMap<>();
    int tp = 0;
    int pos = 0;
    int fp = 0;
    int neg = 0;
    for (CorpusGenerator.Sample s : CorpusGenerator.parse(committed)) {
      List<Finding> found = new ArrayList<>();
      SecretDetector.ofDefaults().scan(s.text(), found);
      if (s.positive()) {
        String kind = s.kind().substring(0, s.kind().indexOf('|'));
        String value = s.kind().substring(s.kind().indexOf('|') + 1).replace("\\n", "\n");
        String redacted = found.isEmpty() ? s.text() : RuleSet.redact(s.text(), found);
        boolean hit = !leaks(redacted, value);
        int[] t = tally.computeIfAbsent("positive." + kind, k -> new int[2]);
        t[0]++;
        pos++;
        if (hit) {
          t[1]++;
          tp++;
        }
      } else {
        int[] t = tally.computeIfAbsent("negative." + s.kind(), k -> new int[2]);
        t[0]++;
        neg++;
        if (!found.isEmpty()) {
          t[1]++;
          fp++;
        }
      }
    }
    StringBuilder csv = new StringBuilder("group,texts,detected,share\n");
    csv.append(String.format(Locale.ROOT, "positive.all,%d,%d,%.4f%n", pos, tp,
        (double) tp / pos));
    csv.append(String.format(Locale.ROOT, "negative.all,%d,%d,%.4f%n", neg, fp,
        (double) fp / neg));
    for (Map.Entry<String, int[]> e : tally.entrySet()) {
      csv.append(String.format(Locale.ROOT, "%s,%d,%d,%.4f%n", e.getKey(), e.getValue()[0],
          e.getValue()[1], (double) e.getValue()[1] / e.getValue()[0]));
    }
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(REPORT, csv.toString(), StandardCharsets.UTF_8);
    }
    System.out.print(csv);
    assertThat(pos).isGreaterThanOrEqualTo(300);
    assertThat(neg).isGreaterThanOrEqualTo(300);
    assertThat((double) tp / pos).as("secret recall").isGreaterThanOrEqualTo(0.98);
    assertThat((double) fp / neg).as("secret false positives").isLessThanOrEqualTo(0.01);
    assertThat(Files.readString(REPORT, StandardCharsets.UTF_8)).isEqualTo(csv.toString());
  }
}
