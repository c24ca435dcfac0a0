package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.anyone;
import static io.pointsman.guardrail.Fixtures.user;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.pointsman.PointsmanException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Framework-generated prompts (format instructions, retrieval context, memory, agent scaffolds;
 * see {@link FrameworkPromptCorpus}) pass the default input chain: none is blocked. All three
 * parts are checked — the tuning part, which the classifier was trained on, and the two
 * held-out parts, which it never saw. How many are flagged is the committed {@code
 * guardrail/framework-quality.csv} (rewrite with {@code -Dguardrail.writeQuality=true}).
 */
class FrameworkPromptsTest {
  static final Path QUALITY = Path.of("src/test/resources/guardrail/framework-quality.csv");

  /** The known case: a Spring AI ChatClient.entity call's user message. */
  static final String KNOWN = "List three cities and their temperatures.\n"
      + String.format(FrameworkPromptCorpus.SPRING_BEAN, "{\n"
      + "  \"$schema\" : \"https://json-schema.org/draft/2020-12/schema\",\n"
      + "  \"type\" : \"array\",\n  \"items\" : {\n    \"type\" : \"object\",\n"
      + "    \"properties\" : {\n      \"city\" : {\n        \"type\" : \"string\"\n      },\n"
      + "      \"temperature\" : {\n        \"type\" : \"number\"\n      }\n    },\n"
      + "    \"additionalProperties\" : false\n  }\n}");

  @Test
  void committedFilesAreWhatTheGeneratorWrites() throws IOException {
    Path dir = InjectionModelTest.DIR;
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      FrameworkPromptCorpus.main(new String[] {dir.toString()});
    }
    assertThat(text("framework-tuning")).isEqualTo(
        CorpusGenerator.render(FrameworkPromptCorpus.tuning()));
    assertThat(text("framework-heldout")).isEqualTo(
        CorpusGenerator.render(FrameworkPromptCorpus.heldOut()));
    List<String> tuning = InjectionModelTest.part("framework-tuning").stream()
        .map(CorpusGenerator.Sample::text).toList();
    List<CorpusGenerator.Sample> heldOut = InjectionModelTest.part("framework-heldout");
    assertThat(tuning).hasSizeGreaterThanOrEqualTo(150);
    assertThat(heldOut).hasSizeGreaterThanOrEqualTo(150).noneMatch(s -> tuning.contains(s.text()))
        .allMatch(s -> !s.positive());
    assertThat(text("framework-fresh")).isEqualTo(
        CorpusGenerator.render(FrameworkPromptCorpus.fresh()));
    List<CorpusGenerator.Sample> fresh = InjectionModelTest.part("framework-fresh");
    assertThat(fresh).hasSizeGreaterThanOrEqualTo(80).allMatch(s -> !s.positive())
        .noneMatch(s -> tuning.contains(s.text()));
    assertThat(heldOut).anyMatch(s -> s.text().startsWith(
        "List three cities and their temperatures.\nYour response should be in JSON format."));
  }

  private static String text(String part) throws IOException {
    return new String(InjectionModelTest.resource("/guardrail/injection/" + part + ".tsv"),
        StandardCharsets.UTF_8);
  }

  @Test
  void springAiBeanOutputInstructionAfterTheKnownQuestionPasses() {
    List<String> heard = new ArrayList<>();
    InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
        .listener((identity, stage, rule, action) -> heard.add(rule + ":" + action)).build();
    assertThatCode(() -> chain.check(anyone(), user(KNOWN))).doesNotThrowAnyException();
    assertThat(heard).noneMatch(h -> h.endsWith(":" + GuardrailAction.BLOCK));
  }

  /** Per kind: texts, blocked, flagged (not blocked). */
  private static Map<String, int[]> measure(List<CorpusGenerator.Sample> samples,
      List<String> blocked) {
    Map<String, int[]> byKind = new TreeMap<>();
    for (CorpusGenerator.Sample s : samples) {
      List<GuardrailAction> actions = new ArrayList<>();
      InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
          .listener((identity, stage, rule, action) -> actions.add(action)).build();
      boolean refused = false;
      try {
        chain.check(anyone(), user(s.text()));
      } catch (PointsmanException e) {
        refused = true;
      }
      refused |= actions.contains(GuardrailAction.BLOCK);
      for (String k : List.of(s.kind(), "all")) {
        int[] t = byKind.computeIfAbsent(k, x -> new int[3]);
        t[0]++;
        if (refused) {
          t[1]++;
        } else if (actions.contains(GuardrailAction.FLAG)) {
          t[2]++;
        }
      }
      if (refused) {
        blocked.add(s.kind() + ": " + s.text());
      }
    }
    return byKind;
  }

  private static String csv(String part, Map<String, int[]> tallies) {
    StringBuilder sb = new StringBuilder();
    tallies.forEach((k, t) -> sb.append(String.format(Locale.ROOT, "%s,%s,%d,%d,%d%n", part, k,
        t[0], t[1], t[2])));
    return sb.toString();
  }

  @Test
  void noFrameworkPromptIsBlockedByTheDefaultChain() throws IOException {
    List<String> blockedTuning = new ArrayList<>();
    List<String> blockedHeldOut = new ArrayList<>();
    List<String> blockedFresh = new ArrayList<>();
    String report = "part,kind,texts,blocked,flagged\n"
        + csv("framework-fresh", measure(InjectionModelTest.part("framework-fresh"),
            blockedFresh))
        + csv("framework-heldout", measure(InjectionModelTest.part("framework-heldout"),
            blockedHeldOut))
        + csv("framework-tuning", measure(InjectionModelTest.part("framework-tuning"),
            blockedTuning));
    if (Boolean.getBoolean("guardrail.writeQuality")) {
      Files.writeString(QUALITY, report, StandardCharsets.UTF_8);
    }
    System.out.print(report);
    assertThat(blockedFresh).as("fresh held-out framework prompts blocked").isEmpty();
    assertThat(blockedHeldOut).as("held-out framework prompts blocked").isEmpty();
    assertThat(blockedTuning).as("tuning framework prompts blocked").isEmpty();
    assertThat(Files.readString(QUALITY, StandardCharsets.UTF_8))
        .as("committed framework-quality.csv (rewrite with -Dguardrail.writeQuality=true)")
        .isEqualTo(report);
  }
}
