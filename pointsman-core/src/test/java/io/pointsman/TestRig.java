package io.pointsman;

import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FixtureProvider;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A standard gateway setup for tests: one key per org, a priced model, a fixture provider. */
final class TestRig {
  static final String KEY = "pm-test-key-0001";
  static final String OTHER_ORG_KEY = "pm-test-key-0002";
  static final String MINI_ONLY_KEY = "pm-test-key-0003";
  static final Price PRICE = Price.of(1_000_000, 2_000_000); // 1 and 2 micro-units per token

  final InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
  final InMemoryAccounting accounting = new InMemoryAccounting();
  final CountingLimiter limiter;
  final InMemoryLimiter budgets;
  final FixtureProvider fixture;
  final ModelCatalog catalog;

  TestRig() {
    this(FixtureProvider.builder().recordCalls(true).build(), 1_000_000_000L);
  }

  TestRig(FixtureProvider fixture, long teamBudget) {
    this.fixture = fixture;
    keys.addKey(KEY, KeySpec.builder("k1").user("u1").team("t1").org("acme").tags("app")
        .build());
    keys.addKey(OTHER_ORG_KEY, KeySpec.builder("k2").team("t9").org("globex").build());
    keys.addKey(MINI_ONLY_KEY, KeySpec.builder("k3").team("t1").org("acme")
        .models(Grant.only("mini")).build());
    catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("gpt-test").aliases("test").contextWindow(8_192)
            .maxOutputTokens(1_024).price(PRICE).build())
        .model(ModelSpec.builder("mini-model").aliases("mini").contextWindow(4_096)
            .maxOutputTokens(512).price(PRICE).build())
        .build();
    budgets = InMemoryLimiter.builder().budget(Scope.team("t1"), teamBudget)
        .concurrency(Scope.key("k1"), 64).build();
    limiter = new CountingLimiter(budgets);
  }

  Gateway.Builder builder() {
    return Gateway.builder()
        .authenticator(keys)
        .models(catalog)
        .limiter(limiter)
        .accounting(accounting)
        .provider("fixture", fixture)
        .deployment(Deployment.of("fixture-gpt", "fixture", "gpt-test"))
        .deployment(Deployment.of("fixture-mini", "fixture", "mini-model"));
  }

  /** The same setup routed by a router of the test's own, which picks the deployments. */
  Gateway.Builder routed(io.pointsman.spi.Router router) {
    return Gateway.builder()
        .authenticator(keys)
        .models(catalog)
        .limiter(limiter)
        .accounting(accounting)
        .provider("fixture", fixture)
        .router(router);
  }

  static ChatRequest request(String text) {
    return ChatRequest.builder().model("gpt-test").addMessage(Message.user(text))
        .temperature(0.0).maxTokens(100).build();
  }

  /**
   * Wraps a limiter and counts how each reservation ended. It extends a reservation by
   * reserving the extra amount from the same limiter under the same admission (so the extra
   * is held in the same scopes, and refused by the same budgets), and frees those extra holds
   * when the reservation ends.
   */
  static final class CountingLimiter implements Limiter {
    final Limiter delegate;
    final Map<String, AtomicInteger> settles = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> releases = new ConcurrentHashMap<>();
    final Map<String, Long> charged = new ConcurrentHashMap<>();

    CountingLimiter(Limiter delegate) {
      this.delegate = delegate;
    }

    @Override
    public Reservation reserve(Admission admission) {
      Reservation r = delegate.reserve(admission);
      settles.put(r.id(), new AtomicInteger());
      releases.put(r.id(), new AtomicInteger());
      List<Reservation> extras = new CopyOnWriteArrayList<>();
      return new Reservation() {
        @Override
        public String id() {
          return r.id();
        }

        @Override
        public long heldMicros() {
          return r.heldMicros() + extras.stream().mapToLong(Reservation::heldMicros).sum();
        }

        @Override
        public void settle(long actualMicros) {
          settles.get(r.id()).incrementAndGet();
          charged.put(r.id(), actualMicros);
          r.settle(actualMicros);
          extras.forEach(Reservation::release);
        }

        @Override
        public void release() {
          releases.get(r.id()).incrementAndGet();
          r.release();
          extras.forEach(Reservation::release);
        }

        @Override
        public boolean extend(long additionalMicros) {
          if (additionalMicros < 0) {
            throw new IllegalArgumentException("additionalMicros must be >= 0");
          }
          extensions.incrementAndGet();
          try {
            extras.add(delegate.reserve(new Admission(admission.eventId() + "+" + extras.size(),
                admission.identity(), admission.tags(), admission.model(), 0, 0,
                additionalMicros, admission.at())));
            return true;
          } catch (PointsmanException e) {
            return false;
          }
        }
      };
    }

    /** How many times a reservation was asked to extend. */
    final AtomicInteger extensions = new AtomicInteger();

    /** How many times the reservation ended, by settle or release. */
    int ends(String id) {
      return settles.get(id).get() + releases.get(id).get();
    }
  }
}
