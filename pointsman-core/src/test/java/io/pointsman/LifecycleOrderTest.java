package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.guardrail.MessageBoundsGuardrail;
import io.pointsman.model.ChatResponse;
import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reply;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.RouteContext;
import io.pointsman.spi.Router;
import io.pointsman.spi.Stage;
import io.pointsman.spi.UsageRecord;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class LifecycleOrderTest {
  private final List<String> trace = new CopyOnWriteArrayList<>();
  private final TestRig rig = new TestRig();

  private Stage traced(String name) {
    return (exchange, chain) -> {
      trace.add(name);
      Reply reply = chain.proceed(exchange);
      trace.add("/" + name);
      return reply;
    };
  }

  private Gateway gateway() {
    InMemoryExactCache exact = InMemoryExactCache.ofDefaults(Clock.system());
    ResponseCache cache = new ResponseCache() {
      @Override
      public CacheLookup lookup(CacheQuery query) {
        trace.add(Stages.CACHE_LOOKUP);
        return exact.lookup(query);
      }

      @Override
      public void store(CacheQuery query, ChatResponse response) {
        trace.add("cache.store");
        exact.store(query, response);
      }
    };
    Router single = new SingleDeploymentRouter(List.of(
        Deployment.of("fixture-gpt", "fixture", "gpt-test")));
    Router router = context -> {
      trace.add(Stages.ROUTER_SELECT);
      return single.select(context);
    };
    Accounting accounting = new Accounting() {
      @Override
      public void dispatched(DispatchIntent intent) {
        trace.add("intent");
      }

      @Override
      public void settled(UsageRecord record) {
        trace.add(Stages.LEDGER_WRITE);
      }
    };
    return Gateway.builder()
        .authenticator(key -> {
          trace.add(Stages.IDENTITY_AUTH);
          return rig.keys.authenticate(key);
        })
        .modelResolver((identity, request) -> {
          trace.add(Stages.MODEL_RESOLVE);
          return rig.catalog.resolve(identity, request);
        }, null)
        .limiter(admission -> {
          trace.add(Stages.RATELIMIT_RESERVE);
          return rig.budgets.reserve(admission);
        })
        .inputGuardrail((identity, request) -> {
          trace.add(Stages.GUARDRAIL_INPUT);
          return MessageBoundsGuardrail.ofDefaults().check(identity, request);
        })
        .cache(cache)
        .router(router)
        .provider("fixture", new io.pointsman.spi.Provider() {
          @Override
          public ProviderReply send(ProviderCall call) {
            trace.add(Stages.PROVIDER_ATTEMPT);
            return rig.fixture.send(call);
          }
        })
        .outputGuardrail((identity, request, response) -> {
          trace.add(Stages.GUARDRAIL_OUTPUT);
          return response;
        })
        .accounting(accounting)
        .stage(InsertionPoint.AFTER_AUTH, "after-auth", traced("AFTER_AUTH"))
        .stage(InsertionPoint.BEFORE_CACHE, "before-cache", traced("BEFORE_CACHE"))
        .stage(InsertionPoint.BEFORE_PROVIDER, "before-provider", traced("BEFORE_PROVIDER"))
        .stage(InsertionPoint.AFTER_PROVIDER, "after-provider", traced("AFTER_PROVIDER"))
        .build();
  }

  @Test
  void runsStagesAndInsertionPointsInTheDocumentedOrder() {
    gateway().chat(TestRig.request("hello"), CallOptions.of(TestRig.KEY));

    assertThat(trace).containsExactly(
        "identity.auth",
        "AFTER_AUTH",
        "model.resolve",
        "ratelimit.reserve",
        "guardrail.input",
        "BEFORE_CACHE",
        "cache.lookup",
        "AFTER_PROVIDER",
        "router.select",
        "BEFORE_PROVIDER",
        "intent",
        "provider.attempt",
        "/BEFORE_PROVIDER",
        "/AFTER_PROVIDER",
        "guardrail.output",
        "cache.store",
        "/BEFORE_CACHE",
        "/AFTER_AUTH",
        "ledger.write");
  }

  @Test
  void aCacheHitSkipsRouterProviderAndOutputGuardrailButIsStillRecorded() {
    Gateway gateway = gateway();
    gateway.chat(TestRig.request("hello"), CallOptions.of(TestRig.KEY));
    trace.clear();

    ChatResult second = gateway.chat(TestRig.request("hello"), CallOptions.of(TestRig.KEY));

    assertThat(second.cacheStatus().outcome()).isEqualTo(CacheOutcome.HIT);
    assertThat(trace).containsExactly("identity.auth", "AFTER_AUTH", "model.resolve",
        "ratelimit.reserve", "guardrail.input", "BEFORE_CACHE", "cache.lookup",
        "/BEFORE_CACHE", "/AFTER_AUTH", "ledger.write");
  }

  @Test
  void reportsTimingsForTheStagesThatRanInLifecycleOrder() {
    ChatResult result = gateway().chat(TestRig.request("hello"), CallOptions.of(TestRig.KEY));

    assertThat(result.timings().asMap().keySet()).containsExactly(
        "identity.auth", "model.resolve", "ratelimit.reserve", "guardrail.input",
        "cache.lookup", "router.select", "provider.attempt", "guardrail.output",
        "ledger.write", "total");
    assertThat(result.timings().nanos(Stages.TOTAL))
        .isGreaterThanOrEqualTo(result.timings().nanos(Stages.PROVIDER_ATTEMPT));
  }
}
