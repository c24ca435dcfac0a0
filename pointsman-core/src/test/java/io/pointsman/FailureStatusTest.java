package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Each failure maps to its status and names the stage (and rule) that decided. */
class FailureStatusTest {

  private static PointsmanException fail(Gateway gateway, ChatRequest request, String key) {
    return catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(request, CallOptions.of(key)));
  }

  @Test
  void unknownKeyIs401AtIdentityAuthAndProducesNoRecord() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.builder().build();
    PointsmanException e = fail(gateway, TestRig.request("hi"), "pm-not-a-real-key");
    assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED);
    assertThat(e.stage()).isEqualTo(Stages.IDENTITY_AUTH);
    assertThat(rig.accounting.records()).isEmpty();
    assertThat(gateway.authenticationFailures()).isEqualTo(1);
  }

  @Test
  void revokedKeyIs401() {
    TestRig rig = new TestRig();
    rig.keys.revoke("k1");
    PointsmanException e = fail(rig.builder().build(), TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.UNAUTHORIZED);
    assertThat(e.getMessage()).contains("revoked");
  }

  @Test
  void unknownModelIs404AtModelResolve() {
    TestRig rig = new TestRig();
    PointsmanException e = fail(rig.builder().build(),
        TestRig.request("hi").withModel("no-such-model"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.NOT_FOUND);
    assertThat(e.stage()).isEqualTo(Stages.MODEL_RESOLVE);
    assertThat(rig.accounting.records()).singleElement()
        .satisfies(r -> assertThat(r.outcome()).isEqualTo(UsageOutcome.REJECTED));
  }

  @Test
  void modelOutsideTheKeysGrantIs403NamingTheGrant() {
    TestRig rig = new TestRig();
    PointsmanException e = fail(rig.builder().build(), TestRig.request("hi"),
        TestRig.MINI_ONLY_KEY);
    assertThat(e.status()).isEqualTo(Status.FORBIDDEN);
    assertThat(e.stage()).isEqualTo(Stages.MODEL_RESOLVE);
    assertThat(e.rule()).isEqualTo("grant:key");
  }

  @Test
  void modelOutsideTheTeamsGrantIs403() {
    TestRig rig = new TestRig();
    rig.keys.putTeam("t1", io.pointsman.spi.Grant.only("mini-model"));
    PointsmanException e = fail(rig.builder().build(), TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.FORBIDDEN);
    assertThat(e.rule()).isEqualTo("grant:team");
  }

  @Test
  void promptBeyondTheContextWindowIs400AfterAnExactCount() {
    TestRig rig = new TestRig();
    ChatRequest huge = TestRig.request("word ".repeat(9_000));
    PointsmanException e = fail(rig.builder().build(), huge, TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.MODEL_RESOLVE);
    assertThat(e.rule()).isEqualTo("context_window");
  }

  @Test
  void byteBoundOverTheWindowButExactCountWithinItIsAdmitted() {
    TestRig rig = new TestRig();
    // 9,000 words: 45,000 bytes (over the 8,192 window) but about 9,000 tokens... too many;
    // 1,600 repetitions of "hello " are 9,600 bytes and about 1,600 tokens.
    ChatResult result = rig.builder().build().chat(TestRig.request("hello ".repeat(1_600)),
        CallOptions.of(TestRig.KEY));
    assertThat(result.outcome()).isEqualTo(UsageOutcome.SUCCESS);
  }

  @Test
  void exhaustedBudgetIs402NamingTheBudget() {
    TestRig rig = new TestRig(FixtureProvider.builder().build(), 50);
    PointsmanException e = fail(rig.builder().build(), TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
    assertThat(e.stage()).isEqualTo(Stages.RATELIMIT_RESERVE);
    assertThat(e.rule()).isEqualTo("budget:team:t1");
    assertThat(e.getStackTrace()).as("denials carry no stack trace").isEmpty();
  }

  @Test
  void concurrencyLimitIs429() {
    TestRig rig = new TestRig();
    io.pointsman.limits.InMemoryLimiter one = io.pointsman.limits.InMemoryLimiter.builder()
        .concurrency(io.pointsman.limits.Scope.key("k1"), 1).build();
    java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    FixtureProvider blocking = FixtureProvider.builder().onSend(call -> {
      inside.countDown();
      try {
        release.await();
      } catch (InterruptedException ex) {
        Thread.currentThread().interrupt();
      }
    }).build();
    Gateway gateway = io.pointsman.Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .limiter(one).provider("fixture", blocking)
        .deployment(io.pointsman.spi.Deployment.of("d", "fixture", "gpt-test")).build();
    var first = gateway.chatAsync(TestRig.request("one"), CallOptions.of(TestRig.KEY));
    try {
      inside.await();
      PointsmanException e = fail(gateway, TestRig.request("two"), TestRig.KEY);
      assertThat(e.status()).isEqualTo(Status.TOO_MANY_REQUESTS);
      assertThat(e.rule()).isEqualTo("concurrency:key:k1");
    } catch (InterruptedException ex) {
      throw new AssertionError(ex);
    } finally {
      release.countDown();
    }
    assertThat(first.join().outcome()).isEqualTo(UsageOutcome.SUCCESS);
    assertThat(one.inflight(io.pointsman.limits.Scope.key("k1"))).isZero();
  }

  @Test
  void inputGuardrailBlockIs400NamingTheRule() {
    TestRig rig = new TestRig();
    ChatRequest withNul = TestRig.request("bad\u0000byte");
    PointsmanException e = fail(rig.builder().build(), withNul, TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.GUARDRAIL_INPUT);
    assertThat(e.rule()).isEqualTo("bounds.encoding");
  }

  @Test
  void noEligibleDeploymentIs503AtRouterSelect() {
    TestRig rig = new TestRig();
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .provider("fixture", rig.fixture)
        .deployment(io.pointsman.spi.Deployment.of("only-mini", "fixture", "mini-model"))
        .build();
    PointsmanException e = fail(gateway, TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(e.stage()).isEqualTo(Stages.ROUTER_SELECT);
  }

  @Test
  void providerErrorsAfterTheAttemptBudgetAre502AtProviderAttempt() {
    TestRig rig = new TestRig();
    // Refusals (not billed): a 500 would be an unknown outcome, charged its worst case.
    rig.fixture.failNext(ProviderException.answered(503, "busy", null));
    rig.fixture.failNext(ProviderException.answered(503, "still down", null));
    PointsmanException e = fail(rig.builder().build(), TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_GATEWAY);
    assertThat(e.stage()).isEqualTo(Stages.PROVIDER_ATTEMPT);
    assertThat(rig.fixture.sends()).isEqualTo(2);
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.PROVIDER_FAILED);
    assertThat(record.attempts()).isEqualTo(2);
    assertThat(record.costMicros()).isZero();
  }

  @Test
  void aRetryableFailureIsRetriedAndTheSecondAttemptAnswers() {
    TestRig rig = new TestRig();
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofMillis(1)));
    ChatResult result = rig.builder().build().chat(TestRig.request("hi"),
        CallOptions.of(TestRig.KEY));
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(rig.accounting.intents()).extracting(DispatchIntent::attempt)
        .containsExactly(1, 2);
  }

  @Test
  void theRetryPolicyDecidesWhetherAndWhenToRetry() {
    TestRig rig = new TestRig();
    java.util.List<Integer> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
    io.pointsman.spi.RetryPolicy once = new io.pointsman.spi.RetryPolicy() {
      @Override
      public int maxAttempts() {
        return 3;
      }

      @Override
      public Duration retryAfter(int attempt, ProviderException failure) {
        asked.add(attempt);
        return attempt == 1 ? Duration.ofMillis(5) : null;
      }
    };
    rig.fixture.failNext(ProviderException.answered(503, "a", null));
    rig.fixture.failNext(ProviderException.answered(503, "b", null));
    PointsmanException e = fail(rig.builder().retryPolicy(once).build(), TestRig.request("hi"),
        TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_GATEWAY);
    assertThat(asked).containsExactly(1, 2);
    assertThat(rig.fixture.sends()).isEqualTo(2);
    assertThat(rig.accounting.intents()).hasSize(2);
  }

  @Test
  void deadlineIs504AndAnUnknownOutcomeIsChargedItsWorstCase() {
    TestRig rig = new TestRig(FixtureProvider.builder().latency(Duration.ofSeconds(5)).build(),
        1_000_000_000L);
    Gateway gateway = rig.builder().build();
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"),
            CallOptions.builder(TestRig.KEY).timeout(Duration.ofMillis(50)).build()));
    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(e.stage()).isEqualTo(Stages.PROVIDER_ATTEMPT);
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.UNKNOWN);
    assertThat(record.costEstimated()).isTrue();
    assertThat(record.costMicros()).as("unknown is never zero").isPositive();
    assertThat(record.costMicros() % rig.accounting.intents().get(0).worstCaseMicros()).isZero();
  }

  @Test
  void outputGuardrailBlockIs400AndTheProviderWorkIsStillCharged() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.builder().outputGuardrail((identity, request, response) -> {
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.GUARDRAIL_OUTPUT,
          "no-fixtures", "blocked");
    }).build();
    PointsmanException e = fail(gateway, TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.GUARDRAIL_OUTPUT);
    assertThat(e.rule()).isEqualTo("no-fixtures");
    UsageRecord record = rig.accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.BLOCKED_OUTPUT);
    assertThat(record.costMicros()).isPositive();
  }

  @Test
  void accountingFailureIs503AndTheCallerNeverGetsAnUnaccountedSuccess() {
    TestRig rig = new TestRig();
    Accounting broken = new Accounting() {
      @Override
      public void dispatched(DispatchIntent intent) {}

      @Override
      public void settled(UsageRecord record) {
        throw new IllegalStateException("disk gone");
      }
    };
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .accounting(broken).provider("fixture", rig.fixture)
        .deployment(io.pointsman.spi.Deployment.of("d", "fixture", "gpt-test")).build();
    PointsmanException e = fail(gateway, TestRig.request("hi"), TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.UNAVAILABLE);
    assertThat(e.stage()).isEqualTo(Stages.LEDGER_WRITE);
  }

  @Test
  void invalidRequestIs400AtRequestAndIsRecordedAsRejected() {
    TestRig rig = new TestRig();
    ChatRequest noMessages = ChatRequest.builder().model("gpt-test").build();
    PointsmanException e = fail(rig.builder().build(), noMessages, TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.REQUEST);
    assertThat(e.getMessage()).contains("messages must not be empty");
    assertThat(rig.accounting.records()).singleElement()
        .satisfies(r -> assertThat(r.outcome()).isEqualTo(UsageOutcome.REJECTED));
  }

  @Test
  void maxTokensAboveTheModelCapIs400() {
    TestRig rig = new TestRig();
    ChatRequest r = ChatRequest.builder().model("gpt-test").addMessage(Message.user("x"))
        .maxTokens(Integer.MAX_VALUE).build();
    PointsmanException e = fail(rig.builder().build(), r, TestRig.KEY);
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.rule()).isEqualTo("max_output_tokens");
  }
}
