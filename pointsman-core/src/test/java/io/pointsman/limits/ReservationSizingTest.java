package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Limiter;
import io.pointsman.testing.FixtureProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How a call is sized before it is reserved, end to end through a gateway: the output cap when
 * the request has none, the exact count when the byte bound does not fit the window, an
 * unpriced model charged its full reservation, and amounts that overflow or are negative.
 */
class ReservationSizingTest {
  private static final String KEY = "pm-limits-key-0001";
  private static final Price PRICE = Price.of(1_000_000, 2_000_000);

  private final List<Admission> admitted = new ArrayList<>();
  private InMemoryLimiter budgets;

  private Gateway gateway(ModelCatalog catalog, long teamBudget) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
    budgets = InMemoryLimiter.builder().budget(Scope.team("t1"), teamBudget).build();
    Limiter recording = admission -> {
      admitted.add(admission);
      return budgets.reserve(admission);
    };
    Gateway.Builder b = Gateway.builder().authenticator(keys).models(catalog)
        .limiter(recording).accounting(new InMemoryAccounting())
        .provider("fixture", FixtureProvider.builder().build());
    for (ModelSpec m : catalog.models()) {
      b.deployment(Deployment.of("d-" + m.name(), "fixture", m.name()));
    }
    return b.build();
  }

  private static ChatRequest request(String model, String text, Integer maxTokens) {
    ChatRequest.Builder b = ChatRequest.builder().model(model).addMessage(Message.user(text));
    if (maxTokens != null) {
      b.maxTokens(maxTokens);
    }
    return b.build();
  }

  @Test
  void withoutMaxTokensTheModelsOutputCapIsReserved() {
    Gateway g = gateway(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(8_192)
        .maxOutputTokens(512).price(PRICE).build()).build(), 1_000_000_000);
    ChatRequest req = request("m", "hello", null);
    g.chat(req, CallOptions.of(KEY));
    Admission a = admitted.get(0);
    assertThat(a.maxOutputTokens()).isEqualTo(512);
    assertThat(a.inputTokens()).isEqualTo(TokenBounds.upperBound(req));
    assertThat(a.worstCaseMicros()).isEqualTo(PRICE.cost(a.inputTokens(), 0, 512));
  }

  @Test
  void aByteBoundBeyondTheWindowIsCountedExactlyAndReservedAtTheCount() {
    Gateway g = gateway(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(2_048)
        .maxOutputTokens(256).price(PRICE).build()).build(), 1_000_000_000);
    ChatRequest req = request("m", "hello world ".repeat(400), 100);
    assertThat(TokenBounds.upperBound(req) + 100).isGreaterThan(2_048);
    ChatResult result = g.chat(req, CallOptions.of(KEY));
    Admission a = admitted.get(0);
    assertThat(a.model().inputExact()).isTrue();
    assertThat(a.inputTokens()).isEqualTo(TokenBounds.exact(req)).isLessThan(2_048 - 100);
    assertThat(a.worstCaseMicros()).isEqualTo(PRICE.cost(a.inputTokens(), 0, 100));
    // The fixture reports a usage of bytes / 4, above the exact count: settlement charges that
    // actual even though it exceeds the hold, and frees the hold.
    assertThat(budgets.budget(Scope.team("t1"))).isEqualTo(new BudgetState(Scope.team("t1"),
        1_000_000_000, result.costMicros(), 0));
  }

  @Test
  void anUnpricedModelIsChargedItsFullReservation() {
    Price fallback = Price.of(5_000_000, 5_000_000);
    Gateway g = gateway(ModelCatalog.builder().model(ModelSpec.builder("free?")
        .contextWindow(8_192).maxOutputTokens(64).build()).unpricedFallback(fallback).build(),
        1_000_000_000);
    ChatResult result = g.chat(request("free?", "hi", 10), CallOptions.of(KEY));
    Admission a = admitted.get(0);
    assertThat(a.worstCaseMicros()).isPositive()
        .isEqualTo(fallback.cost(a.inputTokens(), 0, 10));
    assertThat(result.costMicros()).isEqualTo(a.worstCaseMicros());
    assertThat(result.costEstimated()).isTrue();
    assertThat(budgets.budget(Scope.team("t1"))).isEqualTo(new BudgetState(Scope.team("t1"),
        1_000_000_000, a.worstCaseMicros(), 0));
  }

  @Test
  void aWorstCaseThatOverflowsOrExceedsWhatALimitCountsIsRefused() {
    Gateway overflowing = gateway(ModelCatalog.builder().model(ModelSpec.builder("m")
        .contextWindow(8_192).maxOutputTokens(512).price(Price.of(Long.MAX_VALUE / 4, 1))
        .build()).build(), Long.MAX_VALUE >> 11);
    assertThatThrownBy(() -> overflowing.chat(request("m", "hello", 10), CallOptions.of(KEY)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.status()).isEqualTo(Status.BAD_REQUEST))
        .hasMessageContaining("overflows");

    InMemoryLimiter limiter = InMemoryLimiter.builder().budget(Scope.global(), 10).build();
    assertThatThrownBy(() -> limiter.reserve(Admissions.of("e1", "k", "t", "o", Set.of(),
        io.pointsman.spi.Counter.MAX_VALUE + 1, java.time.Instant.EPOCH)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.status()).isEqualTo(Status.BAD_REQUEST));
    assertThat(limiter.budget(Scope.global()).heldMicros()).isZero();
  }

  @Test
  void negativeAmountsAreRejectedEverywhere() {
    assertThatThrownBy(() -> Admissions.of("e1", "k", "t", "o", Set.of(), -1,
        java.time.Instant.EPOCH)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> InMemoryLimiter.builder().budget(Scope.key("k"), -1))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> InMemoryLimiter.builder().requestsPerMinute(Scope.key("k"), 0))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new Price(-1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
    InMemoryLimiter limiter = InMemoryLimiter.builder().budget(Scope.global(), 100).build();
    var r = limiter.reserve(Admissions.of("e1", "k", "t", "o", Set.of(), 10,
        java.time.Instant.EPOCH));
    assertThatThrownBy(() -> r.settle(-5)).isInstanceOf(IllegalArgumentException.class);
    r.release();
    assertThat(limiter.budget(Scope.global())).isEqualTo(
        new BudgetState(Scope.global(), 100, 0, 0));
  }
}
