package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.limits.BudgetState;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reply;
import io.pointsman.spi.Stage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * Every authenticated call ends with exactly one usage record and every reservation with
 * exactly one settle or release, whatever stages and providers do.
 */
class ExactlyOnceAccountingTest {

  private static void assertAccountedOnce(TestRig rig, boolean dispatched) {
    List<UsageRecord> records = rig.accounting.records();
    assertThat(records).hasSize(1);
    UsageRecord record = records.get(0);
    assertThat(record.reservationId()).isNotNull();
    assertThat(rig.limiter.ends(record.reservationId())).isEqualTo(1);
    if (dispatched) {
      assertThat(rig.limiter.settles.get(record.reservationId()).get()).isEqualTo(1);
      assertThat(rig.limiter.charged.get(record.reservationId())).isEqualTo(record.costMicros());
    } else {
      assertThat(rig.limiter.releases.get(record.reservationId()).get()).isEqualTo(1);
    }
    BudgetState team = rig.budgets.budget(Scope.team("t1"));
    assertThat(team.heldMicros()).as("nothing stays held").isZero();
    assertThat(team.spentMicros()).isEqualTo(record.costMicros());
    assertThat(rig.budgets.inflight(Scope.key("k1"))).isZero();
  }

  @ParameterizedTest
  @EnumSource(InsertionPoint.class)
  void aThrowingCustomStageStillSettlesOrReleasesExactlyOnce(InsertionPoint point) {
    TestRig rig = new TestRig();
    Stage throwing = (exchange, chain) -> {
      throw new IllegalStateException("host bug");
    };
    Gateway gateway = rig.builder().stage(point, "buggy", throwing).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.INTERNAL);
    assertThat(e.stage()).isEqualTo("buggy");
    assertThat(e).hasCauseInstanceOf(IllegalStateException.class);
    if (point == InsertionPoint.AFTER_AUTH) {
      // Nothing was reserved yet: one record, no reservation.
      assertThat(rig.accounting.records()).singleElement()
          .satisfies(r -> assertThat(r.reservationId()).isNull());
      assertThat(rig.limiter.settles).isEmpty();
    } else {
      assertAccountedOnce(rig, false);
      assertThat(rig.fixture.sends()).isZero();
    }
  }

  @ParameterizedTest
  @EnumSource(InsertionPoint.class)
  void aThrowingStageAfterTheProviderAnsweredChargesTheProviderWork(InsertionPoint point) {
    TestRig rig = new TestRig();
    Stage throwsAfter = (exchange, chain) -> {
      chain.proceed(exchange);
      throw new IllegalStateException("fails on the way back");
    };
    Gateway gateway = rig.builder().stage(point, "late", throwsAfter).build();

    catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertAccountedOnce(rig, true);
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.FAILED);
    assertThat(record.costMicros()).as("the provider answered; its work is charged")
        .isPositive();
  }

  static Stream<Arguments> providerFailures() {
    return Stream.of(
        Arguments.of("runtime exception", (Consumer<FixtureProvider>) f -> {
          f.failNext(new IllegalStateException("driver bug"));
          f.failNext(new IllegalStateException("driver bug"));
        }, UsageOutcome.UNKNOWN, true),
        Arguments.of("answered 503 twice", (Consumer<FixtureProvider>) f -> {
          f.failNext(ProviderException.answered(503, "x", null));
          f.failNext(ProviderException.answered(503, "x", null));
        }, UsageOutcome.PROVIDER_FAILED, false),
        // A 500 may come after the provider did the work: its outcome is unknown.
        Arguments.of("answered 500 twice", (Consumer<FixtureProvider>) f -> {
          f.failNext(ProviderException.answered(500, "x", null));
          f.failNext(ProviderException.answered(500, "x", null));
        }, UsageOutcome.UNKNOWN, true),
        Arguments.of("answered 400", (Consumer<FixtureProvider>) f ->
            f.failNext(ProviderException.answered(400, "bad", null)),
            UsageOutcome.PROVIDER_FAILED, false),
        Arguments.of("unknown then success", (Consumer<FixtureProvider>) f ->
            f.failNext(ProviderException.unknownOutcome("reset", null)),
            UsageOutcome.SUCCESS, true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("providerFailures")
  void aFailingProviderSettlesExactlyOnceAndNeverChargesUnknownAsZero(String name,
      Consumer<FixtureProvider> script, UsageOutcome expected, boolean charged) {
    TestRig rig = new TestRig();
    script.accept(rig.fixture);
    Gateway gateway = rig.builder().build();
    try {
      gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    } catch (PointsmanException expectedFailure) {
      assertThat(expectedFailure.stage()).isEqualTo(Stages.PROVIDER_ATTEMPT);
    }
    assertAccountedOnce(rig, true);
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(expected);
    if (charged) {
      assertThat(record.costMicros()).isPositive();
      assertThat(record.costEstimated()).isTrue();
    } else {
      assertThat(record.costMicros()).isZero();
    }
  }

  @Test
  void aStageThatCallsProceedTwiceFailsTheCallNamingItAndIsAccountedOnce() {
    TestRig rig = new TestRig();
    Stage twice = (exchange, chain) -> {
      chain.proceed(exchange);
      try {
        return chain.proceed(exchange);
      } catch (PointsmanException swallowed) {
        // A stage that hides the violation must not turn it into a success.
        return Reply.of(new ChatResponse("x", "chat.completion", 0, "m", List.of(), null, null,
            null));
      }
    };
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_CACHE, "greedy", twice).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.getMessage()).contains("stage 'greedy' called proceed twice");
    assertThat(rig.fixture.sends()).isEqualTo(1);
    assertAccountedOnce(rig, true);
  }

  @Test
  void aStageThatReturnsNullFailsTheCallNamingIt() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.builder()
        .stage(InsertionPoint.AFTER_PROVIDER, "forgetful", (exchange, chain) -> null).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.stage()).isEqualTo("forgetful");
    assertThat(e.getMessage()).contains("stage 'forgetful' returned null");
    assertAccountedOnce(rig, false);
  }

  @Test
  void aStageThatShortCircuitsCannotSkipAccounting() {
    TestRig rig = new TestRig();
    ChatResponse canned = Json.readResponse(("{\"id\":\"c\",\"object\":\"chat.completion\","
        + "\"created\":0,\"model\":\"gpt-test\",\"choices\":[]}").getBytes(
            java.nio.charset.StandardCharsets.UTF_8));
    Gateway gateway = rig.builder()
        .stage(InsertionPoint.BEFORE_PROVIDER, "canned", (exchange, chain) -> Reply.of(canned))
        .build();

    ChatResult result = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));

    assertThat(result.outcome()).isEqualTo(UsageOutcome.SERVED_BY_STAGE);
    assertThat(rig.fixture.sends()).isZero();
    assertThat(rig.accounting.intents()).isEmpty();
    assertAccountedOnce(rig, false);
    assertThat(rig.accounting.records().get(0).eventId()).isEqualTo(result.eventId());
  }

  @Test
  void aStageThatPassesAForeignExchangeIsRefused() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.builder().stage(InsertionPoint.BEFORE_CACHE, "forger",
        (exchange, chain) -> chain.proceed(
            java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {io.pointsman.spi.Exchange.class},
                (proxy, method, args) -> method.invoke(exchange, args))
                instanceof io.pointsman.spi.Exchange x ? x : exchange)).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.getMessage()).contains("passed an exchange it did not receive");
    assertThat(rig.fixture.sends()).isZero();
    assertAccountedOnce(rig, false);
  }

  @Test
  void successCacheHitAndDenialEachEndTheirReservationOnce() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.builder().build();
    ChatResult miss = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    ChatResult hit = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    catchThrowableOfType(PointsmanException.class, () -> gateway.chat(
        TestRig.request("nul\u0000"), CallOptions.of(TestRig.KEY)));

    List<UsageRecord> records = rig.accounting.records();
    assertThat(records).extracting(UsageRecord::outcome).containsExactly(
        UsageOutcome.SUCCESS, UsageOutcome.CACHE_HIT, UsageOutcome.REJECTED);
    for (UsageRecord r : records) {
      assertThat(rig.limiter.ends(r.reservationId())).as(r.outcome().name()).isEqualTo(1);
    }
    assertThat(hit.costMicros()).isZero();
    assertThat(rig.budgets.budget(Scope.team("t1")).spentMicros())
        .isEqualTo(miss.costMicros());
    assertThat(rig.budgets.budget(Scope.team("t1")).heldMicros()).isZero();
  }

  @Test
  void theProviderIsNeverCalledBeforeItsIntentIsRecorded() {
    TestRig[] holder = new TestRig[1];
    List<String> violations = new java.util.concurrent.CopyOnWriteArrayList<>();
    FixtureProvider checking = FixtureProvider.builder().onSend((ProviderCall call) -> {
      boolean recorded = holder[0].accounting.intents().stream().anyMatch(i ->
          i.eventId().equals(call.eventId()) && i.attempt() == call.attempt());
      if (!recorded) {
        violations.add(call.eventId() + "#" + call.attempt());
      }
    }).build();
    holder[0] = new TestRig(checking, 1_000_000_000L);
    checking.failNext(ProviderException.answered(503, "retry me", null));
    Gateway gateway = holder[0].builder().build();

    for (int i = 0; i < 20; i++) {
      gateway.chat(TestRig.request("q" + i), CallOptions.of(TestRig.KEY));
    }

    assertThat(checking.sends()).isEqualTo(21);
    assertThat(violations).isEmpty();
  }

  @Test
  void whenTheIntentCannotBeRecordedTheProviderIsNotCalled() {
    TestRig rig = new TestRig();
    io.pointsman.spi.Accounting refusing = new io.pointsman.spi.Accounting() {
      @Override
      public void dispatched(io.pointsman.spi.DispatchIntent intent) {
        throw new IllegalStateException("journal poisoned");
      }

      @Override
      public void settled(UsageRecord record) {
        rig.accounting.settled(record);
      }
    };
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .limiter(rig.limiter).accounting(refusing).provider("fixture", rig.fixture)
        .deployment(io.pointsman.spi.Deployment.of("d", "fixture", "gpt-test")).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(rig.fixture.sends()).isZero();
    assertAccountedOnce(rig, false);
  }

  @Test
  void aProviderThatReturnsNullIsAnUnknownOutcome() {
    TestRig rig = new TestRig();
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .limiter(rig.limiter).accounting(rig.accounting).maxAttempts(1)
        .provider("null", new io.pointsman.spi.Provider() {
          @Override
          public ProviderReply send(ProviderCall call) {
            return null;
          }
        })
        .deployment(io.pointsman.spi.Deployment.of("d", "null", "gpt-test")).build();

    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));

    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertAccountedOnce(rig, true);
    assertThat(rig.accounting.records().get(0).outcome()).isEqualTo(UsageOutcome.UNKNOWN);
  }
}
