package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.catalog.Price;
import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.RouteContext;
import io.pointsman.spi.Router;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class RouterHooksTest {
  private final List<String> events = new CopyOnWriteArrayList<>();

  private Router recording(Price worst) {
    Router single = new SingleDeploymentRouter(List.of(
        Deployment.of("fixture-gpt", "fixture", "gpt-test")));
    return new Router() {
      @Override
      public Deployment select(RouteContext context) {
        events.add("select");
        return single.select(context);
      }

      @Override
      public void onOutcome(Deployment deployment, boolean success, Duration latency) {
        events.add("outcome:" + success);
      }

      @Override
      public void onFailure(Deployment deployment, ProviderException failure,
          Duration latency) {
        events.add("failure:" + failure.status());
      }

      @Override
      public Price worstPrice(String model) {
        return worst;
      }
    };
  }

  @Test
  void everySelectedAttemptEndsWithExactlyOneOutcomeEvenWhenAStageDenies() {
    TestRig rig = new TestRig();
    Gateway gateway = rig.routed(recording(null))
        .stage(InsertionPoint.BEFORE_PROVIDER, "deny", (x, c) -> {
          throw PointsmanException.denied(Status.FORBIDDEN, "deny", null, "no");
        }).build();
    catchThrowableOfType(PointsmanException.class,
        () -> gateway.chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY)));
    assertThat(events).containsExactly("select", "outcome:false");
  }

  @Test
  void providerFailuresReachTheRouterWithTheirException() {
    TestRig rig = new TestRig();
    rig.fixture.failNext(ProviderException.answered(429, "slow", null));
    rig.routed(recording(null)).build()
        .chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    assertThat(events).containsExactly("select", "failure:TOO_MANY_REQUESTS", "select",
        "outcome:true");
  }

  @Test
  void theReservationCoversTheRoutersWorstPrice() {
    TestRig plain = new TestRig();
    plain.routed(recording(null)).build()
        .chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));
    TestRig pricey = new TestRig();
    pricey.routed(recording(Price.of(10_000_000, 20_000_000))).build()
        .chat(TestRig.request("hi"), CallOptions.of(TestRig.KEY));

    long normal = plain.accounting.intents().get(0).worstCaseMicros();
    long withFallback = pricey.accounting.intents().get(0).worstCaseMicros();
    assertThat(withFallback).isEqualTo(normal * 10);
  }
}
