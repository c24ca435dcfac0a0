package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.AWS_KEY;
import static io.pointsman.guardrail.Fixtures.GITHUB_TOKEN;
import static io.pointsman.guardrail.Fixtures.anyone;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import java.util.Random;
import org.junit.jupiter.api.Test;

class StreamWindowScannerTest {
  private static final OutputGuardrailChain REDACTING = OutputGuardrailChain.builder()
      .rule(SecretDetector.ofDefaults(), GuardrailAction.REDACT).streamWindow(64).build();

  private static String text(Random random) {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      sb.append("word").append(random.nextInt(1000)).append(' ');
      if (i == 11) {
        sb.append(GITHUB_TOKEN).append(' ');
      }
      if (i == 29) {
        sb.append("key=").append(AWS_KEY).append('\n');
      }
    }
    return sb.toString();
  }

  @Test
  void aSecretSplitAcrossChunksIsNeverReleasedInPart() {
    Random random = new Random(42);
    for (int round = 0; round < 200; round++) {
      String text = text(random);
      StreamWindowScanner scanner = REDACTING.streamScanner(anyone());
      StringBuilder released = new StringBuilder();
      int i = 0;
      while (i < text.length()) {
        int n = 1 + random.nextInt(9);
        String chunk = text.substring(i, Math.min(text.length(), i + n));
        released.append(scanner.accept(chunk));
        i += n;
        // No prefix of a secret longer than a few characters is ever out before its end is in.
        assertThat(released.toString()).doesNotContain(GITHUB_TOKEN.substring(0, 12))
            .doesNotContain(AWS_KEY.substring(0, 10));
      }
      released.append(scanner.finish());
      String expected = REDACTING.check(anyone(), Fixtures.user("q"), response(text)).firstText();
      assertThat(released.toString()).isEqualTo(expected);
      assertThat(scanner.released()).isEqualTo(expected.length());
    }
  }

  @Test
  void aBlockingRuleStopsTheStreamAndEveryLaterCallRepeatsTheDenial() {
    OutputGuardrailChain blocking = OutputGuardrailChain.builder()
        .rule(SecretDetector.ofDefaults(), GuardrailAction.BLOCK).streamWindow(64).build();
    StreamWindowScanner scanner = blocking.streamScanner(anyone());
    StringBuilder released = new StringBuilder();
    String text = "a".repeat(200) + " " + AWS_KEY + " " + "b".repeat(200);
    PointsmanException denial = null;
    for (int i = 0; i < text.length() && denial == null; i += 7) {
      try {
        released.append(scanner.accept(text.substring(i, Math.min(text.length(), i + 7))));
      } catch (PointsmanException e) {
        denial = e;
      }
    }
    assertThat(denial).isNotNull();
    assertThat(denial.stage()).isEqualTo(Stages.GUARDRAIL_OUTPUT);
    assertThat(denial.rule()).isEqualTo("secret.aws_access_key");
    assertThat(released.toString()).doesNotContain("AKIA").matches("a*");
    PointsmanException first = denial;
    assertThatThrownBy(() -> scanner.accept("more")).isSameAs(first);
    assertThatThrownBy(scanner::finish).isSameAs(first);
  }

  @Test
  void releasesCleanTextOnceItIsOlderThanTheWindow() {
    StreamWindowScanner scanner = REDACTING.streamScanner(anyone());
    assertThat(scanner.accept("x".repeat(79))).isEmpty();
    assertThat(scanner.accept("y")).isEqualTo("x".repeat(16));
    assertThat(scanner.finish()).isEqualTo("x".repeat(63) + "y");
    assertThatThrownBy(scanner::finish).isInstanceOf(IllegalStateException.class);
  }

  private static io.pointsman.model.ChatResponse response(String text) {
    return new io.pointsman.model.ChatResponse("id", "chat.completion", 0, "m", java.util.List.of(
        new io.pointsman.model.Choice(0, io.pointsman.model.Message.assistant(text), "stop", null,
            null)), null, null, null);
  }
}
