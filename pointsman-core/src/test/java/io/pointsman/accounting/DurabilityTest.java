package io.pointsman.accounting;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Journal;
import io.pointsman.spi.Ledger;
import io.pointsman.spi.RecoveringAccounting;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The restart protocol in the library, on core's SPIs alone: a journal and a ledger that are
 * fakes here, the file journal and PostgreSQL in the examples' tests.
 */
class DurabilityTest {
  private static final String BUDGETED = "pm-durable-budgeted";
  private static final String FREE = "pm-durable-free";
  private static final long LIMIT = 1_000_000;

  /** A ledger in memory that can be made unreachable. */
  static final class FakeLedger implements Ledger {
    volatile boolean reachable;
    volatile long spentT1;
    final List<UsageRecord> settled = new CopyOnWriteArrayList<>();
    final List<DispatchIntent> holds = new CopyOnWriteArrayList<>();
    volatile boolean closed;

    private void check() {
      if (!reachable) {
        throw new IllegalStateException("ledger unreachable");
      }
    }

    @Override
    public boolean reachable() {
      return reachable;
    }

    @Override
    public void settle(List<UsageRecord> records) {
      check();
      settled.addAll(records);
    }

    @Override
    public void interrupted(List<InterruptedCall> calls) {
      check();
      calls.forEach(c -> holds.add(c.lastIntent()));
    }

    @Override
    public long spent(Scope scope, Instant from, Instant to) {
      check();
      return scope.equals(Scope.team("t1")) ? spentT1 : 0;
    }

    @Override
    public Collection<DispatchIntent> unresolvedHolds() {
      check();
      return List.copyOf(holds);
    }

    @Override
    public int expireHolds() {
      check();
      return 0;
    }

    @Override
    public OptionalLong resolvedCharge(String eventId) {
      check();
      return OptionalLong.empty();
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  /** A journal that settles each record at once when the ledger answers, else keeps it. */
  static final class FakeJournal implements Journal {
    volatile boolean closed;

    @Override
    public RecoveringAccounting open(io.pointsman.spi.Settlement settlement) {
      List<UsageRecord> waiting = new ArrayList<>();
      return new RecoveringAccounting() {
        @Override
        public void dispatched(DispatchIntent intent) {}

        @Override
        public synchronized void settled(UsageRecord record) {
          waiting.add(record);
          try {
            settlement.settle(List.copyOf(waiting));
            waiting.clear();
          } catch (RuntimeException e) {
            // kept for the next record, as the journal keeps it
          }
        }

        @Override
        public List<UsageRecord> replayed() {
          return List.of();
        }

        @Override
        public List<InterruptedCall> interrupted() {
          return List.of();
        }

        @Override
        public boolean recoveryPending() {
          return false;
        }

        @Override
        public boolean awaitDrained(Duration timeout) {
          return true;
        }

        @Override
        public void close() {
          closed = true;
        }
      };
    }
  }

  private final FakeLedger ledger = new FakeLedger();
  private final FakeJournal journal = new FakeJournal();

  private Gateway gateway() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(BUDGETED, KeySpec.builder("k1").team("t1").org("acme").build());
    keys.addKey(FREE, KeySpec.builder("k2").team("t9").org("acme").build());
    return Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(4_096)
            .maxOutputTokens(100).price(Price.of(1_000_000, 1_000_000)).build()).build())
        .limiter(CounterLimiter.builder(new InProcessCounterStore())
            .budget(Scope.team("t1"), LIMIT).build())
        .provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("d", "fixture", "m"))
        .journal(journal).ledger(ledger)
        .build();
  }

  private static ChatRequest request() {
    return ChatRequest.builder().model("m").addMessage(Message.user("hi")).maxTokens(10)
        .build();
  }

  @Test
  void budgetedCallsAreRefusedUntilTheLedgerAnswersThenCountersComeFromTheLedger()
      throws InterruptedException {
    ledger.reachable = false;
    ledger.spentT1 = LIMIT - 5;
    try (Gateway gateway = gateway()) {
      assertThat(gateway.durability().confirmed()).isFalse();
      assertThatThrownBy(() -> gateway.chat(request(), CallOptions.of(BUDGETED)))
          .isInstanceOfSatisfying(PointsmanException.class, e -> {
            assertThat(e.status().httpStatus()).isEqualTo(503);
            assertThat(e.rule()).isEqualTo(Durability.UNCONFIRMED_RULE);
          });
      // A call no budget governs is served; its record waits.
      gateway.chat(request(), CallOptions.of(FREE));

      ledger.reachable = true;
      for (int i = 0; i < 200 && !gateway.durability().confirmed(); i++) {
        Thread.sleep(50);
      }
      assertThat(gateway.durability().confirmed()).isTrue();
      // The counters were rebuilt from the ledger's spend: 5 left, the call's worst case is
      // more, so the budget refuses it.
      assertThatThrownBy(() -> gateway.chat(request(), CallOptions.of(BUDGETED)))
          .isInstanceOfSatisfying(PointsmanException.class,
              e -> assertThat(e.status().httpStatus()).isEqualTo(402));
    }
    assertThat(journal.closed).isTrue();
    assertThat(ledger.closed).isTrue();
  }

  @Test
  void aReachableLedgerIsConfirmedBeforeBuildReturnsWithItsHoldsCounted() {
    ledger.reachable = true;
    ledger.holds.add(new DispatchIntent("e1", "r1", 1, "k1", null, "t1", "acme", Set.of(), "m",
        "d", "fixture", "res-1", 400, 400, Instant.now(), Instant.now()));
    try (Gateway gateway = gateway()) {
      assertThat(gateway.durability().confirmed()).isTrue();
      assertThat(gateway.durability().recoveredHolds()).isEqualTo(1);
      ChatRequest small = request();
      gateway.chat(small, CallOptions.of(BUDGETED));
      assertThat(ledger.settled).hasSize(1);
    }
  }

  @Test
  void theBuilderRefusesAJournalWithoutALedgerAndNextToAccounting() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    Gateway.Builder b = Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m")
            .price(Price.of(1, 1)).build()).build())
        .provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("d", "fixture", "m")).journal(journal);
    assertThatThrownBy(b::build).hasMessageContaining("journal(...) needs ledger(...)");
    assertThatThrownBy(() -> b.ledger(ledger).accounting(new InMemoryAccounting()).build())
        .hasMessageContaining("journal(...) and accounting(...) were both set");
  }
}
