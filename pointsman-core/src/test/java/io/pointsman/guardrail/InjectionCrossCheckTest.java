package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The committed output of {@link InjectionCrossCheck}, which docs/guardrails.md quotes, is what
 * the comparison derives from the committed tuning part and code.
 */
class InjectionCrossCheckTest {
  static final Path FILE = Path.of("src/test/resources/guardrail/injection-crosscheck.txt");

  @Test
  void committedOutputIsWhatTheComparisonDerives() throws IOException {
    String committed = Files.readString(FILE, StandardCharsets.UTF_8).lines()
        .filter(l -> !l.startsWith("#")).collect(Collectors.joining("\n", "", "\n"));
    String derived = InjectionCrossCheck.report();
    assertThat(derived).as("rewrite " + FILE + " from InjectionCrossCheck's output")
        .isEqualTo(committed);
    assertThat(derived).contains("== without concepts").contains("== with concepts");
  }
}
