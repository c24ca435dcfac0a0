package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LiteralMatcherTest {
  private static List<String> matches(LiteralMatcher m, String text) {
    List<String> out = new ArrayList<>();
    m.find(text, (literal, start, end) -> {
      out.add(m.literal(literal) + "@" + start + "-" + end);
      return true;
    });
    return out;
  }

  @Test
  void findsOverlappingAndNestedLiterals() {
    LiteralMatcher m = LiteralMatcher.builder().add("he").add("she").add("his").add("hers")
        .build();
    assertThat(matches(m, "ushers")).containsExactly("she@1-4", "he@2-4", "hers@2-6");
  }

  @Test
  void agreesWithANaiveSearchOnRandomInput() {
    Random random = new Random(1);
    for (int round = 0; round < 300; round++) {
      List<String> literals = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(30); i++) {
        literals.add(randomWord(random, 1 + random.nextInt(5)));
      }
      LiteralMatcher m = LiteralMatcher.builder().addAll(literals).build();
      String text = randomWord(random, 200);
      List<String> expected = new ArrayList<>();
      for (int end = 1; end <= text.length(); end++) {
        List<String> atEnd = new ArrayList<>();
        for (int id = 0; id < literals.size(); id++) {
          String l = literals.get(id);
          if (end >= l.length() && text.startsWith(l, end - l.length())
              && literals.indexOf(l) == id) {
            atEnd.add(l + "@" + (end - l.length()) + "-" + end);
          }
        }
        expected.addAll(atEnd);
      }
      assertThat(matches(m, text)).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  private static String randomWord(Random random, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append((char) ('a' + random.nextInt(3)));
    }
    return sb.toString();
  }

  @Test
  void foldsCaseCollapsesWhitespaceAndHonoursWholeWordsAndExactLiterals() {
    LiteralMatcher m = LiteralMatcher.builder().caseInsensitive(true).collapseWhitespace(true)
        .wholeWords(true).add("ignore previous").addExact("AKIA").add("<|im_start|>").build();
    assertThat(matches(m, "Please IGNORE \n  Previous; akia AKIA x<|im_start|>"))
        .containsExactly("ignore previous@7-25", "AKIA@32-36", "<|im_start|>@38-50");
    assertThat(matches(m, "ignore previously")).isEmpty();
  }

  @Test
  void readsEachCharacterOnceWhateverTheNumberOfLiterals() {
    List<String> many = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      many.add("blocked phrase " + Integer.toString(i * 7919, 36));
    }
    LiteralMatcher m = LiteralMatcher.builder().caseInsensitive(true).addAll(many).build();
    CountingText text = new CountingText("blocked phrase ".repeat(5_000));
    m.find(text, (literal, start, end) -> true);
    assertThat(text.reads()).isEqualTo(text.length());
    assertThat(m.states()).isGreaterThan(10_000);
  }

  @Test
  void stopsWhenTheSinkSaysSoAndRejectsEmptyLiterals() {
    LiteralMatcher m = LiteralMatcher.builder().add("a").build();
    assertThat(m.containsAny("xxaxx")).isTrue();
    assertThat(m.containsAny("xxxx")).isFalse();
    assertThatThrownBy(() -> LiteralMatcher.builder().add(""))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
