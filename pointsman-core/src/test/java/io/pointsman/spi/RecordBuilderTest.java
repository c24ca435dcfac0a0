package io.pointsman.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.pointsman.CacheOutcome;
import io.pointsman.model.Usage;
import java.time.Instant;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** The accounting records are built by named fields and validated like their constructors. */
class RecordBuilderTest {
  private static final Instant STARTED = Instant.parse("2025-01-02T03:04:05Z");
  private static final Instant AT = STARTED.plusMillis(40);

  private static UsageRecord.Builder usage() {
    return UsageRecord.builder().eventId("e1").requestId("r1").keyId("k1").userId("u1")
        .teamId("t1").orgId("o1").tags(Set.of("app")).model("gpt").deploymentId("d1")
        .attempts(2).outcome(UsageOutcome.SUCCESS).httpStatus(200).decidedBy(null).rule(null)
        .usage(Usage.of(10, 5)).costMicros(123).costEstimated(false).reservationId("res1")
        .heldMicros(500).cacheOutcome(CacheOutcome.MISS).startedAt(STARTED)
        .durationNanos(7_000);
  }

  private static DispatchIntent.Builder intent() {
    return DispatchIntent.builder().eventId("e1").requestId("r1").attempt(2).keyId("k1")
        .userId("u1").teamId("t1").orgId("o1").tags(Set.of("app")).model("gpt")
        .deploymentId("d1").provider("openai").reservationId("res1").heldMicros(500)
        .worstCaseMicros(900).at(AT).callStartedAt(STARTED);
  }

  @Test
  void buildsAUsageRecordByNamedFieldsEqualToTheConstructorForm() {
    UsageRecord built = usage().build();
    UsageRecord constructed = new UsageRecord("e1", "r1", "k1", "u1", "t1", "o1", Set.of("app"),
        "gpt", "d1", 2, UsageOutcome.SUCCESS, 200, null, null, Usage.of(10, 5), 123, false,
        "res1", 500, CacheOutcome.MISS, STARTED, 7_000);
    assertThat(built).isEqualTo(constructed);
    assertThat(built.toBuilder().build()).isEqualTo(built);
    UsageRecord changed = built.toBuilder().costMicros(999).costEstimated(true).build();
    assertThat(changed.costMicros()).isEqualTo(999);
    assertThat(changed.costEstimated()).isTrue();
    assertThat(changed.toBuilder().costMicros(123).costEstimated(false).build())
        .isEqualTo(built);
  }

  @Test
  void buildsADispatchIntentByNamedFieldsEqualToTheConstructorForm() {
    DispatchIntent built = intent().build();
    DispatchIntent constructed = new DispatchIntent("e1", "r1", 2, "k1", "u1", "t1", "o1",
        Set.of("app"), "gpt", "d1", "openai", "res1", 500, 900, AT, STARTED);
    assertThat(built).isEqualTo(constructed);
    assertThat(built.toBuilder().build()).isEqualTo(built);
    assertThat(built.toBuilder().attempt(3).build().attempt()).isEqualTo(3);
  }

  @Test
  void anIntentWithoutACallStartStartedWhenItWasRecorded() {
    DispatchIntent d = intent().callStartedAt(null).build();
    assertThat(d.callStartedAt()).isEqualTo(AT);
    assertThat(d).isEqualTo(new DispatchIntent("e1", "r1", 2, "k1", "u1", "t1", "o1",
        Set.of("app"), "gpt", "d1", "openai", "res1", 500, 900, AT));
  }

  @Test
  void optionalFieldsMayStayUnset() {
    UsageRecord r = UsageRecord.builder().eventId("e").requestId("r").keyId("k")
        .outcome(UsageOutcome.REJECTED).httpStatus(401).cacheOutcome(CacheOutcome.BYPASS)
        .startedAt(STARTED).build();
    assertThat(r.tags()).isEmpty();
    assertThat(r.userId()).isNull();
    assertThat(r.usage()).isNull();
    assertThat(r.reservationId()).isNull();
  }

