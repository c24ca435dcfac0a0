package io.pointsman.cache.testing;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ResponseCache;
import io.pointsman.testing.FixtureProvider;

/**
 * A gateway over a fixture provider with two tenants (orgs acme and globex) and two keys with
 * neither a team nor an org.
 */
public final class GatewayRig {
  public static final String ACME_KEY = "pm-cache-test-key-acme";
  public static final String GLOBEX_KEY = "pm-cache-test-key-globex";
  /** Two keys with neither a team nor an org. */
  public static final String LONE_A_KEY = "pm-cache-test-key-lone-a";
  public static final String LONE_B_KEY = "pm-cache-test-key-lone-b";

  public final FixtureProvider fixture = FixtureProvider.builder().recordCalls(true).build();
  public final Gateway gateway;

  public GatewayRig(ResponseCache cache) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(ACME_KEY, KeySpec.builder("k-acme").team("t1").org("acme").build());
    keys.addKey(GLOBEX_KEY, KeySpec.builder("k-globex").team("t1").org("globex").build());
    keys.addKey(LONE_A_KEY, KeySpec.builder("k-lone-a").build());
    keys.addKey(LONE_B_KEY, KeySpec.builder("k-lone-b").build());
    ModelCatalog catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("gpt-test").contextWindow(8_192).maxOutputTokens(1_024)
            .price(Price.of(1_000_000, 2_000_000)).build())
        .build();
    gateway = Gateway.builder().authenticator(keys).models(catalog)
        .provider("fixture", fixture)
        .deployment(Deployment.of("fixture-gpt", "fixture", "gpt-test"))
        .cache(cache).build();
  }

  public static ChatRequest request(String text) {
    return ChatRequest.builder().model("gpt-test").addMessage(Message.system("Be brief."))
        .addMessage(Message.user(text)).temperature(0.0).maxTokens(100).build();
  }

  public ChatResult call(String key, String text) {
    return gateway.chat(request(text), CallOptions.of(key));
  }

  public ChatResult call(String key, ChatRequest request) {
    return gateway.chat(request, CallOptions.of(key));
  }
}
