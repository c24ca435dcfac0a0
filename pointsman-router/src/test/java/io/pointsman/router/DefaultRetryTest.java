package io.pointsman.router;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.RetryPolicy;
import io.pointsman.testing.FixtureProvider;
import org.junit.jupiter.api.Test;

/** The gateway's default and the backoff policy's default make the same number of attempts. */
class DefaultRetryTest {
  private static int attemptsOf(Gateway.Builder b, InMemoryAccounting accounting,
      FixtureProvider fixture) {
    for (int i = 0; i < 10; i++) {
      fixture.failNext(ProviderException.answered(503, "overloaded", null));
    }
    catchThrowableOfType(PointsmanException.class, () -> b.build().chat(ChatRequest.builder()
        .model("m").addMessage(Message.user("hi")).build(), CallOptions.of("pm-retry-key")));
    return accounting.intents().size();
  }

  private static Gateway.Builder base(InMemoryAccounting accounting, FixtureProvider fixture) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey("pm-retry-key", KeySpec.builder("k").build());
    return Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m").price(Price.of(1, 1))
            .build()).build())
        .accounting(accounting).provider("f", fixture)
        .deployment(Deployment.of("d", "f", "m"));
  }

  @Test
  void theGatewaysDefaultAndTheBackoffPolicysDefaultAreOneConstant() {
    InMemoryAccounting plain = new InMemoryAccounting();
    FixtureProvider first = FixtureProvider.builder().build();
    int gatewayDefault = attemptsOf(base(plain, first), plain, first);

    InMemoryAccounting backoff = new InMemoryAccounting();
    FixtureProvider second = FixtureProvider.builder().build();
    int backoffDefault = attemptsOf(base(backoff, second).retryPolicy(BackoffRetryPolicy
        .builder().backoff(java.time.Duration.ZERO, java.time.Duration.ZERO).build()),
        backoff, second);

    assertThat(gatewayDefault).isEqualTo(RetryPolicy.DEFAULT_MAX_ATTEMPTS);
    assertThat(backoffDefault).isEqualTo(gatewayDefault);
    assertThat(BackoffRetryPolicy.ofDefaults().maxAttempts())
        .isEqualTo(RetryPolicy.ofDefaults().maxAttempts());
  }
}
