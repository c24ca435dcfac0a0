package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.Usage;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Findings on retries: an interrupted caller was retried at once, a retry after an unknown
 * outcome ran without a hold of its own, a Java {@code Error} from a provider was charged zero,
 * and a failing stream observer caused a second, charged send reported as success.
 */
class RetryAccountingTest {
  /** "hi": 9 input tokens at 1 micro-unit, 100 output tokens at 2. */
  private static final long WORST_CASE = 209;

  @AfterEach
  void clearInterrupt() {
    Thread.interrupted();
  }

  // (a) interrupts

  @Test
  void anInterruptedCallerIsNotRetriedAndKeepsItsInterruptFlag() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      // What the HTTP transport does when the caller is interrupted mid-exchange.
      Thread.currentThread().interrupt();
      throw ProviderException.unknownOutcome("interrupted while waiting for the response",
          new InterruptedException());
    };

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(Thread.currentThread().isInterrupted()).as("the flag stays set").isTrue();
    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(rig.calls).as("one dispatch").hasSize(1);
    UsageRecord record = rig.record();
    assertThat(record.attempts()).isEqualTo(1);
    assertThat(record.costMicros()).as("one worst case").isEqualTo(WORST_CASE);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.UNKNOWN);
  }

  @Test
  void aProviderThatSwallowedTheInterruptIsNotRetriedAndTheFlagIsRestored() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      throw ProviderException.unknownOutcome("interrupted",
          new java.io.InterruptedIOException("read interrupted"));
    };

    catchThrowable(() -> rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY)));

    assertThat(Thread.currentThread().isInterrupted()).isTrue();
    assertThat(rig.calls).hasSize(1);
    assertThat(rig.record().costMicros()).isEqualTo(WORST_CASE);
  }

  // (b) a retry after an unknown outcome holds a worst case of its own

  @Test
  void aRetryAfterAnUnknownOutcomeFirstExtendsTheHoldByAWorstCase() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      if (attempt == 1) {
        throw ProviderException.unknownOutcome("connection reset after the send", null);
      }
      return BoundaryRig.reply("ok", Usage.of(9, 10));
    };

    ChatResult result = rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY));

    assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(rig.calls).hasSize(2);
    BoundaryRig.Hold hold = rig.limiter.hold();
    assertThat(hold.extensions).containsExactly(WORST_CASE);
    assertThat(rig.trace).containsSubsequence("send", "extend", "intent", "send");
    UsageRecord record = rig.record();
    assertThat(record.heldMicros()).isEqualTo(2 * WORST_CASE);
    assertThat(record.costMicros()).isEqualTo(WORST_CASE + 9 + 10 * 2);
    assertThat(record.costMicros()).isLessThanOrEqualTo(record.heldMicros());
    assertThat(rig.accounting.intents.get(1).heldMicros()).as("the journal knows the extension")
        .isEqualTo(2 * WORST_CASE);
  }

  @Test
  void aRetryAfterAnUnknownOutcomeDoesNotRunWhenTheLimitCannotHoldAnotherWorstCase() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.budget = WORST_CASE; // one attempt's worst case, not two
    rig.script = (call, sink, attempt) -> {
      throw ProviderException.unknownOutcome("connection reset after the send", null);
    };

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(e.getMessage()).contains("connection reset");
    assertThat(rig.calls).as("no unheld retry").hasSize(1);
    assertThat(rig.limiter.spent()).as("within the limit").isEqualTo(WORST_CASE);
    assertThat(rig.limiter.held()).isZero();
  }

  @Test
  void aRetryDoesNotRunWhenExtendingThrows() {
    BoundaryRig rig = new BoundaryRig();
    Gateway gateway = rig.builder(admission -> new io.pointsman.spi.Reservation() {
      @Override
      public String id() {
        return "r";
      }

      @Override
      public long heldMicros() {
        return admission.worstCaseMicros();
      }

      @Override
      public void settle(long actualMicros) {}

      @Override
      public void release() {}

      @Override
      public boolean extend(long additionalMicros) {
        throw new IllegalStateException("limits store down");
      }
    }).build();
    rig.script = (call, sink, attempt) -> {
      throw ProviderException.unknownOutcome("timeout after the send", null);
    };

    catchThrowable(() -> gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY)));

    assertThat(rig.calls).hasSize(1);
    assertThat(rig.record().costMicros()).isEqualTo(WORST_CASE);
  }

  @Test
  void aRetryAfterAnAnsweredErrorTakesNoExtraHold() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.budget = WORST_CASE;
    rig.script = (call, sink, attempt) -> {
      if (attempt == 1) {
        throw ProviderException.answered(503, "overloaded", null);
      }
      return BoundaryRig.reply("ok", Usage.of(9, 10));
    };

    ChatResult result = rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY));

    assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(rig.limiter.hold().extensions).as("nothing was billed: no extension").isEmpty();
  }

  @Test
  void theTestRigLimiterRefusesAnExtensionBeyondTheTeamBudget() {
    // The same through InMemoryLimiter's budgets: a team budget of exactly one worst case.
    TestRig rig = new TestRig(io.pointsman.testing.FixtureProvider.builder().build(),
        100 + 100 * 2 + 9);
    rig.fixture.failNext(ProviderException.unknownOutcome("reset", null));
    rig.fixture.failNext(ProviderException.unknownOutcome("reset", null));
    Gateway gateway = rig.builder().build();

    catchThrowable(() -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    UsageRecord record = rig.accounting.records().get(0);
    assertThat(rig.fixture.sends()).isEqualTo(1);
    assertThat(rig.budgets.budget(io.pointsman.limits.Scope.team("t1")).spentMicros())
        .isEqualTo(record.costMicros()).isLessThanOrEqualTo(100 + 100 * 2 + 9);
  }

  // (c) a Java Error after the send

  @Test
  void anErrorFromTheProviderIsAnUnknownOutcomeChargedAtTheWorstCaseThenRethrown() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      throw new StackOverflowError("deep in the provider");
    };

    Throwable thrown = catchThrowable(() -> rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY)));

    assertThat(thrown).isInstanceOf(StackOverflowError.class);
    assertThat(rig.calls).hasSize(1);
    UsageRecord record = rig.record();
    assertThat(record.outcome()).isEqualTo(UsageOutcome.UNKNOWN);
    assertThat(record.costMicros()).isEqualTo(WORST_CASE);
    assertThat(record.costEstimated()).isTrue();
    assertThat(rig.limiter.hold().charged).isEqualTo(WORST_CASE);
    assertThat(rig.trace).containsSubsequence("send", "record", "settle");
  }

  // (d) a failing stream observer

  @Test
  void anObserverWhoseOnStartThrowsFailsTheCallWithoutASecondSend() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      sink.accept(BoundaryRig.chunk("hello"));
      return BoundaryRig.reply("hello", Usage.of(9, 1));
    };
    StreamObserver observer = new StreamObserver() {
      @Override
      public void onStart(StreamControl control) {
        throw new IllegalStateException("observer bug");
      }

      @Override
      public void onChunk(io.pointsman.model.ChatChunk chunk) {}
    };

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().stream(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY),
            observer));

    assertThat(e).as("not reported as success").isNotNull();
    assertThat(e.status()).isEqualTo(Status.INTERNAL);
    assertThat(e.stage()).isEqualTo("stream.observer");
    assertThat(rig.calls).as("one send").hasSize(1);
    UsageRecord record = rig.record();
    assertThat(record.attempts()).isEqualTo(1);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.FAILED);
    assertThat(record.costMicros()).as("what the provider did").isEqualTo(9 + 2);
  }

  @Test
  void anObserverWhoseOnChunkThrowsNeverCausesARetryEvenWhenTheProviderThenFails() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> {
      sink.accept(BoundaryRig.chunk("hello")); // the observer throws here
      throw ProviderException.unknownOutcome("the stream broke off", null);
    };

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> rig.gateway().stream(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY),
            chunk -> {
              throw new IllegalStateException("observer bug");
            }));

    assertThat(e).isNotNull();
    assertThat(rig.calls).as("one send").hasSize(1);
    assertThat(rig.record().costMicros()).isEqualTo(WORST_CASE);
  }
}
