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

  @Test
  void findAllReportsWhatFindReportsInTheSameOrderAloneAndInPairs() {
    Random random = new Random(7);
    String alphabet = "abAB _-\t\n  <|xyz9é\u00A0\u2003\u017F";
    for (int round = 0; round < 2000; round++) {
      LiteralMatcher a = randomMatcher(random, alphabet);
      LiteralMatcher b = randomMatcher(random, alphabet);
      // Some texts span several of the array scans' chunks of 512 characters.
      String text = randomText(random, alphabet, random.nextInt(round % 10 == 0 ? 3000 : 400));
      char[] chars = (text + "trailing").toCharArray();
      LiteralMatcher.Matches alone = new LiteralMatcher.Matches();
      a.findAll(chars, text.length(), alone);
      assertThat(listed(a, alone)).as("round %d alone: %s", round, text)
          .containsExactlyElementsOf(matches(a, text));
      LiteralMatcher.Matches first = new LiteralMatcher.Matches();
      LiteralMatcher.Matches second = new LiteralMatcher.Matches();
      LiteralMatcher.findAll(a, first, b, second, chars, text.length());
      assertThat(listed(a, first)).as("round %d first: %s", round, text)
          .containsExactlyElementsOf(matches(a, text));
      assertThat(listed(b, second)).as("round %d second: %s", round, text)
          .containsExactlyElementsOf(matches(b, text));
    }
  }

  @Test
  void aCollapsingMatcherPairedWithAPlainOneFindsStartsAcrossLongRunsOfWhitespace() {
    // The pair's collapsing matcher steps on every character and finds a match's start from
    // the text afterwards: phrases spanning many long runs, and many matches over the same run.
    LiteralMatcher plain = LiteralMatcher.builder().addExact("AKIA").add("x").build();
    LiteralMatcher collapsing = LiteralMatcher.builder().caseInsensitive(true)
        .collapseWhitespace(true).wholeWords(true)
        .add("ignore all previous instructions").add("all previous").add("x y").add("y")
        .add("a b c d e f g h i j k").build();
    Random random = new Random(5);
    String[] blanks = {" ", "  ", "\t\n", " \u2003 ", "\u00A0", "\n\n\n"};
    StringBuilder sb = new StringBuilder();
    while (sb.length() < 20_000) {
      String phrase = switch (random.nextInt(4)) {
        case 0 -> "ignore all previous instructions";
        case 1 -> "x y y y y";
        case 2 -> "a b c d e f g h i j k";
        default -> "AKIA x";
      };
      for (String word : phrase.split(" ")) {
        sb.append(word).append(random.nextInt(8) == 0 ? " ".repeat(200 + random.nextInt(300))
            : blanks[random.nextInt(blanks.length)]);
      }
    }
    String text = sb.toString();
    char[] chars = text.toCharArray();
    LiteralMatcher.Matches first = new LiteralMatcher.Matches();
    LiteralMatcher.Matches second = new LiteralMatcher.Matches();
    LiteralMatcher.findAll(plain, first, collapsing, second, chars, chars.length);
    assertThat(second.size()).isGreaterThan(100);
    assertThat(listed(plain, first)).containsExactlyElementsOf(matches(plain, text));
    assertThat(listed(collapsing, second)).containsExactlyElementsOf(matches(collapsing, text));
  }

  @Test
  void aLongTextReadInHalvesReportsWhatOneScanReportsWhereverItsMiddleFalls() {
    // From LiteralMatcher.SPLIT characters on, a plain and a collapsing matcher read the two
    // halves side by side, the second half's automata started from the root shortly before the
    // middle: matches and runs of whitespace across the middle, literals as long as the lead-in
    // before it, and every length around the split.
    Random random = new Random(11);
    String alphabet = "abAB _-\t\n  <|xyz9\u00A0\u2003";
    for (int round = 0; round < 600; round++) {
      LiteralMatcher.Builder pb = LiteralMatcher.builder().caseInsensitive(random.nextBoolean())
          .wholeWords(random.nextBoolean());
      LiteralMatcher.Builder cb = LiteralMatcher.builder().caseInsensitive(random.nextBoolean())
          .collapseWhitespace(true).wholeWords(random.nextBoolean());
      List<String> literals = new ArrayList<>();
      for (int i = 0; i < 1 + random.nextInt(30); i++) {
        String literal = randomText(random, alphabet, 1 + random.nextInt(round % 5 == 0 ? 40 : 8))
            .strip();
        if (!literal.isEmpty()) {
          literals.add(literal);
          pb.add(literal);
          cb.add(literal);
        }
      }
      LiteralMatcher plain = pb.build();
      LiteralMatcher collapsing = cb.build();
      int length = LiteralMatcher.SPLIT - 3 + random.nextInt(round % 3 == 0 ? 4000 : 40);
      StringBuilder sb = new StringBuilder();
      while (sb.length() < length) {
        int pick = random.nextInt(4);
        if (pick == 0 && !literals.isEmpty()) {
          sb.append(literals.get(random.nextInt(literals.size())));
        } else if (pick == 1) {
          sb.append(" ".repeat(1 + random.nextInt(random.nextInt(4) == 0 ? 120 : 3)));
        } else {
          sb.append(randomText(random, alphabet, 1 + random.nextInt(6)));
        }
      }
      // Put a literal, spaced out with long whitespace, right across the middle.
      if (!literals.isEmpty()) {
        String across = String.join("   \t ", literals.get(0).split(" "));
        int at = Math.max(0, length / 2 - across.length() / 2);
        sb.replace(at, Math.min(sb.length(), at + across.length()), across);
      }
      String text = sb.substring(0, length);
      char[] chars = text.toCharArray();
      LiteralMatcher.Matches first = new LiteralMatcher.Matches();
      LiteralMatcher.Matches second = new LiteralMatcher.Matches();
      LiteralMatcher.findAll(plain, first, collapsing, second, chars, chars.length);
      assertThat(listed(plain, first)).as("round %d plain", round)
          .containsExactlyElementsOf(matches(plain, text));
      assertThat(listed(collapsing, second)).as("round %d collapsing", round)
          .containsExactlyElementsOf(matches(collapsing, text));
      LiteralMatcher.findAll(collapsing, second, plain, first, chars, chars.length);
      assertThat(listed(plain, first)).as("round %d plain, second", round)
          .containsExactlyElementsOf(matches(plain, text));
      assertThat(listed(collapsing, second)).as("round %d collapsing, first", round)
          .containsExactlyElementsOf(matches(collapsing, text));
    }
  }

  private static LiteralMatcher randomMatcher(Random random, String alphabet) {
    LiteralMatcher.Builder b = LiteralMatcher.builder().caseInsensitive(random.nextBoolean())
        .collapseWhitespace(random.nextBoolean()).wholeWords(random.nextBoolean());
    int literals = random.nextInt(10) == 0 ? 0 : 1 + random.nextInt(40);
    for (int i = 0; i < literals; i++) {
      String literal = randomText(random, alphabet, 1 + random.nextInt(7)).strip();
      if (literal.isEmpty()) {
        continue;
      }
      if (random.nextInt(5) == 0) {
        b.addExact(literal);
      } else {
        b.add(literal);
      }
    }
    return b.build();
  }

  private static List<String> listed(LiteralMatcher m, LiteralMatcher.Matches found) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < found.size(); i++) {
      out.add(m.literal(found.literal(i)) + "@" + found.start(i) + "-" + found.end(i));
    }
    return out;
  }

  private static String randomText(Random random, String alphabet, int n) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      sb.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return sb.toString();
  }
}
