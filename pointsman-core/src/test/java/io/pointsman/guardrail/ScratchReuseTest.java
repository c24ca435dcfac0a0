package io.pointsman.guardrail;

import static io.pointsman.guardrail.Fixtures.AWS_KEY;
import static io.pointsman.guardrail.Fixtures.GITHUB_TOKEN;
import static io.pointsman.guardrail.Fixtures.anyone;
import static io.pointsman.guardrail.Fixtures.user;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.model.ChatRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** The input chain's per-thread scratch state: reused between checks, never shared by two. */
class ScratchReuseTest {
  @Test
  void aThreadGetsItsInstanceBackAfterReleaseAndANewOneWhileItIsTaken() {
    RuleSet.Scratch first = RuleSet.Scratch.acquire();
    RuleSet.Scratch nested = RuleSet.Scratch.acquire();
    assertThat(nested).isNotSameAs(first);
    nested.release();
    first.release();
    RuleSet.Scratch again = RuleSet.Scratch.acquire();
    try {
      assertThat(again).isSameAs(first);
    } finally {
      again.release();
    }
  }

  @Test
  void releaseForgetsTheTextAndALargeCopyOfIt() {
    RuleSet.Scratch scratch = RuleSet.Scratch.acquire();
    try {
      scratch.found.add(new Finding("r", 0, 1));
      scratch.text.fill("a".repeat(ScanText.KEEP_CHARS + 1));
    } finally {
      scratch.release();
    }
    assertThat(scratch.found).isEmpty();
    assertThat(scratch.text.text).isNull();
    assertThat(scratch.text.chars).isEmpty();
    ScanText small = scratch.text.fill("short text");
    char[] kept = small.chars;
    scratch.release();
    assertThat(scratch.text.chars).isSameAs(kept);
  }

  @Test
  void releaseLetsGoOfMatchListsGrownForATextWithManyMatches() {
    ScanText text = new ScanText().fill("AKIA ".repeat(3 * ScanText.KEEP_MATCHES));
    LiteralMatcher.Matches matches = text.matches(SecretDetector.ofDefaults().triggers());
    assertThat(matches.size()).isEqualTo(3 * ScanText.KEEP_MATCHES);
    text.release();
    assertThat(matches.size()).isZero();
    assertThat(matches.capacity()).isLessThan(ScanText.KEEP_MATCHES);
    ScanText few = new ScanText().fill("AKIA ".repeat(100));
    LiteralMatcher.Matches kept = few.matches(SecretDetector.ofDefaults().triggers());
    int capacity = kept.capacity();
    few.release();
    assertThat(kept.capacity()).isEqualTo(capacity);
  }

  @Test
  void aListenerThatChecksAnotherRequestOnTheSameThreadLeavesBothChecksRight() {
    AtomicReference<InputGuardrailChain> self = new AtomicReference<>();
    List<String> nestedResults = new ArrayList<>();
    AtomicBoolean nested = new AtomicBoolean();
    InputGuardrailChain chain = InputGuardrailChain.defaultBuilder()
        .listener((identity, stage, rule, action) -> {
          if (nested.compareAndSet(false, true)) {
            ChatRequest other = user("the other key " + AWS_KEY + " and more words after it");
            nestedResults.add(self.get().check(anyone(), other).messages().get(0).text());
          }
        })
        .build();
    self.set(chain);
    // Two findings: the listener runs the nested check on the first, and the outer check must
    // still act on the second, which it reads from its own scratch state.
    ChatRequest request = user("my token is " + GITHUB_TOKEN + ", my key " + AWS_KEY + " ok");
    String checked = chain.check(anyone(), request).messages().get(0).text();
    assertThat(checked).isEqualTo("my token is [REDACTED:secret.github_token], my key "
        + "[REDACTED:secret.aws_access_key] ok");
    assertThat(nestedResults).containsExactly(
        "the other key [REDACTED:secret.aws_access_key] and more words after it");
    // The next check on this thread reuses the instance the outer check released.
    assertThat(chain.check(anyone(), user("plain words " + GITHUB_TOKEN)).messages().get(0)
        .text()).isEqualTo("plain words [REDACTED:secret.github_token]");
  }
}
