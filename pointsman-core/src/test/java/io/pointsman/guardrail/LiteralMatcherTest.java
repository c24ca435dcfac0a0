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
  void twoLanesReportWhatOneLaneReportsInTheSameOrder() {
    Random random = new Random(5);
    String alphabet = "abAB  \n\t_-.";
    for (int round = 0; round < 400; round++) {
      LiteralMatcher.Builder b = LiteralMatcher.builder().caseInsensitive(random.nextBoolean())
          .collapseWhitespace(random.nextBoolean()).wholeWords(random.nextBoolean());
      for (int i = 0; i < 1 + random.nextInt(20); i++) {
        StringBuilder l = new StringBuilder();
        for (int k = 0; k < 1 + random.nextInt(8); k++) {
          l.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        if (l.toString().isBlank()) {
          l.append('a');
        }
        if (random.nextInt(4) == 0) {
          b.addExact(l.toString());
        } else {
          b.add(l.toString());
        }
      }
      LiteralMatcher m = b.build();
      StringBuilder text = new StringBuilder();
      int n = LiteralMatcher.TWO_LANES_FROM + random.nextInt(3_000);
      while (text.length() < n) {
        // Whitespace runs of every length, so that the second lane's start is tested.
        if (random.nextInt(40) == 0) {
          text.append(" ".repeat(random.nextInt(300)));
        }
        text.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String t = text.toString();
      List<String> one = new ArrayList<>();
      m.findOneLane(t, (literal, start, end) -> one.add(literal + "@" + start + "-" + end));
      List<String> two = new ArrayList<>();
      m.find(t, (literal, start, end) -> two.add(literal + "@" + start + "-" + end));
      assertThat(two).as("round " + round).containsExactlyElementsOf(one);
      // A sink that stops sees the same first matches.
      int stopAfter = one.isEmpty() ? 0 : random.nextInt(one.size());
      List<String> stopped = new ArrayList<>();
      boolean ran = m.find(t, (literal, start, end) -> {
        stopped.add(literal + "@" + start + "-" + end);
        return stopped.size() <= stopAfter;
      });
      if (!one.isEmpty()) {
        assertThat(ran).isFalse();
        assertThat(stopped).containsExactlyElementsOf(one.subList(0, stopAfter + 1));
      }
    }
  }

  @Test
  void collapsingAgreesWithMatchingTheCollapsedTextNaively() {
    // The reference collapses the text first (a whitespace character after whitespace is
    // dropped), matches there character by character, and maps the match back.
    Random random = new Random(9);
    String alphabet = "abAB \n\t";
    for (int round = 0; round < 300; round++) {
      List<String> literals = new ArrayList<>();
      LiteralMatcher.Builder b = LiteralMatcher.builder().caseInsensitive(true)
          .collapseWhitespace(true);
      for (int i = 0; i < 1 + random.nextInt(12); i++) {
        StringBuilder l = new StringBuilder(String.valueOf("ab".charAt(random.nextInt(2))));
        for (int k = 0; k < random.nextInt(6); k++) {
          l.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        literals.add(l.toString());
        b.add(l.toString());
      }
      LiteralMatcher m = b.build();
      StringBuilder text = new StringBuilder();
      int n = random.nextBoolean() ? 200 : LiteralMatcher.TWO_LANES_FROM + random.nextInt(1_500);
      while (text.length() < n) {
        text.append(random.nextInt(30) == 0 ? " \t\n ".repeat(random.nextInt(20))
            : String.valueOf(alphabet.charAt(random.nextInt(alphabet.length()))));
      }
      String t = text.toString();
      List<Integer> fed = new ArrayList<>();
      for (int p = 0; p < t.length(); p++) {
        if (p == 0 || !(Character.isWhitespace(t.charAt(p))
            && Character.isWhitespace(t.charAt(p - 1)))) {
          fed.add(p);
        }
      }
      List<String> expected = new ArrayList<>();
      List<String> normalised = new ArrayList<>();
      for (int id = 0; id < literals.size(); id++) {
        String norm = normalise(literals.get(id).replaceAll("\\s+", " "));
        if (normalised.contains(norm)) {
          normalised.add(null);
          continue;
        }
        normalised.add(norm);
        for (int k = 0; k + norm.length() <= fed.size(); k++) {
          boolean match = true;
          for (int i = 0; i < norm.length() && match; i++) {
            match = normalise(String.valueOf(t.charAt(fed.get(k + i)))).charAt(0)
                == norm.charAt(i);
          }
          if (match) {
            expected.add(id + "@" + fed.get(k) + "-" + (fed.get(k + norm.length() - 1) + 1));
          }
        }
      }
      List<String> found = new ArrayList<>();
      m.find(t, (literal, start, end) -> found.add(literal + "@" + start + "-" + end));
      assertThat(found).as("round " + round).containsExactlyInAnyOrderElementsOf(expected);
    }
  }

  private static String normalise(String s) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      sb.append(Character.isWhitespace(c) ? ' ' : Character.toLowerCase(c));
    }
    return sb.toString();
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
    // Once, plus the longest literal where the second lane starts early.
    int longest = many.stream().mapToInt(String::length).max().orElseThrow();
    assertThat(text.reads()).isBetween((long) text.length(), (long) text.length() + longest);
    CountingText small = new CountingText("blocked phrase ".repeat(20));
    m.find(small, (literal, start, end) -> true);
    assertThat(small.reads()).isEqualTo(small.length());
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
