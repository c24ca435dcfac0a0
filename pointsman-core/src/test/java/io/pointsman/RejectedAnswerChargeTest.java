package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.model.Usage;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageRecord;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A stage before the provider that lets the provider answer, then fails the attempt with a
 * retryable error: the provider did (and billed) that work, so the call is charged for both
 * answers, and the retry first holds a worst case of its own.
 */
class RejectedAnswerChargeTest {
  /** "hi": 9 input tokens at 1 micro-unit, 100 output tokens at 2. */
  private static final long WORST_CASE = 209;

  @Test
  void anAnswerAStageRejectedIsChargedAndItsRetryIsHeld() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("answer " + attempt,
        attempt == 1 ? Usage.of(9, 40) : Usage.of(9, 10));
    AtomicInteger seen = new AtomicInteger();
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_PROVIDER, "reject-first",
        (exchange, chain) -> {
          var reply = chain.proceed(exchange);
          if (seen.incrementAndGet() == 1) {
            throw ProviderException.answered(503, "rejected by a stage after the answer", null);
          }
          return reply;
        }).build();

    ChatResult result = gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.calls).hasSize(2);
    long first = 9 + 40 * 2;
    long second = 9 + 10 * 2;
    assertThat(result.costMicros()).as("both answers were billed").isEqualTo(first + second);
    UsageRecord record = rig.record();
    assertThat(record.costMicros()).isEqualTo(first + second);
    assertThat(rig.limiter.hold().extensions).as("the retry holds its own worst case")
        .containsExactly(WORST_CASE);
    assertThat(record.costMicros()).isLessThanOrEqualTo(record.heldMicros());
    assertThat(rig.limiter.held()).isZero();
    assertThat(rig.limiter.spent()).isEqualTo(first + second);
  }

  @Test
  void anAnswerAStageRejectedIsNotRetriedWhenTheLimitCannotHoldAnotherWorstCase() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.budget = WORST_CASE;
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("answer", Usage.of(9, 40));
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_PROVIDER, "reject-all",
        (exchange, chain) -> {
          chain.proceed(exchange);
          throw ProviderException.answered(503, "rejected by a stage after the answer", null);
        }).build();

    try {
      gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));
    } catch (PointsmanException expected) {
      assertThat(expected.getMessage()).contains("rejected by a stage");
    }

    assertThat(rig.calls).as("no unheld retry").hasSize(1);
    assertThat(rig.record().costMicros()).as("the answer was billed").isEqualTo(9 + 40 * 2);
    assertThat(rig.limiter.spent()).isEqualTo(9 + 40 * 2);
    assertThat(rig.limiter.held()).isZero();
  }
}
