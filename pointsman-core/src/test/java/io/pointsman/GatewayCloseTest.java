package io.pointsman;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.model.ChatResponse;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Admission;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Gateway.close() closes everything handed to the builder, not only the accounting. */
class GatewayCloseTest {
  private final TestRig rig = new TestRig();
  private final List<String> closed = new ArrayList<>();

  private final class ClosingCache implements ResponseCache, AutoCloseable {
    @Override
    public CacheLookup lookup(CacheQuery query) {
      return ResponseCache.none().lookup(query);
    }

    @Override
    public void store(CacheQuery query, ChatResponse response) {}

    @Override
    public void close() {
      closed.add("cache");
    }
  }

  private final class ClosingProvider implements Provider, AutoCloseable {
    @Override
    public ProviderReply send(ProviderCall call) {
      return rig.fixture.send(call);
    }

    @Override
    public void close() {
      closed.add("provider");
    }
  }

  private final class ClosingLimiter implements Limiter, AutoCloseable {
    @Override
    public Reservation reserve(Admission admission) {
      return Limiter.none().reserve(admission);
    }

    @Override
    public void close() {
      throw new IllegalStateException("limiter close failed");
    }
  }

  private final class ClosingAccounting implements Accounting {
    @Override
    public void dispatched(DispatchIntent intent) {}

    @Override
    public void settled(UsageRecord record) {}

    @Override
    public void close() {
      closed.add("accounting");
    }
  }

  @Test
  void closeClosesEveryOwnedComponentEvenWhenOneFailsAndThenReportsTheFailure() {
    Gateway gateway = Gateway.builder().authenticator(rig.keys).models(rig.catalog)
        .accounting(new ClosingAccounting()).cache(new ClosingCache())
        .limiter(new ClosingLimiter()).provider("p", new ClosingProvider())
        .deployment(Deployment.of("d", "p", "gpt-test")).build();

    assertThatThrownBy(gateway::close).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("limiter close failed");

    assertThat(closed).containsExactly("accounting", "cache", "provider");
    gateway.close(); // idempotent: nothing is closed twice
    assertThat(closed).hasSize(3);
  }
}
