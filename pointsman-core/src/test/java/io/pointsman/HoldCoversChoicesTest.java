package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Usage;
import io.pointsman.spi.Admission;
import io.pointsman.spi.UsageRecord;
import org.junit.jupiter.api.Test;

/**
 * Finding: {@code n} (choices) reached the provider but not the hold, so a call that asked for
 * four choices was held for one. The worst case is input bound × input price + n × output cap
 * × output price.
 */
class HoldCoversChoicesTest {
  /** "hi" is bounded at 3 (prompt) + 4 (message) + 2 (bytes) = 9 input tokens. */
  private static final long INPUT = 9;

  private static ChatRequest fourChoices() {
    return BoundaryRig.ask("hi").toBuilder().n(4).build();
  }

  @Test
  void theHoldCoversEveryChoiceAtTheFullOutputCap() {
    BoundaryRig rig = new BoundaryRig();
    // Every choice uses its whole cap: the provider bills 4 x 100 output tokens.
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("ok", Usage.of(INPUT, 400));

    rig.gateway().chat(fourChoices(), CallOptions.of(BoundaryRig.KEY));

    Admission admission = rig.limiter.admissions.get(0);
    assertThat(admission.maxOutputTokens()).isEqualTo(4 * BoundaryRig.CAP);
    assertThat(admission.worstCaseMicros()).isEqualTo(INPUT * 1 + 4 * BoundaryRig.CAP * 2);
    UsageRecord record = rig.record();
    assertThat(record.costMicros()).isEqualTo(809);
    assertThat(record.costMicros()).as("the provider's full bill fits the hold")
        .isLessThanOrEqualTo(record.heldMicros());
    assertThat(rig.calls.get(0).request().n()).isEqualTo(4);
  }

  @Test
  void aBudgetThatFitsOneChoiceRefusesFourBeforeAnyProviderIsCalled() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.budget = 500; // one choice (209) fits, four (809) do not
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("ok", Usage.of(INPUT, 400));

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().chat(fourChoices(), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
    assertThat(rig.calls).isEmpty();
    assertThat(rig.limiter.spent()).isZero();
  }

  @Test
  void oneChoiceIsHeldForOneCap() {
    BoundaryRig rig = new BoundaryRig();

    rig.gateway().chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    Admission admission = rig.limiter.admissions.get(0);
    assertThat(admission.maxOutputTokens()).isEqualTo(BoundaryRig.CAP);
    assertThat(admission.worstCaseMicros()).isEqualTo(INPUT + BoundaryRig.CAP * 2);
  }
}
