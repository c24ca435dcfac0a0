package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.record;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageRecord;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReplayConflictTest {
  private TestDatabase db;
  private DataSource ds;
  private PostgresSettlement ledger;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    ledger = PostgresSettlement.create(ds);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void replayWithAnotherCostIsRecordedAndUnbalancesReconciliation() throws Exception {
    ledger.settle(List.of(record("c1", 1_000), record("c2", 500)));
    String stored = Fixtures.fingerprint(ds);

    ledger.settle(List.of(record("c1", 2_000), record("c2", 500)));

    // The stored row stays as it was; the disagreement is named.
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(stored);
    assertThat(ledger.conflicts()).singleElement().satisfies(c -> {
      assertThat(c.eventId()).isEqualTo("c1");
      assertThat(c.storedStatus()).isEqualTo("SETTLED");
      assertThat(c.storedCostMicros()).isEqualTo(1_000);
      assertThat(c.replayedCostMicros()).isEqualTo(2_000);
      assertThat(c.storedPromptTokens()).isEqualTo(100);
      assertThat(c.replayedPromptTokens()).isEqualTo(100);
      assertThat(c.timesSeen()).isEqualTo(1);
      assertThat(c.open()).isTrue();
    });
    assertThat(ledger.conflictsTotal()).isEqualTo(1);
    ReconciliationReport report = ledger.reconcile(2, 0);
    assertThat(report.conflicts()).isEqualTo(1);
    assertThat(report.missingRows()).isZero();
    assertThat(report.chargeMismatches()).isZero();
    assertThat(report.balanced()).isFalse();

    // The same disagreement again is counted on the same conflict; an identical replay is none.
    ledger.settle(List.of(record("c1", 2_000), record("c1", 1_000)));
    assertThat(ledger.conflicts()).singleElement()
        .satisfies(c -> assertThat(c.timesSeen()).isEqualTo(2));

    assertThat(ledger.resolveConflicts("c1", "export confirms 1000")).isEqualTo(1);
    assertThat(ledger.conflicts()).isEmpty();
    assertThat(ledger.reconcile(2, 0).balanced()).isTrue();
  }

  @Test
  void replayWithOtherUsageAtTheSameCostIsAConflict() {
    UsageRecord first = record("u1", 1_000);
    ledger.settle(List.of(first));

    ledger.settle(List.of(Fixtures.with(first, Usage.of(100, 20, 60), 1_000,
        first.reservationId())));

    assertThat(ledger.conflicts()).singleElement().satisfies(c -> {
      assertThat(c.storedCachedTokens()).isZero();
      assertThat(c.replayedCachedTokens()).isEqualTo(60);
    });
    assertThat(ledger.reconcile(1, 0).balanced()).isFalse();
  }

  @Test
  void settledRecordForACallHeldAsInterruptedIsAConflict() {
    ledger.interrupted(List.of(Fixtures.interrupted("i1", 5_000, 8_000)));

    ledger.settle(List.of(record("i1", 900)));

    assertThat(ledger.hold("i1").orElseThrow().state()).isEqualTo(ReservationState.UNKNOWN);
    assertThat(ledger.conflicts()).singleElement().satisfies(c -> {
      assertThat(c.storedStatus()).isEqualTo("UNKNOWN");
      assertThat(c.replayedCostMicros()).isEqualTo(900);
    });
  }

  @Test
  void identicalReplaysRecordNoConflict() {
    List<UsageRecord> records = Fixtures.batch("same", 30);
    ledger.settle(records);
    ledger.settle(records);
    ledger.settle(records.subList(5, 20));

    assertThat(ledger.conflicts()).isEmpty();
    assertThat(ledger.conflictsTotal()).isZero();
    assertThat(ledger.reconcile(30, 0).balanced()).isTrue();
  }
}
