package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.RetryPolicy;
import io.pointsman.spi.UpstreamError;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A provider's retry-after concerns the deployment that sent it: a retry on another deployment
 * does not wait for it, a retry on the same one does.
 */
class RetryAfterTest {
  /** Pauses for a failure's retry-after, if any, and refuses hints over a cap. */
  private static final class HintPolicy implements RetryPolicy {
    final List<Duration> asked = new CopyOnWriteArrayList<>();
    final Duration cap;

    HintPolicy(Duration cap) {
      this.cap = cap;
    }

    @Override
    public int maxAttempts() {
      return 3;
    }

    @Override
    public Duration retryAfter(int attempt, ProviderException failure) {
      Duration hint = failure.retryAfter();
      asked.add(hint == null ? Duration.ZERO : hint);
      if (hint == null) {
        return Duration.ZERO;
      }
      return hint.compareTo(cap) > 0 ? null : hint;
    }
  }

  private final TestRig rig = new TestRig();
  private final FixtureProvider second = FixtureProvider.builder().build();

  private Gateway twoDeployments(RetryPolicy policy) {
    return rig.builder().provider("second", second)
        .deployment(Deployment.of("second-gpt", "second", "gpt-test"))
        .retryPolicy(policy).build();
  }

  @Test
  @Timeout(value = 30, unit = TimeUnit.SECONDS)
  void anHourLongRetryAfterFromOneDeploymentDoesNotDelayTheRetryOnAnother() {
    HintPolicy policy = new HintPolicy(Duration.ofDays(1));
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofHours(1)));

    ChatResult r = twoDeployments(policy).chat(TestRig.request("hi"),
        CallOptions.of(TestRig.KEY));

    assertThat(r.deploymentId()).isEqualTo("second-gpt");
    assertThat(r.attempts()).isEqualTo(2);
    // Asked with the hint (for the same deployment) and without it (for another).
    assertThat(policy.asked).containsExactly(Duration.ofHours(1), Duration.ZERO);
  }

  @Test
  void aRetryAfterOverThePolicysCapStillRetriesOnAnotherDeployment() {
    HintPolicy policy = new HintPolicy(Duration.ofSeconds(1));
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofMinutes(5)));

    ChatResult r = twoDeployments(policy).chat(TestRig.request("hi"),
        CallOptions.of(TestRig.KEY));

    assertThat(r.deploymentId()).isEqualTo("second-gpt");
    assertThat(second.sends()).isEqualTo(1);
  }

  @Test
  void theOnlyDeploymentsRetryAfterIsHonouredOrEndsTheCallWhenOverTheCap() {
    HintPolicy policy = new HintPolicy(Duration.ofSeconds(1));
    Gateway gateway = rig.builder().retryPolicy(policy).build();
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofMillis(20)));
    ChatResult r = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    assertThat(r.attempts()).isEqualTo(2);
    assertThat(policy.asked).first().isEqualTo(Duration.ofMillis(20));

    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofMinutes(5)));
    long sendsBefore = rig.fixture.sends();
    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> gateway.chat(TestRig.request("again"), CallOptions.of(TestRig.KEY)));
    assertThat(e.retryAfter()).isEqualTo(Duration.ofMinutes(5));
    assertThat(rig.fixture.sends() - sendsBefore).as("not retried").isEqualTo(1);
  }

  @Test
  void theDefaultPolicyWaitsForTheProvidersRetryAfterBeforeRetryingTheSameDeployment() {
    Gateway gateway = rig.builder().maxAttempts(2).build();
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofMillis(300)));
    long began = System.nanoTime();
    ChatResult r = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    long waited = System.nanoTime() - began;
    assertThat(r.attempts()).isEqualTo(2);
    assertThat(rig.fixture.sends()).isEqualTo(2);
    // A lower bound only: the pause is a sleep of at least the hint.
    assertThat(Duration.ofNanos(waited)).isGreaterThanOrEqualTo(Duration.ofMillis(300));
  }

  @Test
  void theDefaultPolicyDoesNotRetryTheSameDeploymentWhenItsRetryAfterIsOverTheCap() {
    Gateway gateway = rig.builder().maxAttempts(3).build();
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofHours(1)));
    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));
    assertThat(e.retryAfter()).isEqualTo(Duration.ofHours(1));
    assertThat(rig.fixture.sends()).as("not retried at once against the hint").isEqualTo(1);
  }

  @Test
  void theDefaultPolicyRetriesAnotherDeploymentAtOnceDespiteALongRetryAfter() {
    Gateway gateway = rig.builder().provider("second", second)
        .deployment(Deployment.of("second-gpt", "second", "gpt-test")).maxAttempts(2).build();
    rig.fixture.failNext(ProviderException.answered(429, "slow down", Duration.ofHours(1)));
    ChatResult r = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    assertThat(r.deploymentId()).isEqualTo("second-gpt");
  }

  private static ProviderException quotaExhausted() {
    return ProviderException.answered(429, "[rate_limited] insufficient_quota: You exceeded"
        + " your current quota", null, null, new UpstreamError("insufficient_quota",
            "insufficient_quota", null, java.util.Map.of()));
  }

  @Test
  void anExhaustedQuotaIsNeverRetriedOnTheDeploymentThatReportedIt() {
    Gateway gateway = rig.builder().maxAttempts(3).build();
    rig.fixture.failNext(quotaExhausted());
    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));
    assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
    assertThat(e.rule()).isEqualTo(ProviderException.QUOTA_EXHAUSTED_RULE);
    assertThat(e.retryableOnSameDeployment()).isFalse();
    assertThat(rig.fixture.sends()).as("not retried").isEqualTo(1);
  }

  @Test
  void anExhaustedQuotaIsNotRetriedOnTheSameDeploymentUnderABackoffStylePolicyEither() {
    HintPolicy policy = new HintPolicy(Duration.ofDays(1));
    Gateway gateway = rig.builder().retryPolicy(policy).build();
    rig.fixture.failNext(quotaExhausted());
    catchThrowableOfType(ProviderException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));
    assertThat(rig.fixture.sends()).isEqualTo(1);
  }

  @Test
  void anExhaustedQuotaFallsOverToAnotherDeployment() {
    Gateway gateway = rig.builder().provider("second", second)
        .deployment(Deployment.of("second-gpt", "second", "gpt-test")).maxAttempts(2).build();
    rig.fixture.failNext(quotaExhausted());
    ChatResult r = gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    assertThat(r.deploymentId()).isEqualTo("second-gpt");
    assertThat(second.sends()).isEqualTo(1);
  }
}
