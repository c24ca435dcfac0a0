package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The second held-out injection corpus is what {@link FreshInjectionCorpusGenerator} writes,
 * holds at least 300 attacks and 300 benign texts, and shares no text with the tuning part.
 */
class FreshHeldOutCorpusTest {
  @Test
  void committedFileIsWhatTheGeneratorWritesAndIsLargeAndSeparate() throws IOException {
    String committed = new String(InjectionModelTest.resource("/guardrail/injection/fresh.tsv"),
        StandardCharsets.UTF_8);
    assertThat(committed).isEqualTo(CorpusGenerator.render(FreshInjectionCorpusGenerator.generate()));
    List<CorpusGenerator.Sample> fresh = CorpusGenerator.parse(committed);
    assertThat(fresh.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(300);
    assertThat(fresh.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(300);
    Set<String> tuning = new HashSet<>();
    InjectionModelTest.part("tuning").forEach(s -> tuning.add(s.text()));
    InjectionModelTest.part("heldout").forEach(s -> tuning.add(s.text()));
    assertThat(fresh).noneMatch(s -> tuning.contains(s.text()));
  }
}
