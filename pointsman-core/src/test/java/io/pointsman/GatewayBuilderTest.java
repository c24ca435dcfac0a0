package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.Limiter;
import io.pointsman.testing.FixtureProvider;
import org.junit.jupiter.api.Test;

class GatewayBuilderTest {
  private final TestRig rig = new TestRig();

  @Test
  void nullArgumentsThrowNpeNamingTheParameter() {
    assertThatThrownBy(() -> Gateway.builder().authenticator(null))
        .isInstanceOf(NullPointerException.class).hasMessage("authenticator");
    assertThatThrownBy(() -> Gateway.builder().provider("x", null))
        .isInstanceOf(NullPointerException.class).hasMessage("provider");
    assertThatThrownBy(() -> Gateway.builder().stage(InsertionPoint.AFTER_AUTH, "s", null))
        .isInstanceOf(NullPointerException.class).hasMessage("stage");
  }

  @Test
  void badRangesThrowIae() {
    assertThatThrownBy(() -> Gateway.builder().maxAttempts(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxAttempts must be between 1 and 10: 0");
    assertThatThrownBy(() -> Gateway.builder().provider(" ", rig.fixture))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Price.of(-1, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not be negative");
  }

  @Test
  void aSingleValuedSettingSetTwiceThrowsIseNamingTheFirstValue() {
    Limiter first = Limiter.none();
    assertThatThrownBy(() -> Gateway.builder().limiter(first).limiter(Limiter.none()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("limiter was already set to " + first);
    assertThatThrownBy(() -> Gateway.builder().maxAttempts(2).maxAttempts(3))
        .isInstanceOf(IllegalStateException.class).hasMessage("maxAttempts was already set to 2");
  }

  @Test
  void maxAttemptsAndRetryPolicyAreExclusive() {
    assertThatThrownBy(() -> Gateway.builder().maxAttempts(3)
        .retryPolicy(io.pointsman.spi.RetryPolicy.attempts(2)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("set either maxAttempts or retryPolicy");
  }

  @Test
  void buildSaysWhatToAdd() {
    assertThatThrownBy(() -> Gateway.builder().build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("no authenticator: set authenticator(...)");
    assertThatThrownBy(() -> Gateway.builder().authenticator(rig.keys).build())
        .hasMessageContaining("no models: set models(ModelCatalog)");
    assertThatThrownBy(() -> Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .build()).hasMessageContaining("no deployment: add deployment(...)");
    assertThatThrownBy(() -> Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .provider("fixture", rig.fixture)
        .deployment(Deployment.of("d", "openai", "gpt-test")).build())
        .hasMessage("deployment d names provider 'openai', which is not registered: add"
            + " provider(\"openai\", ...)");
    assertThatThrownBy(() -> Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .provider("fixture", rig.fixture)
        .deployment(Deployment.of("d", "fixture", "gpt-9")).build())
        .hasMessageContaining("serves model 'gpt-9', which is not in the catalog");
  }

  @Test
  void anUnpricedModelNeedsAFallbackPrice() {
    assertThatThrownBy(() -> ModelCatalog.builder()
        .model(ModelSpec.builder("free?").build()).build())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("model free? has no price")
        .hasMessageContaining("unpricedFallback");
  }

  @Test
  void anUnpricedModelIsChargedItsFullReservationNeverZero() {
    ModelCatalog catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("mystery").build())
        .unpricedFallback(Price.of(10_000_000, 30_000_000)).build();
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(catalog)
        .accounting(rig.accounting).provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("d", "fixture", "mystery")).build();

    ChatResult result = gateway.chat(TestRig.request("hi").withModel("mystery"),
        CallOptions.of(TestRig.KEY));

    long worstCase = rig.accounting.intents().get(0).worstCaseMicros();
    assertThat(worstCase).isPositive();
    assertThat(result.costMicros()).isEqualTo(worstCase);
    assertThat(result.costEstimated()).isTrue();
  }

  @Test
  void duplicateStageAndDeploymentNamesAreRefused() {
    assertThatThrownBy(() -> Gateway.builder()
        .stage(InsertionPoint.AFTER_AUTH, "s", (x, c) -> c.proceed(x))
        .stage(InsertionPoint.BEFORE_CACHE, "s", (x, c) -> c.proceed(x)))
        .isInstanceOf(IllegalStateException.class).hasMessage("stage s is already registered");
    assertThatThrownBy(() -> Gateway.builder()
        .deployment(Deployment.of("d", "p", "m")).deployment(Deployment.of("d", "p", "m")))
        .isInstanceOf(IllegalStateException.class).hasMessage("deployment d was already added");
  }

  @Test
  void toBuilderSharesTheCacheAndAccountingAndAllowsReplacingASettingOnce() {
    Gateway first = rig.builder().build();
    first.chat(TestRig.request("shared"), CallOptions.of(TestRig.KEY));

    Gateway second = first.toBuilder().maxAttempts(1).build();
    ChatResult hit = second.chat(TestRig.request("shared"), CallOptions.of(TestRig.KEY));

    assertThat(hit.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(second.accounting()).isSameAs(first.accounting());
    assertThatThrownBy(() -> first.toBuilder().maxAttempts(1).maxAttempts(2))
        .isInstanceOf(IllegalStateException.class);
  }
}
