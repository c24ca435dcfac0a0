package io.pointsman.guardrail;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** What the tokeniser of the injection classifier emits for repeated text. */
class InjectionFeaturesTest {
  private static int tokens(String text) {
    return InjectionTrainer.features(text).length / InjectionTrainer.PER_TOKEN;
  }

  @Test
  void aWordRepeatedBackToBackIsOneToken() {
    assertThat(tokens("hello hello hello hello")).isEqualTo(1);
  }

  @Test
  void aPhraseRepeatedBackToBackIsReadOnce() {
    assertThat(tokens("hello world ".repeat(400))).isEqualTo(3);
    assertThat(tokens("one two three ".repeat(50))).isEqualTo(5);
    assertThat(tokens("lorem ipsum dolor\n".repeat(100))).isEqualTo(7);
  }

  @Test
  void ordinaryTextIsNotShortened() {
    assertThat(tokens("one by one, step by step, we read the report")).isEqualTo(10);
  }

  @Test
  void aRepeatedPhraseDoesNotAddUpToABlock() {
    PromptInjectionClassifier c = PromptInjectionClassifier.ofDefaults();
    assertThat(c.score("hello world ".repeat(400))).isLessThan(c.blockThreshold());
  }
}
