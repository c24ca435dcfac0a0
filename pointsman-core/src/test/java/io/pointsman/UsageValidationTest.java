package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Finding: provider usage was taken unvalidated, so impossible counts made {@code finish}
 * throw before the record and the release. Every provider usage now passes one validation
 * boundary: impossible counts are charged the attempt's worst case, estimated and counted;
 * plausible counts beyond the hold are charged as reported and counted.
 */
class UsageValidationTest {
  /** "hi": 9 input tokens at 1 micro-unit, 100 output tokens at 2. */
  private static final long WORST_CASE = 9 + 100 * 2;

  static Stream<Arguments> impossibleUsage() {
    return Stream.of(
        Arguments.of("negative cached tokens",
            new Usage(9, 5, 14, new PromptTokensDetails(-3L, null), null, null)),
        Arguments.of("more cached than prompt tokens",
            new Usage(9, 5, 14, new PromptTokensDetails(50L, null), null, null)),
        Arguments.of("a cost that overflows a long",
            Usage.of(9, Long.MAX_VALUE / 4)),
        Arguments.of("a cost no counter can hold",
            Usage.of(9_000_000_000_000_000L / 1_000_000 * 1_000_000, 0)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("impossibleUsage")
  void impossibleUsageIsChargedTheWorstCaseEstimatedAndTheCallStillEnds(String name,
      Usage usage) {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("ok", usage);
    Gateway gateway = rig.gateway();

    Throwable thrown = catchThrowable(() -> gateway.chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY)));

    assertThat(thrown).as("the caller gets the answer").isNull();
    UsageRecord record = rig.record();
    assertThat(record.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(record.costMicros()).isEqualTo(WORST_CASE);
    assertThat(record.costEstimated()).isTrue();
    assertThat(record.usage().promptTokens()).isEqualTo(9);
    assertThat(record.usage().completionTokens()).isEqualTo(100);
    assertThat(rig.limiter.hold().settles).isEqualTo(1);
    assertThat(rig.limiter.hold().charged).isEqualTo(WORST_CASE);
    assertThat(rig.limiter.held()).as("nothing stays held").isZero();
    assertThat(gateway.invalidUsageCount()).isEqualTo(1); // new API
    assertThat(gateway.usageAboveBoundCount()).isZero(); // new API
  }

  @Test
  void plausibleUsageBeyondTheCapSentIsChargedAsReportedAndCounted() {
    BoundaryRig rig = new BoundaryRig();
    // The provider ignored the cap of 100 and billed 300 output tokens.
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("ok", Usage.of(9, 300));
    Gateway gateway = rig.gateway();

    gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    UsageRecord record = rig.record();
    assertThat(record.costMicros()).as("never below what the provider billed")
        .isEqualTo(9 + 300 * 2);
    assertThat(record.costMicros()).isGreaterThan(record.heldMicros());
    assertThat(record.costEstimated()).as("it is the provider's own report").isFalse();
    assertThat(record.usage()).isEqualTo(Usage.of(9, 300));
    assertThat(gateway.usageAboveBoundCount()).isEqualTo(1); // new API
    assertThat(gateway.invalidUsageCount()).isZero(); // new API
  }

  @Test
  void usageWithinTheBoundsIsChargedAsReportedAndNotCounted() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> BoundaryRig.reply("ok",
        Usage.of(9, 40, 4));
    Gateway gateway = rig.gateway();

    ChatResult result = gateway.chat(BoundaryRig.ask("hi"), CallOptions.of(BoundaryRig.KEY));

    assertThat(result.costMicros()).isEqualTo(9 + 40 * 2);
    assertThat(result.costEstimated()).isFalse();
    assertThat(gateway.usageAboveBoundCount() + gateway.invalidUsageCount()).isZero(); // new API
  }

  @Test
  void aReservationWhoseSettleThrowsAnErrorStillGetsItsRecordFirst() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.settleFailure = new OutOfMemoryError("limiter out of memory");

    Throwable thrown = catchThrowable(() -> rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY)));

    assertThat(thrown).isInstanceOf(OutOfMemoryError.class);
    assertThat(rig.record().outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(rig.limiter.hold().settles).isEqualTo(1);
  }

  @Test
  void aReservationWhoseSettleThrowsStillAnswersWithTheRecordMade() {
    BoundaryRig rig = new BoundaryRig();
    rig.limiter.settleFailure = new IllegalStateException("limiter bug");

    ChatResult result = rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY));

    assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(rig.record().costMicros()).isEqualTo(result.costMicros());
    assertThat(rig.limiter.hold().settles).isEqualTo(1);
  }

  @Test
  void aProviderThatReportsNoMessageAndNoUsageIsChargedItsInputEstimated() {
    BoundaryRig rig = new BoundaryRig();
    rig.script = (call, sink, attempt) -> new io.pointsman.spi.ProviderReply(
        new io.pointsman.model.ChatResponse("r", "chat.completion", 0, "m",
            java.util.List.of(new io.pointsman.model.Choice(0, null, "stop", null, null)), null,
            null, null), null, false);

    catchThrowable(() -> rig.gateway().chat(BoundaryRig.ask("hi"),
        CallOptions.of(BoundaryRig.KEY)));

    UsageRecord record = rig.record();
    assertThat(record.costMicros()).isEqualTo(9);
    assertThat(record.costEstimated()).isTrue();
    assertThat(rig.limiter.hold().ends()).isEqualTo(1);
  }
}
