package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A user who wants the Caffeine exact cache alone depends on pointsman-cache and gets neither
 * ONNX Runtime nor the MiniLM model nor Jedis; the cache still answers a repeated call.
 */
class CaffeineOnlyProjectTest {

  @Test
  void theExactCacheRunsWithoutOnnxRuntimeOrRedisOnTheClassPath() throws Exception {
    ConsumerProject.Result result = ConsumerProject.named("caffeine-only")
        .dependsOn("pointsman-core")
        .dependsOn("pointsman-core-testing")
        .dependsOn("pointsman-cache")
        .source("app/Main.java", """
            package app;

            import io.pointsman.CallOptions;
            import io.pointsman.ChatResult;
            import io.pointsman.Clock;
            import io.pointsman.Gateway;
            import io.pointsman.auth.InMemoryKeyStore;
            import io.pointsman.auth.KeySpec;
            import io.pointsman.auth.VirtualKeys;
            import io.pointsman.cache.exact.CaffeineExactCache;
            import io.pointsman.catalog.ModelCatalog;
            import io.pointsman.catalog.ModelSpec;
            import io.pointsman.catalog.Price;
            import io.pointsman.model.ChatRequest;
            import io.pointsman.model.Message;
            import io.pointsman.spi.Deployment;
            import io.pointsman.testing.FixtureProvider;

            public final class Main {
              public static void main(String[] args) {
                for (String absent : new String[] {"ai.onnxruntime.OrtEnvironment",
                    "redis.clients.jedis.JedisPooled", "io.pointsman.cache.semantic.SemanticCache"}) {
                  try {
                    Class.forName(absent);
                    System.out.println("on the class path: " + absent);
                    System.exit(2);
                  } catch (ClassNotFoundException expected) {
                    System.out.println("not on the class path: " + absent);
                  }
                }
                InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
                String key = VirtualKeys.generate();
                keys.addKey(key, KeySpec.builder("key-1").team("t").org("o").build());
                Gateway gateway = Gateway.builder()
                    .authenticator(keys)
                    .models(ModelCatalog.builder()
                        .model(ModelSpec.builder("gpt-4o-mini").price(Price.of(150_000, 600_000))
                            .build())
                        .build())
                    .cache(CaffeineExactCache.builder().maximumSize(1_000).build())
                    .provider("fixture", FixtureProvider.builder().build())
                    .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
                    .build();
                ChatRequest request = ChatRequest.builder().model("gpt-4o-mini")
                    .addMessage(Message.user("Hello")).temperature(0.0).build();
                ChatResult first = gateway.chat(request, CallOptions.of(key));
                ChatResult second = gateway.chat(request, CallOptions.of(key));
                System.out.println("first: " + first.cacheStatus().label());
                System.out.println("second: " + second.cacheStatus().label());
                System.exit(0);
              }
            }
            """)
        .run();

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("not on the class path: ai.onnxruntime.OrtEnvironment")
        .contains("not on the class path: redis.clients.jedis.JedisPooled")
        .contains("not on the class path: io.pointsman.cache.semantic.SemanticCache")
        .contains("first: MISS")
        .contains("second: HIT(exact)");
  }
}
