package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The default hit verifier on examples outside the pair corpora, and the property every
 * verifier must have: a text agrees with itself.
 */
class AlignmentVerifierTest {
  private static final String REPORTED = "We hired new staff. Later we planned the migration to "
      + "a new system.";

  private final AlignmentVerifier verifier = AlignmentVerifier.standard();

  private String refusal(String a, String b) {
    Verdict v = verifier.verify(a, b);
    assertThat(v.agrees()).as("%s | %s", a, b).isFalse();
    assertThat(verifier.verify(b, a).agrees()).as("%s | %s", b, a).isFalse();
    return v.reason();
  }

  private void agrees(String a, String b) {
    Verdict v = verifier.verify(a, b);
    assertThat(v.agrees()).as("%s | %s: %s", a, b, v.reason()).isTrue();
    assertThat(verifier.verify(b, a).agrees()).as("%s | %s", b, a).isTrue();
  }

  @Test
  void theReportedTextAgreesWithItselfUnderBothVerifiers() {
    assertThat(AlignmentVerifier.standard().byRules(REPORTED, REPORTED).agrees()).isTrue();
    assertThat(LexicalVerifier.standard().byRules(REPORTED, REPORTED).agrees()).isTrue();
    assertThat(HitVerifier.standard().verify(REPORTED, REPORTED).agrees()).isTrue();
  }

  @Test
  void everyTextAgreesWithItselfAndWithItsWhitespaceVariants() throws IOException {
    List<String> texts = new ArrayList<>();
    texts.add(REPORTED);
    for (String split : List.of(SemanticCorpusGenerator.TUNING,
        SemanticCorpusGenerator.HELDOUT)) {
      for (SemanticPairCorpusTest.Pair p : SemanticPairCorpusTest.load(split)) {
        texts.add(p.cached());
        texts.add(p.query());
      }
    }
    SplittableRandom random = new SplittableRandom(20261201L);
    for (int i = 0; i < 5_000; i++) {
      texts.add(randomText(random));
    }
    LexicalVerifier lexical = LexicalVerifier.standard();
    for (String t : texts) {
      assertThat(verifier.byRules(t, t).agrees()).as(t).isTrue();
      assertThat(lexical.byRules(t, t).agrees()).as(t).isTrue();
      assertThat(verifier.byRules(t, " " + t.replace(" ", "  ") + "\n").agrees()).as(t)
          .isTrue();
    }
  }

  @Test
  void aVerifierBoundToAQueryGivesEveryCandidateTheVerdictVerifyGives() throws IOException {
    // One binding per query, compared in turn with every cached text of the corpora (and with
    // the query itself): the verdict, reason included, is the one verify gives.
    List<SemanticPairCorpusTest.Pair> pairs = new ArrayList<>();
    for (String split : List.of(SemanticCorpusGenerator.TUNING,
        SemanticCorpusGenerator.HELDOUT)) {
      pairs.addAll(SemanticPairCorpusTest.load(split));
    }
    int compared = 0;
    for (int q = 0; q < pairs.size(); q += 7) {
      String query = pairs.get(q).query();
      HitVerifier.Query bound = verifier.bind(query);
      assertThat(bound.verify(query)).isEqualTo(Verdict.AGREE);
      for (int c = q % 5; c < pairs.size(); c += 5) {
        String cached = pairs.get(c).cached();
        assertThat(bound.verify(cached)).as("%s | %s", query, cached)
            .isEqualTo(verifier.verify(query, cached));
        compared++;
      }
    }
    assertThat(compared).isGreaterThan(10_000);
    // The default binding of a verifier that does not prepare anything calls verify as it is.
    HitVerifier lexical = LexicalVerifier.standard();
    SemanticPairCorpusTest.Pair p = pairs.get(0);
    assertThat(lexical.bind(p.query()).verify(p.cached()))
        .isEqualTo(lexical.verify(p.query(), p.cached()));
  }

