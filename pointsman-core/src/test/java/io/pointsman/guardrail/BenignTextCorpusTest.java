package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The benign training text is what {@link BenignTextCorpusGenerator} writes, and all benign. */
class BenignTextCorpusTest {
  @Test
  void committedFileIsWhatTheGeneratorWritesAndHoldsOnlyBenignText() throws IOException {
    String committed = new String(
        InjectionModelTest.resource("/guardrail/injection/benign-text.tsv"),
        StandardCharsets.UTF_8);
    assertThat(committed).isEqualTo(CorpusGenerator.render(BenignTextCorpusGenerator.generate()));
    List<CorpusGenerator.Sample> samples = CorpusGenerator.parse(committed);
    assertThat(samples).hasSizeGreaterThanOrEqualTo(400).noneMatch(CorpusGenerator.Sample::positive);
  }
}
