package io.pointsman.jmh.pipeline;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.util.concurrent.atomic.LongAdder;

/**
 * The gateway every pipeline arm runs on, the pipeline benchmark's and the adapters': in-memory
 * defaults, model {@code m} (128k context, 1,000 output tokens, $0.15 / $0.60 per million), a
 * team budget and a key concurrency limit that never refuse, the zero-latency fixture provider
 * as deployment {@code d}, and accounting that counts intents and records and keeps nothing
 * (the in-memory recorder would grow without bound over millions of calls).
 *
 * @param gateway the gateway
 * @param key a virtual key it accepts
 * @param fixture the fixture provider behind deployment {@code d}
 * @param accounted intents and records counted so far
 */
public record BenchGateway(Gateway gateway, String key, FixtureProvider fixture,
    LongAdder accounted) {

  /**
   * Builds the gateway.
   *
   * @return the gateway, its key, its fixture and its counter
   */
  public static BenchGateway create() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    String key = VirtualKeys.generate();
    keys.addKey(key, KeySpec.builder("bench").team("t").org("o").build());
    FixtureProvider fixture = FixtureProvider.builder().build();
    LongAdder accounted = new LongAdder();
    Gateway gateway = Gateway.builder()
        .authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(128_000)
            .maxOutputTokens(1_000).price(Price.of(150_000, 600_000)).build()).build())
        .limiter(InMemoryLimiter.builder().budget(Scope.team("t"), 1_000_000_000_000L)
            .concurrency(Scope.key("bench"), 1_000).build())
        .accounting(new Accounting() {
          @Override
          public void dispatched(DispatchIntent intent) {
            accounted.increment();
          }

          @Override
          public void settled(UsageRecord record) {
            accounted.increment();
          }
        })
        .provider("fixture", fixture)
        .deployment(Deployment.of("d", "fixture", "m"))
        .build();
    return new BenchGateway(gateway, key, fixture, accounted);
  }

  /**
   * Fails when nothing was accounted (the arms did not run through the gateway), then closes it.
   *
   * @throws IllegalStateException if nothing was accounted
   */
  public void close() {
    if (accounted.sum() == 0) {
      throw new IllegalStateException("nothing was accounted");
    }
    gateway.close();
  }
}