  static Stream<Arguments> brokenUsageRecords() {
    return Stream.<Arguments>of(
        Arguments.of("eventId", (UnaryOperator<UsageRecord.Builder>) b -> b.eventId(null)),
        Arguments.of("requestId", (UnaryOperator<UsageRecord.Builder>) b -> b.requestId(null)),
        Arguments.of("keyId", (UnaryOperator<UsageRecord.Builder>) b -> b.keyId(null)),
        Arguments.of("outcome", (UnaryOperator<UsageRecord.Builder>) b -> b.outcome(null)),
        Arguments.of("cacheOutcome",
            (UnaryOperator<UsageRecord.Builder>) b -> b.cacheOutcome(null)),
        Arguments.of("startedAt", (UnaryOperator<UsageRecord.Builder>) b -> b.startedAt(null)),
        Arguments.of("negative", (UnaryOperator<UsageRecord.Builder>) b -> b.costMicros(-1)),
        Arguments.of("negative", (UnaryOperator<UsageRecord.Builder>) b -> b.attempts(-1)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenUsageRecords")
  void refusesABrokenUsageRecordLikeTheConstructor(String field,
      UnaryOperator<UsageRecord.Builder> breakIt) {
    Throwable fromBuilder = catchThrowable(breakIt.apply(usage())::build);
    if (field.equals("negative")) {
      assertThat(fromBuilder).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> new UsageRecord("e1", "r1", "k1", null, null, null, Set.of(),
          null, null, 0, UsageOutcome.SUCCESS, 200, null, null, null, -1, false, null, 0,
          CacheOutcome.MISS, STARTED, 0)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage(fromBuilder.getMessage());
    } else {
      assertThat(fromBuilder).isInstanceOf(NullPointerException.class).hasMessage(field);
    }
  }

  @Test
  void aUsageRecordWithoutAnyFieldNamesTheFirstMissingOne() {
    assertThatThrownBy(() -> UsageRecord.builder().build())
        .isInstanceOf(NullPointerException.class).hasMessage("eventId");
    assertThatThrownBy(() -> UsageRecord.builder().eventId("e").requestId("r").keyId("k")
        .outcome(UsageOutcome.SUCCESS).startedAt(STARTED).build())
        .isInstanceOf(NullPointerException.class).hasMessage("cacheOutcome");
  }

  static Stream<Arguments> brokenIntents() {
    return Stream.of("eventId", "requestId", "keyId", "model", "deploymentId", "provider",
        "reservationId").map(Arguments::of);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenIntents")
  void refusesADispatchIntentMissingARequiredFieldLikeTheConstructor(String field) {
    DispatchIntent.Builder b = intent();
    switch (field) {
      case "eventId" -> b.eventId(null);
      case "requestId" -> b.requestId(null);
      case "keyId" -> b.keyId(null);
      case "model" -> b.model(null);
      case "deploymentId" -> b.deploymentId(null);
      case "provider" -> b.provider(null);
      default -> b.reservationId(null);
    }
    assertThatThrownBy(b::build).isInstanceOf(NullPointerException.class).hasMessage(field);
  }

  @Test
  void refusesAnIntentWithoutATimeOrWithABadAttemptLikeTheConstructor() {
    assertThatThrownBy(() -> intent().at(null).callStartedAt(null).build())
        .isInstanceOf(NullPointerException.class).hasMessage("at");
    Throwable constructor = catchThrowable(() -> new DispatchIntent("e1", "r1", 0, "k1", null,
        null, null, Set.of(), "gpt", "d1", "openai", "res1", 0, 0, AT, AT));
    assertThat(constructor).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> intent().attempt(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage(constructor.getMessage());
    assertThatThrownBy(() -> DispatchIntent.builder().eventId("e").requestId("r").keyId("k")
        .model("m").deploymentId("d").provider("p").reservationId("x").at(AT).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessage(constructor.getMessage());
  }
}
