package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The verifier's tokeniser ({@link AlignmentVerifier#tokenEnd}) finds exactly the tokens of the
 * regular expression it replaced, kept here as the reference: on every text of the pair corpora
 * and on random texts made of the characters where the two could part (backticks near the
 * 500-character limit, digit groups, apostrophes, combining marks, non-ASCII digits and spaces,
 * supplementary and unpaired surrogates, operators).
 */
class AlignmentTokensTest {
  private static final Pattern REFERENCE = Pattern.compile(
      "`[^`]{0,500}`"
          + "|\\d+(?:[.,:/]\\d+)*(?:[\\p{L}_][\\p{L}\\p{N}_]*)?"
          + "|[\\p{L}\\p{M}_][\\p{L}\\p{M}\\p{N}_]*(?:'[\\p{L}]+)*"
          + "|==|!=|<=|>=|&&|\\|\\||->|=>|::|\\+\\+|--|\\*\\*|<<|>>"
          + "|\\S");

  private static final String[] PIECES = {"a", "Z", "é", "e\u0301", "\u0301", "ß", "東", "ǅ",
      "_", "0", "7", "42", "3.5", "1,000", "10:30", "a/b", "٣", "²", "Ⅻ", "½", "'", "'s", "n't",
      "`", "``", "=", "==", "=>", "!", "!=", "<", "<=", "<<", ">", ">=", ">>", "&", "&&", "|",
      "||", "-", "->", "--", ":", "::", "+", "++", "*", "**", ".", ",", "/", "?", " ", "  ",
      "\t", "\n", "\u000B", "\f", "\r", "\u00A0", "\u2003", "\u3000", "😀", "𝒜", "\uD835",
      "\uDC1C", "x", "word", "don't", "it's", "O'Neil", "12ab", "3_x", "x2", "(", ")", "{",
      "}", "[", "]", ";", "\"", "—", "…"};

  private static List<String> reference(String s) {
    List<String> out = new ArrayList<>();
    Matcher m = REFERENCE.matcher(s);
    while (m.find()) {
      out.add(m.group());
    }
    return out;
  }

  private static List<String> scanned(String s) {
    List<String> out = new ArrayList<>();
    int at = 0;
    while (true) {
      while (at < s.length() && (s.charAt(at) == ' '
          || s.charAt(at) >= '\t' && s.charAt(at) <= '\r')) {
        at++;
      }
      if (at >= s.length()) {
        return out;
      }
      int end = AlignmentVerifier.tokenEnd(s, at);
      out.add(s.substring(at, end));
      at = end;
    }
  }

  @Test
  void theTokensOfEveryCorpusTextAreTheReferenceExpressionsTokens() throws IOException {
    int texts = 0;
    for (String split : List.of(SemanticCorpusGenerator.TUNING,
        SemanticCorpusGenerator.HELDOUT)) {
      for (SemanticPairCorpusTest.Pair p : SemanticPairCorpusTest.load(split)) {
        for (String t : List.of(p.cached(), p.query())) {
          assertThat(scanned(t)).as(t).containsExactlyElementsOf(reference(t));
          texts++;
        }
      }
    }
    assertThat(texts).isGreaterThan(1_000);
  }

  @Test
  void theTokensOfRandomTextsAreTheReferenceExpressionsTokens() {
    SplittableRandom random = new SplittableRandom(20261203L);
    for (int round = 0; round < 20_000; round++) {
      StringBuilder sb = new StringBuilder();
      int n = 1 + random.nextInt(30);
      for (int i = 0; i < n; i++) {
        sb.append(PIECES[random.nextInt(PIECES.length)]);
      }
      String s = sb.toString();
      assertThat(scanned(s)).as("%s", s).containsExactlyElementsOf(reference(s));
    }
  }

  @Test
  void aBacktickSpanEndsWithinFiveHundredCodePointsOrIsOneToken() {
    for (int len : new int[] {0, 1, 499, 500, 501, 502}) {
      for (String filler : List.of("x", "😀", "x\n")) {
        String body = filler.repeat(len).substring(0,
            Math.min(filler.repeat(len).length(), filler.length() * len));
        String s = "a `" + body + "` b";
        assertThat(scanned(s)).as("%d × %s", len, filler).containsExactlyElementsOf(reference(s));
      }
    }
  }
}
