package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The third held-out injection corpus is what {@link ThirdHeldOutCorpusGenerator} writes, holds
 * at least 300 attacks and 300 benign texts, shares no text with the other parts, and shares no
 * sentence of 30 characters or more with them either: its wording is its own.
 */
class ThirdHeldOutCorpusTest {
  @Test
  void committedFileIsWhatTheGeneratorWritesAndIsLargeAndSeparate() throws IOException {
    String committed = new String(InjectionModelTest.resource("/guardrail/injection/third.tsv"),
        StandardCharsets.UTF_8);
    assertThat(committed).isEqualTo(
        CorpusGenerator.render(ThirdHeldOutCorpusGenerator.generate()));
    List<CorpusGenerator.Sample> third = CorpusGenerator.parse(committed);
    assertThat(third.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(300);
    assertThat(third.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(300);
    for (String kind : List.of("direct", "indirect", "role_marker", "obfuscated",
        "multilingual")) {
      assertThat(third).as(kind).anyMatch(s -> s.positive() && s.kind().equals(kind));
    }
    Set<String> others = new HashSet<>();
    List<String> otherTexts = new ArrayList<>();
    for (String part : List.of("tuning", "heldout", "fresh", "benign-text")) {
      InjectionModelTest.part(part).forEach(s -> {
        others.add(s.text());
        otherTexts.add(s.text().toLowerCase(java.util.Locale.ROOT));
      });
    }
    assertThat(third).noneMatch(s -> others.contains(s.text()));
    Set<String> shared = new HashSet<>();
    for (CorpusGenerator.Sample s : third) {
      for (String sentence : s.text().toLowerCase(java.util.Locale.ROOT).split("[.!?;:\\n]")) {
        String t = sentence.strip();
        if (t.length() >= 30 && otherTexts.stream().anyMatch(o -> o.contains(t))) {
          shared.add(t);
        }
      }
    }
    assertThat(shared).as("sentences also in the other parts").isEmpty();
  }
}
