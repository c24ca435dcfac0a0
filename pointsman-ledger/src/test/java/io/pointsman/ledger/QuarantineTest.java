package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CacheOutcome;
import io.pointsman.PointsmanException;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.Scope;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class QuarantineTest {
  private TestDatabase db;
  private DataSource ds;
  private PostgresSettlement ledger;
  private PostgresBudgetStore budgets;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    ledger = PostgresSettlement.create(ds);
    budgets = PostgresBudgetStore.create(ds, io.pointsman.Clock.system());
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void refusedRecordAmongNinetyNineGoodOnesIsQuarantinedAndTheRestSettle() throws Exception {
    List<UsageRecord> records = new ArrayList<>(Fixtures.batch("q", 100));
    UsageRecord bad = Fixtures.negativeCachedTokens("q50");
    records.set(50, bad);
    long goodCost = records.stream().filter(r -> r != bad).mapToLong(UsageRecord::costMicros)
        .sum();

    ledger.settle(records);

    // 99 settled with their charges and reservations, 1 quarantined, none lost.
    assertThat(Fixtures.tableCounts(ds)).containsExactly(99L, 99L * 6, 99L);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries"
        + " WHERE event_id = 'q50'")).isZero();
    assertThat(count(ds, "SELECT sum(amount_micros) FROM pointsman.charges"
        + " WHERE scope_kind = 'KEY'")).isEqualTo(goodCost);
    List<QuarantinedItem> quarantined = ledger.quarantined();
    assertThat(quarantined).singleElement().satisfies(q -> {
      assertThat(q.eventId()).isEqualTo("q50");
      assertThat(q.kind()).isEqualTo(QuarantinedItem.Kind.SETTLED_RECORD);
      assertThat(q.reasonKind()).isEqualTo(QuarantineReason.CONSTRAINT_VIOLATION);
      assertThat(q.reason()).contains("ledger_entries_cached_tokens_check");
      assertThat(q.sqlState()).isEqualTo("23514");
      assertThat(q.heldMicros()).isEqualTo(700);
      assertThat(q.tries()).isEqualTo(1);
      assertThat(q.quarantinedAt()).isNotNull();
      assertThat(q.record()).isEqualTo(bad);
    });
    assertThat(ledger.quarantinedTotal()).isEqualTo(1);
    assertThat(Fixtures.string(ds, "SELECT payload::json ->> 'eventId'"
        + " FROM pointsman.quarantine")).isEqualTo("q50");

    // Reconciliation accounts for every acknowledged record and names the quarantined one.
    ReconciliationReport report = ledger.reconcile(100, 0);
    assertThat(report.missingRows()).isZero();
    assertThat(report.quarantinedRecords()).isEqualTo(1);
    assertThat(report.balanced()).isFalse();

    // The hold it names stays held, for budgets and for a limiter rebuilt at start.
    assertThat(budgets.held(Scope.team("team-1"))).isEqualTo(700);
    assertThat(budgets.held(Scope.global())).isEqualTo(700);
    assertThat(budgets.held(Scope.team("elsewhere"))).isZero();
    assertThat(ledger.unresolvedIntents()).singleElement().satisfies(i -> {
      assertThat(i.eventId()).isEqualTo("q50");
      assertThat(i.reservationId()).isEqualTo("res-q50");
      assertThat(i.heldMicros()).isEqualTo(700);
      assertThat(i.model()).isEqualTo("unpriced-model");
    });

    // The journal hands the same batch over again: nothing changes, nothing doubles.
    String settled = Fixtures.fingerprint(ds);
    ledger.settle(records);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(settled);
    assertThat(ledger.quarantined()).singleElement()
        .satisfies(q -> assertThat(q.tries()).isEqualTo(2));

    // A re-drive without a fix is refused again and stays quarantined.
    RedriveReport unchanged = ledger.redriveQuarantined();
    assertThat(unchanged.redriven()).isEmpty();
    assertThat(unchanged.stillQuarantined()).containsExactly("q50");
    assertThat(ledger.quarantined()).singleElement()
        .satisfies(q -> assertThat(q.tries()).isEqualTo(3));

    // Fixed, it settles; the quarantine row keeps what was written.
    RedriveReport fixed = ledger.redriveQuarantined(new QuarantineFix() {
      @Override
      public UsageRecord record(UsageRecord r) {
        return Fixtures.with(r, Usage.of(100, 20), r.costMicros(), r.reservationId());
      }
    });
    assertThat(fixed.redriven()).containsExactly("q50");
    assertThat(fixed.stillQuarantined()).isEmpty();
    assertThat(ledger.redrivenTotal()).isEqualTo(1);
    assertThat(ledger.quarantined()).isEmpty();
    assertThat(Fixtures.tableCounts(ds)).containsExactly(100L, 99L * 6 + 5, 100L);
    assertThat(Fixtures.string(ds, "SELECT (redriven_payload::json -> 'usage'"
        + " ->> 'prompt_tokens') || ':' || (redriven_at IS NOT NULL) FROM pointsman.quarantine"))
        .isEqualTo("100:true");
    assertThat(ledger.reconcile(100, 0).balanced()).isTrue();
    assertThat(budgets.held(Scope.team("team-1"))).isZero();
    assertThat(ledger.unresolvedIntents()).isEmpty();
    // Nothing left to re-drive.
    assertThat(ledger.redriveQuarantined().redriven()).isEmpty();
  }

  @Test
  void everyKindOfRefusalIsQuarantinedWithItsReasonAndTheGoodRecordsSettle() throws Exception {
    UsageRecord base = Fixtures.record("base", 900);
    ledger.settle(List.of(base));
    List<UsageRecord> records = new ArrayList<>(Fixtures.batch("k", 10));
    records.add(Fixtures.withStatus(Fixtures.record("status", 100), 1_000));
    records.add(new UsageRecord("nul", "req-nul", "key-1", null, null, null, Set.of("a\0b"),
        "m", "d", 1, UsageOutcome.SUCCESS, 200, null, null, Usage.of(1, 1), 100, false,
        "res-nul", 100, CacheOutcome.MISS, Fixtures.T0, 1));
    records.add(new UsageRecord("far", "req-far", "key-1", null, null, null, Set.of(), "m", "d",
        1, UsageOutcome.SUCCESS, 200, null, null, Usage.of(1, 1), 100, false, "res-far", 100,
        CacheOutcome.MISS, Instant.parse("+300000-01-01T00:00:00Z"), 1));
    records.add(Fixtures.with(Fixtures.record("blank-res", 100), Usage.of(1, 1), 100, ""));
    records.add(Fixtures.with(Fixtures.record("dup-res", 100), Usage.of(1, 1), 100,
        base.reservationId()));

    ledger.settle(records);

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(11);
    List<QuarantinedItem> quarantined = ledger.quarantined();
    assertThat(quarantined).extracting(QuarantinedItem::eventId)
        .containsExactlyInAnyOrder("status", "nul", "far", "blank-res", "dup-res");
    for (QuarantinedItem q : quarantined) {
      switch (q.eventId()) {
        case "status" -> assertThat(q.reason()).contains("ledger_entries_http_status_check");
        case "nul", "far" -> assertThat(q.reasonKind()).isEqualTo(QuarantineReason.INVALID_VALUE);
        case "blank-res" -> assertThat(q.reason()).contains("reservations_reservation_id_check");
        case "dup-res" -> {
          assertThat(q.reasonKind()).isEqualTo(QuarantineReason.DUPLICATE_RESERVATION_ID);
          assertThat(q.reason()).contains(base.reservationId());
        }
        default -> throw new AssertionError(q);
      }
      // Every payload rebuilds the record exactly, even the one PostgreSQL cannot store.
      assertThat(q.record())
          .isEqualTo(records.stream().filter(r -> r.eventId().equals(q.eventId())).findFirst()
              .orElseThrow());
    }
    assertThat(ledger.quarantinedTotal()).isEqualTo(5);
  }

  @Test
  void aLostConnectionQuarantinesNothingAndFailsTheBatchForARetry() throws Exception {
    List<UsageRecord> records = new ArrayList<>(Fixtures.batch("t", 20));
    records.set(7, Fixtures.negativeCachedTokens("t7"));
    ledger.probe(killer());

    // The batch statement is refused; the record-by-record transaction then loses its
    // connection before committing: that is no refusal, so nothing is quarantined.
    assertThatThrownBy(() -> ledger.settle(records)).isInstanceOf(PointsmanException.class);
    assertThat(Fixtures.tableCounts(ds)).containsOnly(0L);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.quarantine")).isZero();
    assertThat(ledger.quarantinedTotal()).isZero();

    ledger.probe(null);
    ledger.settle(records);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(19);
    assertThat(ledger.quarantined()).extracting(QuarantinedItem::eventId).containsExactly("t7");
  }

  @Test
  void aGoodBatchThatLosesItsConnectionQuarantinesNothing() throws Exception {
    ledger.probe(killer());
    assertThatThrownBy(() -> ledger.settle(Fixtures.batch("g", 10)))
        .isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> ledger.interrupted(List.of(Fixtures.interrupted("gi", 1, 2))))
        .isInstanceOf(PointsmanException.class);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.quarantine")).isZero();
    assertThat(Fixtures.tableCounts(ds)).containsOnly(0L);
  }

  @Test
  void refusedInterruptedCallIsQuarantinedAndItsHoldStaysHeld() throws Exception {
    ledger.interrupted(List.of(Fixtures.interrupted("first", "shared-res", 1, 500, 700)));
    ledger.interrupted(List.of(Fixtures.interrupted("second", "shared-res", 1, 600, 700),
        Fixtures.interrupted("third", "res-third", 1, 300, 400)));

    assertThat(ledger.hold("first")).isPresent();
    assertThat(ledger.hold("third")).isPresent();
    assertThat(ledger.hold("second")).isEmpty();
    assertThat(ledger.quarantined()).singleElement().satisfies(q -> {
      assertThat(q.kind()).isEqualTo(QuarantinedItem.Kind.INTERRUPTED_CALL);
      assertThat(q.reasonKind()).isEqualTo(QuarantineReason.DUPLICATE_RESERVATION_ID);
      assertThat(q.heldMicros()).isEqualTo(600);
      assertThat(q.call().lastIntent().reservationId()).isEqualTo("shared-res");
    });
    assertThat(budgets.held(Scope.team("team-1"))).isEqualTo(500 + 600 + 300);
    assertThat(ledger.unresolvedIntents()).extracting(DispatchIntent::eventId)
        .containsExactlyInAnyOrder("first", "second", "third");
    assertThat(ledger.reconcile(0, 0).quarantinedCalls()).isEqualTo(1);
    assertThat(ledger.reconcile(0, 0).balanced()).isFalse();

    assertThatThrownBy(() -> ledger.redriveQuarantined(new QuarantineFix() {
      @Override
      public io.pointsman.spi.InterruptedCall call(io.pointsman.spi.InterruptedCall c) {
        return Fixtures.interrupted("other-event", "res-second", 1, 600, 700);
      }
    })).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("event id");

    RedriveReport report = ledger.redriveQuarantined(new QuarantineFix() {
      @Override
      public io.pointsman.spi.InterruptedCall call(io.pointsman.spi.InterruptedCall c) {
        return Fixtures.interrupted(c.eventId(), "res-second", 1, 600, 700);
      }
    });
    assertThat(report.redriven()).containsExactly("second");
    Hold second = ledger.hold("second").orElseThrow();
    assertThat(second.state()).isEqualTo(ReservationState.UNKNOWN);
    assertThat(second.heldMicros()).isEqualTo(600);
    assertThat(budgets.held(Scope.team("team-1"))).isEqualTo(500 + 600 + 300);
    assertThat(ledger.reconcile(0, 0).balanced()).isTrue();
  }

  /** Kills the transaction's own session just before it commits. */
  private PostgresSettlement.TransactionProbe killer() {
    return new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) throws SQLException {
        try (Connection admin = ds.getConnection();
            PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
          kill.setInt(1, backendPid);
          kill.execute();
        }
      }

      @Override
      public void afterCommit() {}
    };
  }
}
