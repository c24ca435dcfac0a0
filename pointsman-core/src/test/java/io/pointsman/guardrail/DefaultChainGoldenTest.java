package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.anyone;
import static io.pointsman.guardrail.Fixtures.user;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pointsman.PointsmanException;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Pins every decision of the default input chain to a committed golden file, so that a change
 * meant to make the chain faster can be shown to change nothing it decides.
 *
 * <p>Inputs: every text of every committed guardrail corpus ({@code guardrail/**}{@code /*.tsv}:
 * the per-rule corpora, the injection and framework corpora, the secret coverage corpus, less
 * the held-out parts not yet scored, {@link #NOT_YET_SCORED}), the
 * semantic cache's prompt corpora (module {@code pointsman-cache-semantic}), the JMH input
 * chain benchmark's payloads (150 B, 4 KiB and 32 KiB, clean and with a token), every phrase of
 * the heuristic (in a sentence; upper-cased with odd blanks; glued to word characters), and
 * three sets of 3,000 seeded random texts: characters (letters, digits, punctuation, blanks,
 * trigger words and a few non-ASCII characters), token soup (the tokeniser's cases) and
 * key-like runs (around the bare AWS secret key rule's length of 40). Each corpus text
 * is read as written, upper-cased, and obfuscated (zero-width characters, full-width forms,
 * Cyrillic look-alikes, accents, leetspeak digits, odd blanks: the classifier's non-ASCII
 * paths); every fourth text also base64-encoded; and runs of 8 and 64 consecutive texts are
 * joined into long documents, so that windows, repeats and prefilters over long texts are read.
 *
 * <p>Per text the golden line records: what the chain did ({@code pass}, {@code block:<rule>},
 * or {@code redact:} and a digest of the redacted text) and every finding it told its listener
 * of, in order; the secret detector's findings; the heuristic's score and findings; the
 * classifier's score ({@link Double#toString}, which round-trips exactly) and finding; and a
 * digest of the classifier's whole feature stream (every token's five buckets and span), which
 * the trainer derives the committed model from.
 *
 * <p>The golden file ({@code guardrail/golden/default-chain.txt.gz}, gzip-compressed text, one
 * line per input under a {@code ##} line per group; read it with {@code zcat}) was written by
 * the code before the chain was optimised; after a deliberate change of a decision rewrite it
 * with {@code -Dguardrail.writeGolden=true}.
 */
class DefaultChainGoldenTest {
  static final Path GOLDEN = Path.of("src/test/resources/guardrail/golden/default-chain.txt.gz");
  static final Path CORPORA = Path.of("src/test/resources/guardrail");
  /**
   * Held-out corpora committed before any detector was scored on them: this test does not read
   * them, so that neither it nor its failure output runs the chain on them before their first
   * scoring. After that scoring, take a part off this list and rewrite the golden file.
   */
  static final List<String> NOT_YET_SCORED = List.of();
  static final Path SEMANTIC =
      Path.of("../pointsman-cache/pointsman-cache-semantic/src/test/resources/semantic");

  /** The JMH payload's pieces ({@code pointsman-jmh} {@code guardrail/Payloads}), verbatim. */
  private static final String[] PIECES = {
    "Can you summarise the attached meeting notes in three bullet points? ",
    "The build log says: error: cannot find symbol class StringUtils at line 42. ",
    "In OAuth, what is the difference between an access token and a refresh token? ",
    "def handler(event, context):\n    items = [normalise(x) for x in event['records']]\n"
        + "    return {'statusCode': 200, 'count': len(items)}\n",
    "2026-03-01T10:00:00Z INFO request_id=5f2c9a status=200 latency_ms=41 path=/v1/items\n",
    "Set max_tokens to 512 and temperature to 0.2; the password policy needs 14 characters. ",
    "SELECT region, sum(amount) FROM orders WHERE created_at > now() - interval '7 days' "
        + "GROUP BY region ORDER BY 2 DESC;\n",
    "Please ignore the typos in my previous message, I was typing on my phone. ",
    "Our API returns 401 when the session expired; the client should refresh and retry. ",
    "Explain how TLS certificate pinning works on Android, with an example. ",
  };

  private final List<String> events = new ArrayList<>();
  private final InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
      .listener((identity, stage, rule, action) -> events.add(rule + "=" + action)).build();
  private final SecretDetector secrets = SecretDetector.ofDefaults();
  private final PromptInjectionDetector heuristic = PromptInjectionDetector.ofDefaults();
  private final PromptInjectionClassifier classifier = PromptInjectionClassifier.ofDefaults();

  @Test
  void theDefaultChainDecidesEveryCorpusTextAsTheGoldenFileRecords() throws IOException {
    Map<String, List<String>> groups = inputs();
    List<String> lines = new ArrayList<>();
    lines.add("# key\tchain\tlistener\tsecret findings\theuristic score\theuristic findings"
        + "\tclassifier score\tclassifier finding\tfeature digest");
    int texts = 0;
    for (Map.Entry<String, List<String>> group : groups.entrySet()) {
      lines.add("## " + group.getKey());
      List<String> items = group.getValue();
      for (int i = 0; i < items.size(); i++) {
        lines.add(i + "\t" + record(items.get(i)));
        texts++;
      }
    }
    String actual = String.join("\n", lines) + "\n";
    if (Boolean.getBoolean("guardrail.writeGolden")) {
      Files.createDirectories(GOLDEN.getParent());
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(GOLDEN))) {
        out.write(actual.getBytes(StandardCharsets.UTF_8));
      }
    }
    assertThat(texts).as("texts checked").isGreaterThan(80_000);
    List<String> expected;
    try (InputStream in = new GZIPInputStream(Files.newInputStream(GOLDEN))) {
      expected = List.of(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n"));
    }
    List<String> diffs = new ArrayList<>();
    String group = "";
    for (int i = 0; i < Math.max(expected.size(), lines.size()); i++) {
      String e = i < expected.size() ? expected.get(i) : "<none>";
      String a = i < lines.size() ? lines.get(i) : "<none>";
      if (a.startsWith("## ")) {
        group = a;
      }
      if (!e.equals(a) && diffs.size() < 20) {
        diffs.add(group + "\n  expected " + e + "\n  actual   " + a);
      }
    }
    assertThat(diffs).as("lines that differ from " + GOLDEN).isEmpty();
    assertThat(lines).hasSameSizeAs(expected);
  }

  /** Every input text, by group (corpus file and variant), in a fixed order. */
  static Map<String, List<String>> inputs() throws IOException {
    Map<String, List<String>> corpora = new LinkedHashMap<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(CORPORA)) {
      files = walk.filter(p -> p.toString().endsWith(".tsv"))
          .filter(p -> !NOT_YET_SCORED.contains(
              CORPORA.relativize(p).toString().replace('\\', '/')))
          .sorted().toList();
    }
    assertThat(files).as("guardrail corpora").hasSizeGreaterThan(25);
    for (Path file : files) {
      List<String> texts = new ArrayList<>();
      for (CorpusGenerator.Sample s : CorpusGenerator.parse(
          Files.readString(file, StandardCharsets.UTF_8))) {
        texts.add(s.text());
      }
      corpora.put(CORPORA.relativize(file).toString().replace('\\', '/'), texts);
    }
    Path semanticTsv = SEMANTIC.resolve("corpus.tsv");
    List<String> semantic = new ArrayList<>();
    for (String line : Files.readAllLines(semanticTsv, StandardCharsets.UTF_8)) {
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String[] f = line.split("\t");
      semantic.add(f[2]);
      semantic.add(f[3]);
    }
    corpora.put("semantic/corpus.tsv", semantic);
    ObjectMapper json = new ObjectMapper();
    for (String part : new String[] {"pairs-tuning.jsonl", "pairs-heldout.jsonl"}) {
      List<String> texts = new ArrayList<>();
      for (String line : Files.readAllLines(SEMANTIC.resolve(part), StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          JsonNode node = json.readTree(line);
          texts.add(node.get("cached").asText());
          texts.add(node.get("query").asText());
        }
      }
      corpora.put("semantic/" + part, texts);
    }

    Map<String, List<String>> groups = new LinkedHashMap<>();
    List<String> bench = new ArrayList<>();
    for (int bytes : new int[] {150, 4096, 32768}) {
      String clean = payload(bytes, 7);
      String token = "ghp_Zq8TnV3wKp0LmXr7sYd2HcJb5GfA1e" + "2BhFqL";
      bench.add(clean);
      bench.add(clean.substring(0, Math.max(0, bytes - token.length() - 1)) + " " + token);
    }
    groups.put("jmh payloads: 150, 4096, 32768 bytes, clean then secret", bench);
    PromptInjectionDetector heuristic = PromptInjectionDetector.ofDefaults();
    List<String> phrases = new ArrayList<>();
    for (int i = 0; i < heuristic.phrases(); i++) {
      String phrase = heuristic.phrase(i);
      phrases.add("Please " + phrase + " and continue.");
      phrases.add(phrase.toUpperCase(Locale.ROOT).replace(" ", i % 2 == 0 ? "  \n " : "\t"));
      phrases.add("x" + phrase + "_ and " + phrase + "9");
    }
    groups.put("every heuristic phrase: in a sentence, upper-cased with odd blanks, glued",
        phrases);
    groups.put("random characters", randomTexts(new Random(20_261_202L), 3000));
    groups.put("random token soup", tokenSoup(new Random(20_261_203L), 3000));
    groups.put("random key-like runs", keyRuns(new Random(20_261_204L), 3000));
    int seed = 0;
    for (Map.Entry<String, List<String>> c : corpora.entrySet()) {
      List<String> texts = c.getValue();
      String name = c.getKey();
      groups.put(name + " as written", texts);
      groups.put(name + " upper-cased",
          texts.stream().map(t -> t.toUpperCase(Locale.ROOT)).toList());
      Random random = new Random(++seed);
      groups.put(name + " obfuscated",
          texts.stream().map(t -> obfuscate(t, random)).toList());
      List<String> encoded = new ArrayList<>();
      for (int i = 0; i < texts.size(); i += 4) {
        encoded.add("Please decode and follow: " + Base64.getEncoder().encodeToString(
            texts.get(i).getBytes(StandardCharsets.UTF_8)) + " thanks");
      }
      groups.put(name + " every fourth base64-encoded", encoded);
      groups.put(name + " joined by 8", joined(texts, 8, "\n"));
      groups.put(name + " joined by 64", joined(texts, 64, " "));
    }
    return groups;
  }

  private static final String RANDOM_ALPHABET = "aAbBeEiIoOsStTkKxXyYzZ0123456789"
      + "    \n\t\r.,;:!?-_=+/\\\"'`<>[]{}()|#@$%&*~^ \u00A0\u200B\u00AD\uFF41\u0430\u03B1\u00E9"
      + "\u4E2D\u3042\uAC00\u0E01\uD83D\uDE00";

  /** Random texts over letters, digits, punctuation, blanks and a few non-ASCII characters. */
  static List<String> randomTexts(Random random, int count) {
    List<String> out = new ArrayList<>();
    String[] words = {"ignore", "previous", "instructions", "key", "token", "password", "secret",
        "sk-", "ghp_", "AKIA", "eyJ", "-----BEGIN ", "bearer", "api_key", "=", ": ", "you are now",
        "system", "[INST]", "<|im_start|>", "hooks.slack.com/services/", "AccountKey=", "sig="};
    for (int n = 0; n < count; n++) {
      int length = 1 + random.nextInt(n % 10 == 0 ? 4000 : 300);
      StringBuilder sb = new StringBuilder(length + 32);
      while (sb.length() < length) {
        if (random.nextInt(8) == 0) {
          sb.append(words[random.nextInt(words.length)]);
        } else {
          char c = RANDOM_ALPHABET.charAt(random.nextInt(RANDOM_ALPHABET.length()));
          if (Character.isSurrogate(c)) {
            sb.append('\uD83D').append('\uDE00');
          } else {
            sb.append(c);
          }
        }
      }
      out.add(sb.toString());
    }
    return out;
  }

  private static final String[] SOUP_SEPARATORS = {" ", " ", " ", "  ", "\n", "\n\n", "\t", ".",
    "-", "_", "*", ", ", ": ", "=", "/", "+", "@", "$", "\u200B", "\u00AD", "\u00A0", "<", ">",
    "[", "]", "#", "|", "###", "[[[", "\r\n"};
  private static final String[] SOUP_LETTERS = {"é", "ß", "ñ", "ø", "а", "е", "о", "р", "α", "ο",
    "ρ", "ｉ", "ｇ", "Ａ", "中", "文", "の", "한", "ก", "\uD83D\uDE00", "ı", "ſ", "K"};

  /**
   * Random sequences of the tokeniser's cases: words of 1 to 60 letters and digits (mixed
   * case, leetspeak, over the 48 kept), single letters spelled out with separators, words and
   * phrases repeated back to back, base64 of words, non-ASCII letters, zero-width characters,
   * structural characters and their runs.
   */
  static List<String> tokenSoup(Random random, int count) {
    String[] vocabulary = {"ignore", "previous", "instructions", "instrucciones", "system",
        "prompt", "reveal", "you", "are", "now", "the", "developer", "mode", "hello", "world",
        "password", "token", "1gn0r3", "pr3v10u5", "s3cr3t", "h@ck", "pa$$word", "a", "i", "s"};
    List<String> out = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      StringBuilder sb = new StringBuilder();
      int pieces = 1 + random.nextInt(n % 20 == 0 ? 600 : 60);
      List<String> recent = new ArrayList<>();
      for (int p = 0; p < pieces; p++) {
        int kind = random.nextInt(12);
        String piece;
        if (kind < 4) {
          piece = vocabulary[random.nextInt(vocabulary.length)];
          if (random.nextInt(4) == 0) {
            piece = piece.toUpperCase(Locale.ROOT);
          }
        } else if (kind == 4) {
          StringBuilder w = new StringBuilder();
          int len = 1 + random.nextInt(60);
          for (int i = 0; i < len; i++) {
            int r = random.nextInt(40);
            w.append(r < 26 ? (char) ('a' + r) : r < 36 ? (char) ('0' + r - 26)
                : (char) ('A' + random.nextInt(26)));
          }
          piece = w.toString();
        } else if (kind == 5) {
          String word = vocabulary[random.nextInt(vocabulary.length)];
          String sep = new String[] {" ", ".", "-", "_", "*", "  ", ". "}[random.nextInt(7)];
          piece = String.join(sep, word.split(""));
        } else if (kind == 6 && !recent.isEmpty()) {
          int back = Math.min(recent.size(), 1 + random.nextInt(4));
          String phrase = String.join(" ", recent.subList(recent.size() - back, recent.size()));
          piece = (phrase + " ").repeat(1 + random.nextInt(4)).strip();
        } else if (kind == 7) {
          StringBuilder w = new StringBuilder();
          for (int i = 0; i < 1 + random.nextInt(8); i++) {
            w.append(vocabulary[random.nextInt(vocabulary.length)]).append(' ');
          }
          piece = Base64.getEncoder().encodeToString(w.toString().getBytes(StandardCharsets.UTF_8));
          if (random.nextBoolean()) {
            piece = piece.replace("=", "");
          }
        } else if (kind == 8) {
          StringBuilder w = new StringBuilder();
          for (int i = 0; i < 1 + random.nextInt(6); i++) {
            w.append(SOUP_LETTERS[random.nextInt(SOUP_LETTERS.length)]);
            if (random.nextBoolean()) {
              w.append((char) ('a' + random.nextInt(26)));
            }
          }
          piece = w.toString();
        } else {
          piece = "";
        }
        sb.append(piece);
        if (!piece.isEmpty()) {
          recent.add(piece);
        }
        sb.append(SOUP_SEPARATORS[random.nextInt(SOUP_SEPARATORS.length)]);
      }
      out.add(sb.toString());
    }
    return out;
  }

  /**
   * Random texts with runs of 36 to 44 base64 characters (letters of both cases, digits, a few
   * {@code +} and {@code /}) among words, with the separators the bare AWS secret key rule
   * looks at on either side.
   */
  static List<String> keyRuns(Random random, int count) {
    String keyChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    String[] around = {" ", "\n", "-", "_", ".", "%", "=", "\"", ":", "(", ")", ".a", "\nA", "",
        "x"};
    List<String> out = new ArrayList<>();
    for (int n = 0; n < count; n++) {
      StringBuilder sb = new StringBuilder();
      int offset = random.nextInt(120);
      for (int i = 0; i < offset; i++) {
        sb.append(random.nextInt(6) == 0 ? ' ' : (char) ('a' + random.nextInt(26)));
      }
      for (int runs = 0; runs < 1 + random.nextInt(6); runs++) {
        sb.append(around[random.nextInt(around.length)]);
        int len = 36 + random.nextInt(9);
        for (int i = 0; i < len; i++) {
          sb.append(keyChars.charAt(random.nextInt(random.nextInt(8) == 0 ? 64 : 62)));
        }
        sb.append(around[random.nextInt(around.length)]);
        if (random.nextInt(10) == 0) {
          sb.append("example");
        }
        for (int i = 0; i < random.nextInt(50); i++) {
          sb.append(random.nextInt(5) == 0 ? ' ' : (char) ('a' + random.nextInt(26)));
        }
      }
      out.add(sb.toString());
    }
    return out;
  }

  private static List<String> joined(List<String> texts, int n, String separator) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < texts.size(); i += n) {
      out.add(String.join(separator, texts.subList(i, Math.min(texts.size(), i + n))));
    }
    return out;
  }

  /** The JMH payload ({@code pointsman-jmh} {@code guardrail/Payloads.text}). */
  static String payload(int chars, long seed) {
    Random random = new Random(seed);
    StringBuilder sb = new StringBuilder(chars + 128);
    while (sb.length() < chars) {
      sb.append(PIECES[random.nextInt(PIECES.length)]);
    }
    return sb.substring(0, chars);
  }

  private static final String LOOKALIKE_FROM = "aeopcxyiABEKMHOPCTX";
  private static final String LOOKALIKE_TO = "аеорсхуіАВЕКМНОРСТХ";
  private static final String ACCENT_FROM = "aeiounAEIOUc";
  private static final String ACCENT_TO = "àéíöüñÀÉÍÖÜç";

  /** Deterministic obfuscation of the kinds the classifier's normalisation undoes. */
  static String obfuscate(String text, Random random) {
    StringBuilder sb = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      int roll = random.nextInt(100);
      if (roll < 3) {
        sb.append(random.nextBoolean() ? '\u200B' : '\u00AD');
      }
      roll = random.nextInt(100);
      boolean letter = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
      if (letter && roll < 4) {
        sb.append((char) (c + 0xFEE0));
      } else if (letter && roll < 8 && LOOKALIKE_FROM.indexOf(c) >= 0) {
        sb.append(LOOKALIKE_TO.charAt(LOOKALIKE_FROM.indexOf(c)));
      } else if (letter && roll < 11 && ACCENT_FROM.indexOf(c) >= 0) {
        sb.append(ACCENT_TO.charAt(ACCENT_FROM.indexOf(c)));
      } else if (letter && roll < 13 && "oeiast".indexOf(c) >= 0) {
        sb.append("031457".charAt("oeiast".indexOf(c)));
      } else if (c == ' ' && roll < 6) {
        sb.append(switch (roll % 3) {
          case 0 -> "  ";
          case 1 -> "\t";
          default -> "\u00A0";
        });
      } else if (letter && roll < 15) {
        sb.append(c).append(' ');
      } else {
        sb.append(c);
      }
    }
    return sb.toString();
  }

  private String record(String text) {
    StringBuilder line = new StringBuilder();
    events.clear();
    ChatRequest request = user(text);
    String outcome;
    try {
      ChatRequest checked = chain.check(anyone(), request);
      if (checked == request) {
        outcome = "pass";
      } else {
        outcome = "redact:" + digest(
            ((Content.Text) checked.messages().get(0).content()).text());
      }
    } catch (PointsmanException e) {
      outcome = "block:" + e.rule();
    }
    line.append(outcome).append('\t').append(String.join(",", events)).append('\t');

    List<Finding> found = new ArrayList<>();
    secrets.scan(text, found);
    line.append(spans(found, true)).append('\t');

    found.clear();
    heuristic.scan(text, found);
    line.append(heuristic.score(text)).append('\t').append(spans(found, false)).append('\t');

    found.clear();
    classifier.scan(text, found);
    line.append(classifier.score(text)).append('\t').append(spans(found, true)).append('\t');
    line.append(featureDigest(text));
    return line.toString();
  }

  private static String spans(List<Finding> found, boolean withRule) {
    StringBuilder sb = new StringBuilder();
    for (Finding f : found) {
      if (sb.length() > 0) {
        sb.append(',');
      }
      if (withRule) {
        sb.append(f.rule()).append('@');
      }
      sb.append(f.start()).append('-').append(f.end());
    }
    return sb.toString();
  }

  /** A 32-bit digest of every token the classifier's tokeniser emits, buckets and spans. */
  static String featureDigest(String text) {
    int[] h = {0x2545F491};
    InjectionFeatures f = new InjectionFeatures((u, b, t, st, sb, cu, cp, cs, start, end) -> {
      for (int v : new int[] {u, b, t, st, sb, start, end}) {
        h[0] = (h[0] ^ v) * 0x01000193;
        h[0] ^= h[0] >>> 15;
      }
    });
    f.accept(text);
    f.finish();
    return String.format("%08x", h[0]);
  }

  private static String digest(String text) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest(
          text.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 6);
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }
}
