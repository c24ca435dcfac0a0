package io.pointsman.cache.semantic;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LexicalVerifierTest {
  private final LexicalVerifier verifier = LexicalVerifier.standard();

  private String refusal(String a, String b) {
    Verdict v = verifier.verify(a, b);
    assertThat(v.agrees()).as("%s | %s", a, b).isFalse();
    return v.reason();
  }

  private void agrees(String a, String b) {
    Verdict v = verifier.verify(a, b);
    assertThat(v.agrees()).as("%s | %s: %s", a, b, v.reason()).isTrue();
    assertThat(v.reason()).isEmpty();
  }

  @Test
  void negationInAnyFormIsADisagreement() {
    assertThat(refusal("Is Pluto a planet?", "Is Pluto not a planet?")).startsWith("negation");
    assertThat(refusal("Can dogs eat grapes?", "Can't dogs eat grapes?")).startsWith("negation");
    assertThat(refusal("Why is it running?", "Why isnt it running?")).startsWith("negation");
    assertThat(refusal("Bread with yeast", "Bread without yeast")).startsWith("negation");
    agrees("Why isn't it running?", "Why is it not running?");
  }

  @Test
  void numbersMustAgreeInValueAndOrderWhateverTheirSpelling() {
    assertThat(refusal("What is 12 times 12?", "What is 12 times 13?")).startsWith("numbers");
    assertThat(refusal("Flights from 5 to 10", "Flights from 10 to 5")).startsWith("numbers");
    assertThat(refusal("Install Python 3.12", "Install Python 3.11")).startsWith("numbers");
    agrees("Give me three tips.", "Give me 3 tips.");
    agrees("How much is 1,000 dollars?", "How much is 1000 dollars?");
  }

  @Test
  void namesMustAgreeInOrderWhenBothTextsAreCased() {
    assertThat(refusal("Did Google acquire YouTube?", "Did YouTube acquire Google?"))
        .startsWith("entities");
    assertThat(refusal("What is the capital of France?", "What is the capital of Spain?"))
        .startsWith("entities");
    agrees("What is Kubernetes?", "what is kubernetes");
    assertThat(refusal("how to install docker on ubuntu", "how to install docker on debian"))
        .startsWith("content");
  }

  @Test
  void oppositesAndDirectionMustAgree() {
    assertThat(refusal("How do I enable dark mode?", "How do I disable dark mode?"))
        .startsWith("opposites");
    assertThat(refusal("convert celsius to fahrenheit", "convert fahrenheit to celsius"))
        .startsWith("direction");
  }

  @Test
  void questionWordsModalsAndTenseMustAgreeWhenBothTextsHaveThem() {
    assertThat(refusal("When was the company founded?", "Where was the company founded?"))
        .startsWith("question");
    assertThat(refusal("Can I eat raw eggs?", "Should I eat raw eggs?")).startsWith("modal");
    assertThat(refusal("Who is the president of the club?", "Who was the president of the club?"))
        .startsWith("tense");
    agrees("How do I reverse a list?", "How can I reverse a list?");
    agrees("What's the capital of France?", "What is the capital of France?");
    agrees("Tell me the speed of light.", "What is the speed of light?");
  }

  @Test
  void fillerCaseAndPunctuationDoNotMatterButContentWordsDo() {
    agrees("How do I reverse a list in Python?", "Can you tell me how I reverse a list in Python");
    agrees("What are the benefits of unit testing?", "What are the benefits of unit tests?");
    assertThat(refusal("How do I cook rice?", "How do I cook brown rice?")).startsWith("content");
  }
}
