package io.pointsman.examples.limits;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.cache.redis.testing.TestRedis;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.ledger.PostgresBudgetStore;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Period;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Admission;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResolvedModel;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One team budget hammered by 64 threads per gateway instance, with the journal and PostgreSQL
 * as the system of record: on two instances that share counters through Redis, and on one
 * instance with in-process counters. Afterwards nothing is held, the total charged is within
 * the limit, and counters rebuilt from PostgreSQL plus the journal's interrupted calls equal the
 * live ones (including a call interrupted after dispatch).
 */
class SharedBudgetTest {
  private static final String KEY = "pm-limits-shared-0001";
  private static final long LIMIT = 20_000;
  private static final int THREADS = 64;
  /** Calls per thread, so that 64 threads per instance ask for more than the budget holds. */
  private static final int CALLS_PER_INSTANCE_THREAD = 20;
  private static final Scope TEAM = Scope.team("t1");
  private static final Scope ORPHAN_KEY = Scope.key("k9");

  @TempDir
  Path dir;

  private static CounterLimiter limiter(CounterStore store) {
    return rules(store).build();
  }

  private static CounterLimiter.Builder rules(CounterStore store) {
    return CounterLimiter.builder(store)
        .budget(TEAM, LIMIT)
        .budget(Scope.org("o1"), Period.monthly(ZoneId.of("Europe/Paris")), LIMIT * 10)
        .budget(ORPHAN_KEY, 1_000_000)
        .concurrency(Scope.key("k1"), THREADS * 2);
  }

