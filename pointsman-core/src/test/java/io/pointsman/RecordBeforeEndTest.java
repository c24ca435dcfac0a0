package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Reply;
import io.pointsman.testing.FixtureProvider;
import org.junit.jupiter.api.Test;

/**
 * Finding: the hold was ended in the counters before the usage record was durable, so a crash
 * in between, or a failed record followed by a restart, brought the call back from its dispatch
 * intent as interrupted and ended its hold a second time. The record is now made durable
 * first; a dispatched call whose record failed keeps its hold for recovery.
 */
class RecordBeforeEndTest {

  @Test
  void theRecordIsDurableBeforeTheReservationIsSettled() {
    BoundaryRig rig = new BoundaryRig();

    rig.gateway().chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.trace).containsExactly("intent", "send", "record", "settle");
  }

  @Test
  void theRecordIsDurableBeforeAnUndispatchedReservationIsReleased() {
    BoundaryRig rig = new BoundaryRig();
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_CACHE, "answers",
        (exchange, chain) -> Reply.of(FixtureProvider.builder().build().send(
            new io.pointsman.spi.ProviderCall("r", "e", io.pointsman.spi.Deployment.of("x",
                "p", "m"), exchange.request(), 1, null)).response())).build();

    gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(rig.trace).containsExactly("record", "release");
  }

  @Test
  void aDispatchedCallWhoseRecordFailedKeepsItsHoldForRecovery() {
    BoundaryRig rig = new BoundaryRig();
    rig.accounting.failSettled = new IllegalStateException("journal poisoned");
    Gateway gateway = rig.gateway();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(e.stage()).isEqualTo(Stages.LEDGER_WRITE);
    BoundaryRig.Hold hold = rig.limiter.hold();
    assertThat(hold.ends()).as("recovery of the dispatch intent ends it, once").isZero();
    assertThat(rig.limiter.held()).isEqualTo(209);
    assertThat(rig.accounting.intents).hasSize(1);
    assertThat(gateway.holdsLeftForRecovery()).isEqualTo(1); // new API
  }

  @Test
  void anUndispatchedCallWhoseRecordFailedIsReleased() {
    BoundaryRig rig = new BoundaryRig();
    rig.accounting.failSettled = new IllegalStateException("journal poisoned");
    Gateway gateway = rig.builder().inputGuardrail((identity, request) -> {
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT, "pii",
          "refused");
    }).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.stage()).isEqualTo(Stages.LEDGER_WRITE);
    assertThat(rig.limiter.hold().releases).as("nothing was sent: nothing to recover")
        .isEqualTo(1);
    assertThat(rig.limiter.held()).isZero();
    assertThat(gateway.holdsLeftForRecovery()).isZero(); // new API
  }

  @Test
  void aRecordThatIsDurableAlthoughSomethingAfterItFailedEndsTheHold() {
    BoundaryRig rig = new BoundaryRig();
    // What the journal throws when its synchronous settlement fails after the record is durable.
    rig.accounting.failSettled = new io.pointsman.spi.RecordDurableException(
        "synchronous settlement failed", null);
    Gateway gateway = rig.gateway();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(rig.trace).containsExactly("intent", "send", "record", "settle");
    assertThat(rig.limiter.held()).as("nothing left for a recovery that has nothing to do")
        .isZero();
    assertThat(gateway.holdsLeftForRecovery()).isZero();
  }
}
