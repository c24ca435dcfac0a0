package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A modular application: its module-info requires the Pointsman modules it uses, and it runs on
 * the module path with nothing added on the command line (no --add-modules). Every module a
 * Pointsman module needs (SLF4J, Jackson, Caffeine) must be resolved through the descriptors.
 */
class ModularApplicationTest {

  @Test
  void aModuleThatRequiresPointsmanRunsACallOnTheModulePath() throws Exception {
    ConsumerProject.Result result = ConsumerProject.named("modular-app")
        .modular()
        .dependsOn("pointsman-core")
        .dependsOn("pointsman-core-testing")
        .dependsOn("pointsman-cache")
        .source("module-info.java", """
            module app {
              requires io.pointsman.core;
              requires io.pointsman.core.testing;
              requires io.pointsman.cache;
            }
            """)
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
                InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
                String key = VirtualKeys.generate();
                keys.addKey(key, KeySpec.builder("key-1").team("t").org("o").build());
                Gateway gateway = Gateway.builder()
                    .authenticator(keys)
                    .models(ModelCatalog.builder()
                        .model(ModelSpec.builder("gpt-4o-mini").price(Price.of(150_000, 600_000))
                            .build())
                        .build())
                    .cache(CaffeineExactCache.builder().build())
                    .provider("fixture", FixtureProvider.builder().build())
                    .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
                    .build();
                ChatResult result = gateway.chat(ChatRequest.builder().model("gpt-4o-mini")
                    .addMessage(Message.user("Hello")).build(), CallOptions.of(key));
                System.out.println("module " + Main.class.getModule().getName() + " called "
                    + Gateway.class.getModule().getName() + ": "
                    + result.response().firstText() + " cost " + result.costMicros());
                System.exit(0);
              }
            }
            """)
        .run();

    assertThat(result.exitCode()).as(result.output()).isZero();
    assertThat(result.output())
        .contains("module app called io.pointsman.core: Fixture reply")
        .doesNotContain("NoClassDefFoundError");
  }
}