  private static Gateway gateway(CounterLimiter limiter, JournalAccounting accounting) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
    ModelCatalog catalog = ModelCatalog.builder().model(ModelSpec.builder("m")
        .contextWindow(8_192).maxOutputTokens(200).price(Price.of(1_000_000, 2_000_000))
        .build()).build();
    return Gateway.builder().authenticator(keys).models(catalog).limiter(limiter)
        .accounting(accounting).provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("d", "fixture", "m")).build();
  }

  private static JournalAccounting journal(Path dir, PostgresSettlement settlement) {
    return JournalAccounting.builder(JournalConfig.builder(dir).build(), settlement).open();
  }

  /** Totals of a hammer run. */
  private record Run(long charged, long succeeded, long denied) {}

  private static Run hammer(List<Gateway> gateways) throws InterruptedException {
    AtomicLong charged = new AtomicLong();
    AtomicLong succeeded = new AtomicLong();
    AtomicLong denied = new AtomicLong();
    ConcurrentLinkedQueue<Throwable> unexpected = new ConcurrentLinkedQueue<>();
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    ChatRequest request = ChatRequest.builder().model("m")
        .addMessage(Message.user("how much is left?")).maxTokens(100).build();
    for (Gateway g : gateways) {
      for (int t = 0; t < THREADS; t++) {
        Thread thread = new Thread(() -> {
          try {
            start.await();
            for (int i = 0; i < CALLS_PER_INSTANCE_THREAD / gateways.size(); i++) {
              try {
                ChatResult r = g.chat(request, CallOptions.of(KEY));
                charged.addAndGet(r.costMicros());
                succeeded.incrementAndGet();
              } catch (PointsmanException e) {
                if (e.status() == Status.PAYMENT_REQUIRED) {
                  denied.incrementAndGet();
                } else {
                  unexpected.add(e);
                }
              }
            }
          } catch (Throwable e) {
            unexpected.add(e);
          }
        });
        thread.start();
        threads.add(thread);
      }
    }
    start.countDown();
    for (Thread t : threads) {
      t.join();
    }
    assertThat(unexpected).as("unexpected failures").isEmpty();
    return new Run(charged.get(), succeeded.get(), denied.get());
  }

  /** A call of key k9 reserved and dispatched, then the instance dies before settling it. */
  private static Reservation interruptedCall(CounterLimiter limiter, JournalAccounting journal) {
    Identity id = new Identity("k9", null, "t9", "o9", Set.of(), Grant.all(), Grant.all(),
        Grant.all());
    ResolvedModel model = new ResolvedModel(ModelSpec.builder("m").price(Price.of(1, 1))
        .build(), 10, false, 10);
    Instant now = Instant.now();
    Reservation r = limiter.reserve(new Admission("orphan-1", id, Set.of(), model, 10, 10,
        5_000, now));
    journal.dispatched(new DispatchIntent("orphan-1", "req-orphan-1", 1, "k9", null, "t9",
        "o9", Set.of(), "m", "d", "fixture", r.id(), r.heldMicros(), 5_000, now));
    return r;
  }

  private static List<DispatchIntent> interrupted(JournalAccounting reopened) {
    List<DispatchIntent> out = new ArrayList<>();
    for (InterruptedCall c : reopened.recovery().interrupted()) {
      out.add(c.lastIntent());
    }
    return out;
  }

  @Test
  void twoInstancesSharingRedisAndPostgresNeverOverspendOneBudget() throws Exception {
    try (TestRedis redis = TestRedis.start(); TestDatabase db = TestDatabases.create()) {
      PostgresSettlement settlement = PostgresSettlement.builder(db.dataSource()).build();
      PostgresBudgetStore spend = PostgresBudgetStore.create(db.dataSource(), Clock.system());
      // Each instance has its own store object, journal and gateway; only Redis is shared.
      // Shared counters refuse until they have a generation: the ledger is their system of
      // record, and the first read rebuilds them from it (a new namespace: zeros).
      SpendSource ledger = SpendSource.of(spend::spent, settlement::unresolvedIntents);
      CounterLimiter a = rules(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build()).ledger(ledger).build();
      CounterLimiter b = rules(RedisCounterStore.builder(redis.client())
          .keyPrefix(redis.keyPrefix()).build()).ledger(ledger).build();
      assertThat(a.budget(TEAM)).isEqualTo(new BudgetState(TEAM, LIMIT, 0, 0));
      assertThat(a.rebuilds()).isEqualTo(1);
      assertThat(b.budget(TEAM)).isEqualTo(new BudgetState(TEAM, LIMIT, 0, 0));
      JournalAccounting journalA = journal(Files.createDirectory(dir.resolve("a")), settlement);
      JournalAccounting journalB = journal(Files.createDirectory(dir.resolve("b")), settlement);

      Run run = hammer(List.of(gateway(a, journalA), gateway(b, journalB)));
      assertThat(journalA.awaitDrained(Duration.ofSeconds(60))).isTrue();
      assertThat(journalB.awaitDrained(Duration.ofSeconds(60))).isTrue();

      BudgetState live = a.budget(TEAM);
      System.out.printf("two instances x %d threads: %d succeeded, %d refused (402), charged %d"
          + " of %d micro-units, held %d%n", THREADS, run.succeeded(), run.denied(),
          run.charged(), LIMIT, live.heldMicros());
      assertThat(run.denied()).as("the budget ran out").isPositive();
      assertThat(live.heldMicros()).isZero();
      assertThat(live.spentMicros()).isEqualTo(run.charged()).isLessThanOrEqualTo(LIMIT);
      assertThat(spend.spent(TEAM, Instant.EPOCH, null)).isEqualTo(run.charged());
      assertThat(b.budget(TEAM)).isEqualTo(live);
      assertThat(b.inflight(Scope.key("k1"))).isZero();

      // Instance B dies with one call dispatched and unsettled.
      Reservation orphan = interruptedCall(b, journalB);
      journalA.close();
      journalB.close();
      try (JournalAccounting reopenedA = journal(dir.resolve("a"), settlement);
          JournalAccounting reopenedB = journal(dir.resolve("b"), settlement)) {
        List<DispatchIntent> held = new ArrayList<>(interrupted(reopenedA));
        held.addAll(interrupted(reopenedB));
        assertThat(held).extracting(DispatchIntent::eventId).containsExactly("orphan-1");

        CounterLimiter rebuilt = limiter(new InProcessCounterStore());
        List<Reservation> recovered = rebuilt.rebuild(spend::spent, held);
        Map<String, BudgetState> liveBudgets = a.budgets();
        assertThat(liveBudgets.get("budget:key:k9").heldMicros()).isEqualTo(5_000);
        assertThat(rebuilt.budgets()).isEqualTo(liveBudgets);

        assertThat(recovered).hasSize(1);
        recovered.get(0).release();
        orphan.release();
        assertThat(a.budget(ORPHAN_KEY).heldMicros()).isZero();
        assertThat(rebuilt.budget(ORPHAN_KEY).heldMicros()).isZero();
      }
    }
  }

  @Test
  void oneInstanceWithInProcessCountersNeverOverspendsOneBudget() throws Exception {
    try (TestDatabase db = TestDatabases.create()) {
      PostgresSettlement settlement = PostgresSettlement.builder(db.dataSource()).build();
      PostgresBudgetStore spend = PostgresBudgetStore.create(db.dataSource(), Clock.system());
      CounterLimiter live = limiter(new InProcessCounterStore());
      JournalAccounting journal = journal(dir, settlement);

      Run run = hammer(List.of(gateway(live, journal)));
      assertThat(journal.awaitDrained(Duration.ofSeconds(60))).isTrue();
      BudgetState team = live.budget(TEAM);
      System.out.printf("one instance x %d threads: %d succeeded, %d refused (402), charged %d"
          + " of %d micro-units, held %d%n", THREADS, run.succeeded(), run.denied(),
          run.charged(), LIMIT, team.heldMicros());
      assertThat(run.denied()).as("the budget ran out").isPositive();
      assertThat(team.heldMicros()).isZero();
      assertThat(team.spentMicros()).isEqualTo(run.charged()).isLessThanOrEqualTo(LIMIT);
      assertThat(spend.spent(TEAM, Instant.EPOCH, null)).isEqualTo(run.charged());

      // The process dies with one call dispatched; a new one rebuilds its counters.
      Reservation orphan = interruptedCall(live, journal);
      Map<String, BudgetState> beforeCrash = live.budgets();
      journal.close();
      try (JournalAccounting reopened = journal(dir, settlement)) {
        CounterLimiter rebuilt = limiter(new InProcessCounterStore());
        List<Reservation> recovered = rebuilt.rebuild(spend::spent, interrupted(reopened));
        assertThat(rebuilt.budgets()).isEqualTo(beforeCrash);
        assertThat(beforeCrash.get("budget:key:k9").heldMicros()).isEqualTo(5_000);
        assertThat(recovered).hasSize(1);
        recovered.get(0).settle(5_000);
        assertThat(rebuilt.budget(ORPHAN_KEY)).isEqualTo(new BudgetState(ORPHAN_KEY, 1_000_000,
            5_000, 0));
        orphan.release();
      }
    }
  }
}
