package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The third held-out injection corpus is what {@link ThirdInjectionCorpusGenerator} writes,
 * holds at least 300 attacks and 300 benign texts, and shares no text with any other part.
 */
class ThirdHeldOutCorpusTest {
  @Test
  void committedFileIsWhatTheGeneratorWritesAndIsLargeAndSeparate() throws IOException {
    String committed = new String(InjectionModelTest.resource("/guardrail/injection/third.tsv"),
        StandardCharsets.UTF_8);
    assertThat(committed).isEqualTo(CorpusGenerator.render(ThirdInjectionCorpusGenerator.generate()));
    List<CorpusGenerator.Sample> third = CorpusGenerator.parse(committed);
    assertThat(third.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(300);
    assertThat(third.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(300);
    Set<String> others = new HashSet<>();
    for (String part : List.of("tuning", "heldout", "fresh", "framework-tuning",
        "framework-heldout")) {
      InjectionModelTest.part(part).forEach(s -> others.add(s.text()));
    }
    assertThat(third).noneMatch(s -> others.contains(s.text()));
  }
}
