package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The external injection corpora ({@code guardrail/injection/external}, texts written outside
 * this project) are the files their {@code SOURCES.md} records, split as it says: every text
 * of {@code tuning.tsv} has an even first byte of its SHA-256, every text of {@code
 * heldout.tsv} an odd one, every text of {@code gpts.tsv} a first byte divisible by 4; no text
 * is in two files or in any of the project's own parts; none of the shared prompts names DAN or
 * a jailbreak; and each kind holds the number of texts the documentation quotes.
 */
class ExternalCorpusTest {
  static final Path DIR = Path.of("src/test/resources/guardrail/injection/external");
  // The word DAN with letters of any script as word characters, spelled out: \b reads
  // non-ASCII letters as boundaries from JDK 19 on, so "...ğdan" matched on 21 and 25 only.
  private static final Pattern LEFT_OUT = Pattern.compile(
      "(?<![\\p{L}\\p{N}_])DAN(?![\\p{L}\\p{N}_])|jailbr", Pattern.CASE_INSENSITIVE);

  private static String key(String text) {
    return String.join(" ", text.toLowerCase(Locale.ROOT).trim().split("\\s+"));
  }

  @Test
  void filesAreTheRecordedOnes() throws IOException {
    String sources = Files.readString(DIR.resolve("SOURCES.md"), StandardCharsets.UTF_8);
    for (String name : List.of("tuning.tsv", "heldout.tsv", "gpts.tsv")) {
      String digest = InjectionTrainer.sha256(Files.readAllBytes(DIR.resolve(name)));
      assertThat(sources).as(name).contains("| `" + name + "` | `" + digest + "` |");
    }
  }

  @Test
  void splitRulesHoldAndNoTextIsInTwoPlaces() throws IOException {
    Map<String, String> seen = new HashMap<>();
    for (String name : List.of("tuning", "heldout", "gpts")) {
      for (CorpusGenerator.Sample s : InjectionModelTest.part("external/" + name)) {
        int first = InjectionTrainer.digest(s.text().getBytes(StandardCharsets.UTF_8))[0] & 0xff;
        int expected = name.equals("tuning") ? 0 : 1;
        if (name.equals("gpts")) {
          assertThat(first % 4).as(s.text()).isZero();
          assertThat(s.positive()).isFalse();
        } else {
          assertThat(first % 2).as(name + ": " + s.text()).isEqualTo(expected);
        }
        assertThat(s.text()).isEqualTo(s.text().strip()).doesNotContain("\r");
        if (s.kind().equals("benign.prompts") || s.kind().equals("benign.gpt_instructions")) {
          assertThat(LEFT_OUT.matcher(s.text()).find()).as(s.text()).isFalse();
        }
        String before = seen.put(key(s.text()), name);
        assertThat(before).as("in " + before + " and " + name + ": " + s.text()).isNull();
      }
    }
    try (Stream<Path> files = Files.list(DIR.getParent())) {
      for (Path p : files.filter(f -> f.toString().endsWith(".tsv")).toList()) {
        for (CorpusGenerator.Sample s : CorpusGenerator.parse(
            Files.readString(p, StandardCharsets.UTF_8))) {
          assertThat(seen).as(p.getFileName() + ": " + s.text()).doesNotContainKey(key(s.text()));
        }
      }
    }
  }

  @Test
  void kindsHoldTheDocumentedNumbers() throws IOException {
    assertThat(kinds("tuning")).isEqualTo(Map.of("attack.dan", 5, "attack.inthewild", 326,
        "attack.promptinject", 3, "attack.sysprompt", 12, "benign.donotanswer", 475,
        "benign.harmbench", 100, "benign.normal", 3, "benign.prompts", 487));
    assertThat(kinds("heldout")).isEqualTo(Map.of("attack.dan", 7, "attack.inthewild", 320,
        "attack.promptinject", 13, "attack.sysprompt", 16, "benign.donotanswer", 463,
        "benign.harmbench", 100, "benign.normal", 2, "benign.prompts", 456));
    assertThat(kinds("gpts")).isEqualTo(Map.of("benign.gpt_instructions", 353));
  }

  private static Map<String, Integer> kinds(String name) throws IOException {
    Map<String, Integer> out = new TreeMap<>();
    for (CorpusGenerator.Sample s : InjectionModelTest.part("external/" + name)) {
      assertThat(s.positive()).as(s.kind()).isEqualTo(s.kind().startsWith("attack."));
      out.merge(s.kind(), 1, Integer::sum);
    }
    return out;
  }
}