  private static final String[] PIECES = {"what", "is", "the", "a", "new", "to", "from", "not",
      "don't", "can't", "I'm", "it's", "John's", "cats", "chase", "mice", "before", "after",
      "and", "or", "by", "about", "for", "her", "me", "in", "Python", "MBps", "Mbps", "MB", "Mb",
      "$", "€", ">", "<", "+", "-", "[-1]", "[1]", "==", "!=", "->", "3.5", "1,000", "10:30",
      "2024-01-05", "three", "first", "`getUser()`", "\"quoted text\"", "x", "X", "I", "A",
      "Ünïcödé", "straße", "東京", "😀", "?", "!", ".", ",", ";", ":", "(", ")", "—", "…",
      "please", "thanks", "hi", "can", "you", "tell", "how", "do", "i", "if", "when", "while",
      "\t", "ǅ", "ﬁ", "Ⅻ", "½", "x²", "’", "“", "”"};

  private static String randomText(SplittableRandom random) {
    int n = 1 + random.nextInt(25);
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < n; i++) {
      if (i > 0 && random.nextInt(4) != 0) {
        sb.append(' ');
      }
      String piece = PIECES[random.nextInt(PIECES.length)];
      sb.append(random.nextInt(5) == 0 ? piece.toUpperCase(java.util.Locale.ROOT) : piece);
    }
    return sb.toString();
  }

  @Test
  void aSwapOfSubjectAndObjectIsRefused() {
    assertThat(refusal("Do wolves hunt deer?", "Do deer hunt wolves?")).startsWith("word order");
    refusal("Sell apples before pears", "Sell pears before apples");
  }

  @Test
  void aChangedFunctionWordIsRefused() {
    refusal("Poems by Neruda", "Poems about Neruda");
    refusal("Pick a gift for him", "Pick a gift for me");
    refusal("Tea with milk and sugar", "Tea with milk or sugar");
    refusal("Buses to Leeds", "Buses from Leeds");
  }

  @Test
  void aChangedSymbolIsRefused() {
    assertThat(refusal("Is y >= 3 here?", "Is y <= 3 here?")).startsWith("symbols");
    refusal("What is arr[-2]?", "What is arr[2]?");
    refusal("Costs 5 $", "Costs 5 €");
    refusal("a 10 Gbps link", "a 10 GBps link");
    refusal("Is 8 MB a lot?", "Is 8 Mb a lot?");
  }

  @Test
  void numbersDatesNamesIdentifiersAndNegationAreRefused() {
    assertThat(refusal("Call me at 10:30", "Call me at 10:45")).startsWith("numbers");
    refusal("Born on 1990-02-01?", "Born on 1990-02-11?");
    refusal("Weather in Bern", "Weather in Basel");
    refusal("Why does loadCfg() fail?", "Why does loadConfig() fail?");
    assertThat(refusal("Is mercury a metal?", "Is mercury not a metal?")).startsWith("negation");
    refusal("Hello", "Thanks");
    refusal("What does the \"a\" tag do in HTML?", "What does the tag do in HTML?");
    refusal("How do I pick a lock?", "How do I choose a lock?");
  }

  @Test
  void oneChangedSentenceInALongPromptIsRefused() {
    String context = "Our team runs three services on Kubernetes. Each has its own database. "
        + "Deploys happen on Fridays. ";
    refusal(context + "How do we cut the cost of logging?",
        context + "How do we cut the cost of tracing?");
  }

  @Test
  void politenessCasePunctuationContractionsAndTheCuratedSynonymsAgree() {
    agrees("How do I sort a map by value in Java?", "Hi! Could you tell me how to sort a map "
        + "by value in Java? Thanks!");
    agrees("what's a monad", "What is a monad?");
    agrees("WHERE IS LIMA?", "Where is Lima?");
    agrees("Why doesn't it boot?", "Why does it not boot?");
    agrees("How do I repair a zip?", "How do I fix a zip?");
    agrees("In Rust, how do I read a file?", "How do I read a file in Rust?");
    agrees("Which is older, Rome or Athens?", "Which is older, Athens or Rome?");
    agrees("Convert 1,000 yards to metres", "Convert 1000 yards to metres");
    agrees("Give me three ideas", "Give me 3 ideas");
  }

  @Test
  void theVerifierIsReplaceable() {
    assertThat(HitVerifier.thresholdOnly().verify("cats chase mice", "mice chase cats")
        .agrees()).isTrue();
    HitVerifier strict = (q, c) -> q.equals(c) ? Verdict.AGREE : Verdict.disagree("not equal");
    assertThat(strict.verify("a", "b").reason()).isEqualTo("not equal");
  }
}
