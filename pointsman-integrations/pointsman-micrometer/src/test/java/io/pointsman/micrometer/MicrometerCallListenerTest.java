package io.pointsman.micrometer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MockClock;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerCallListenerTest {
  private static final String KEY = "pm-micrometer-key";
  private static final String POOR = "pm-micrometer-poor";
  private final MockClock clock = new MockClock();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry(SimpleConfig.DEFAULT,
      clock);

  private Gateway gateway() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("rich").build());
    keys.addKey(POOR, KeySpec.builder("k2").team("poor").build());
    return Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
            .price(Price.of(150_000, 600_000)).build()).build())
        .limiter(InMemoryLimiter.builder().budget(Scope.team("poor"), 1).build())
        .provider("openai", FixtureProvider.builder().streamChunks(4).build())
        .deployment(Deployment.of("oai", "openai", "gpt-4o-mini"))
        .listener(MicrometerCallListener.of(registry))
        .build();
  }

  private static ChatRequest ask(String text) {
    return ChatRequest.builder().model("gpt-4o-mini").addMessage(Message.user(text))
        .temperature(0.0).build();
  }

  @Test
  void aPlainCallRecordsEveryStageTimerTheAttemptCostAndTokens() {
    gateway().chat(ask("hello"), CallOptions.of(KEY));

    for (String stage : Stages.ORDER) {
      assertThat(registry.get("pointsman." + stage).timer().count()).as(stage).isEqualTo(1);
    }
    Timer total = registry.get("pointsman.total").tag("outcome", "SUCCESS")
        .tag("status", "200").tag("model", "gpt-4o-mini").timer();
    assertThat(total.count()).isEqualTo(1);
    assertThat(total.takeSnapshot().percentileValues()).hasSize(3);
    assertThat(registry.get("pointsman.attempt").tag("deployment", "oai")
        .tag("provider", "openai").tag("outcome", "ok").timer().count()).isEqualTo(1);
    assertThat(registry.get("pointsman.cost").summary().totalAmount()).isPositive();
    assertThat(registry.get("pointsman.tokens").tag("type", "input").summary().totalAmount())
        .isPositive();
    assertThat(registry.get("pointsman.cache").tag("outcome", "MISS").counter().count())
        .isEqualTo(1);
  }

  @Test
  void aStreamRecordsItsTimeToFirstChunk() {
    gateway().stream(ask("stream"), CallOptions.of(KEY), chunk -> {});

    assertThat(registry.get("pointsman.first.chunk").timer().count()).isEqualTo(1);
    assertThat(registry.get("pointsman.cache").tag("outcome", "SKIPPED").counter().count())
        .isEqualTo(1);
  }

  @Test
  void aCacheHitAndADenialAreCountedByOutcomeAndStatus() {
    Gateway gateway = gateway();
    gateway.chat(ask("twice"), CallOptions.of(KEY));
    gateway.chat(ask("twice"), CallOptions.of(KEY));
    assertThatThrownBy(() -> gateway.chat(ask("over budget"), CallOptions.of(POOR)))
        .isInstanceOf(PointsmanException.class);

    assertThat(registry.get("pointsman.cache").tag("outcome", "HIT").counter().count())
        .isEqualTo(1);
    assertThat(registry.get("pointsman.total").tag("outcome", "CACHE_HIT").timer().count())
        .isEqualTo(1);
    assertThat(registry.get("pointsman.total").tag("outcome", "REJECTED").tag("status", "402")
        .timer().count()).isEqualTo(1);
    assertThat(registry.get("pointsman.attempt").timer().count()).isEqualTo(1);
  }

  @Test
  void percentilesAreWindowedAndForgetOldCalls() {
    gateway().chat(ask("hello"), CallOptions.of(KEY));
    Timer attempt = registry.get("pointsman.provider.attempt").timer();
    assertThat(attempt.takeSnapshot().percentileValues()[2].value()).isPositive();

    clock.add(Duration.ofMinutes(2));

    assertThat(attempt.takeSnapshot().percentileValues()[2].value()).isZero();
    assertThat(attempt.count()).as("counts are not windowed").isEqualTo(1);
  }
}
