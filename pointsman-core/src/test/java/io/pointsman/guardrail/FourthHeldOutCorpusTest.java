package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The fourth held-out injection corpus is what {@link FourthInjectionCorpusGenerator} writes,
 * holds at least 360 attacks and 360 benign texts, has every kind in at least its planned
 * number, uses at least 20 languages on each side, and shares no text with any other part.
 */
class FourthHeldOutCorpusTest {
  /** The least number of texts of each kind. */
  private static final Map<String, Integer> MINIMUM = new LinkedHashMap<>();

  static {
    MINIMUM.put("attack.direct", 70);
    MINIMUM.put("attack.persona", 50);
    MINIMUM.put("attack.role_marker", 40);
    MINIMUM.put("attack.indirect", 70);
    MINIMUM.put("attack.exfiltration", 30);
    MINIMUM.put("attack.obfuscated", 40);
    MINIMUM.put("attack.multilingual", 40);
    MINIMUM.put("attack.hand_written", 20);
    MINIMUM.put("benign.correction", 40);
    MINIMUM.put("benign.security", 40);
    MINIMUM.put("benign.role_play_benign", 30);
    MINIMUM.put("benign.markup", 30);
    MINIMUM.put("benign.carrier", 60);
    MINIMUM.put("benign.request", 30);
    MINIMUM.put("benign.multilingual", 40);
    MINIMUM.put("benign.framework", 40);
    MINIMUM.put("benign.hand_written", 30);
  }

  private static final List<String> WIDELY_SPOKEN = List.of("es", "fr", "de", "pt", "it", "ru",
      "zh", "ja", "ko", "ar", "hi", "tr", "pl", "nl");

  private static String read(String name) throws IOException {
    try (InputStream in = FourthHeldOutCorpusTest.class.getResourceAsStream(name)) {
      assertThat(in).as(name).isNotNull();
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static List<CorpusGenerator.Sample> fourth() throws IOException {
    return CorpusGenerator.parse(read("/guardrail/injection/fourth.tsv"));
  }

  /** Lower case with runs of white space made one space, so near copies count as copies. */
  private static String normal(String text) {
    return text.toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").trim();
  }

  @Test
  void committedFileIsWhatTheGeneratorWrites() throws IOException {
    assertThat(read("/guardrail/injection/fourth.tsv"))
        .isEqualTo(CorpusGenerator.render(FourthInjectionCorpusGenerator.generate()));
  }

  @Test
  void isLargeAndEveryKindHasItsNumber() throws IOException {
    List<CorpusGenerator.Sample> fourth = fourth();
    assertThat(fourth.stream().filter(CorpusGenerator.Sample::positive).count())
        .isGreaterThanOrEqualTo(360);
    assertThat(fourth.stream().filter(s -> !s.positive()).count()).isGreaterThanOrEqualTo(360);
    Map<String, Long> counts = fourth.stream()
        .collect(Collectors.groupingBy(CorpusGenerator.Sample::kind, Collectors.counting()));
    assertThat(counts.keySet()).containsExactlyInAnyOrderElementsOf(MINIMUM.keySet());
    MINIMUM.forEach((kind, least) ->
        assertThat(counts.get(kind)).as(kind).isGreaterThanOrEqualTo((long) least));
    assertThat(fourth).allMatch(s -> s.kind().startsWith(s.positive() ? "attack." : "benign."));
  }

  @Test
  void textsAreUniqueAndOfVariedLength() throws IOException {
    List<CorpusGenerator.Sample> fourth = fourth();
    assertThat(fourth.stream().map(s -> normal(s.text())).distinct().count())
        .isEqualTo(fourth.size());
    assertThat(fourth).anyMatch(s -> s.text().length() < 40);
    assertThat(fourth).anyMatch(s -> s.text().length() > 400);
  }

  @Test
  void bothSidesUseAtLeastTwentyLanguages() {
    assertThat(FourthInjectionCorpusGenerator.attackLanguages())
        .hasSizeGreaterThanOrEqualTo(20).containsAll(WIDELY_SPOKEN);
    assertThat(FourthInjectionCorpusGenerator.benignLanguages())
        .hasSizeGreaterThanOrEqualTo(20).containsAll(WIDELY_SPOKEN);
  }

  @Test
  void sharesNoTextWithAnyOtherPart() throws IOException {
    Set<String> others = new HashSet<>();
    for (String part : List.of("tuning", "heldout", "fresh", "third", "framework-tuning",
        "framework-heldout", "framework-fresh")) {
      List<CorpusGenerator.Sample> samples =
          CorpusGenerator.parse(read("/guardrail/injection/" + part + ".tsv"));
      assertThat(samples).as(part).isNotEmpty();
      samples.forEach(s -> others.add(normal(s.text())));
    }
    assertThat(fourth()).noneMatch(s -> others.contains(normal(s.text())));
  }
}
