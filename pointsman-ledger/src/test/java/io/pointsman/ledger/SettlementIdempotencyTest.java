package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.batch;
import static io.pointsman.ledger.Fixtures.count;
import static io.pointsman.ledger.Fixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.CacheOutcome;
import io.pointsman.PointsmanException;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SettlementIdempotencyTest {
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
  void sameBatchReplayedThreeTimesWritesOneRowPerEvent() throws Exception {
    List<UsageRecord> records = batch("e", 50);
    long totalCost = records.stream().mapToLong(UsageRecord::costMicros).sum();

    ledger.settle(records);
    String afterFirst = Fixtures.fingerprint(ds);
    ledger.settle(records);
    ledger.settle(records);

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(50);
    assertThat(count(ds, "SELECT count(DISTINCT event_id) FROM pointsman.ledger_entries"))
        .isEqualTo(50);
    // key, team, org, model and two tags: six scopes per record
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isEqualTo(50 * 6);
    assertThat(count(ds, "SELECT sum(amount_micros) FROM pointsman.charges"
        + " WHERE scope_kind = 'KEY'")).isEqualTo(totalCost);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.reservations WHERE state = 'SETTLED'"))
        .isEqualTo(50);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(afterFirst);
  }

  @Test
  void crashBetweenCommitAndJournalConfirmationReplaysWithoutDuplicates() throws Exception {
    List<UsageRecord> records = batch("c", 20);
    ledger.probe(new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) {}

      @Override
      public void afterCommit() {
        // The commit happened; the process dies before the journal hears about it.
        throw new IllegalStateException("process died before confirming to the journal");
      }
    });
    assertThatThrownBy(() -> ledger.settle(records)).isInstanceOf(IllegalStateException.class);
    String committed = Fixtures.fingerprint(ds);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(20);

    // After restart the journal still holds the batch and hands it over again.
    PostgresSettlement restarted = PostgresSettlement.create(ds);
    restarted.settle(records);

    assertThat(Fixtures.fingerprint(ds)).isEqualTo(committed);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isEqualTo(20 * 6);
  }

  @Test
  void overlappingBatchesAddOnlyTheNewEvents() throws Exception {
    ledger.settle(batch("o", 10));
    ledger.settle(batch("o", 15));

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(15);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isEqualTo(15 * 6);
  }

  @Test
  void chargesKeyTeamOrgModelAndEachTagButSkipsAbsentScopes() throws Exception {
    UsageRecord full = record("full", 500);
    UsageRecord bare = new UsageRecord("bare", "req-bare", "key-2", null, null, null, Set.of(),
        null, null, 0, UsageOutcome.REJECTED, 429, "ratelimit.reserve", "rpm", null, 70, true,
        null, 0, CacheOutcome.SKIPPED, Fixtures.T0, 10);
    ledger.settle(List.of(full, bare));

    assertThat(Fixtures.string(ds, "SELECT string_agg(scope_kind || ':' || scope_id, ','"
        + " ORDER BY scope_kind, scope_id) FROM pointsman.charges WHERE event_id = 'full'"))
        .isEqualTo("KEY:key-1,MODEL:gpt-4o-mini,ORG:org-1,TAG:chat,TAG:prod,TEAM:team-1");
    assertThat(Fixtures.string(ds, "SELECT string_agg(scope_kind || ':' || scope_id || '='"
        + " || amount_micros, ',') FROM pointsman.charges WHERE event_id = 'bare'"))
        .isEqualTo("KEY:key-2=70");
  }

  @Test
  void zeroCostCallsChargeNothingAndReleaseTheirReservation() throws Exception {
    UsageRecord rejected = new UsageRecord("rej", "req-rej", "key-1", null, "team-1", null,
        Set.of(), "gpt-4o-mini", null, 0, UsageOutcome.REJECTED, 402, "ratelimit.reserve",
        "budget", null, 0, false, "res-rej", 5_000, CacheOutcome.SKIPPED, Fixtures.T0, 10);
    ledger.settle(List.of(rejected));

    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isZero();
    assertThat(Fixtures.string(ds, "SELECT state FROM pointsman.reservations"))
        .isEqualTo("RELEASED");
  }

  @Test
  void aSettledCallStaysSettledWhenRecoveryReportsItInterrupted() throws Exception {
    ledger.settle(List.of(record("s1", 900)));
    String settled = Fixtures.fingerprint(ds);

    ledger.interrupted(List.of(Fixtures.interrupted("s1", 5_000, 8_000)));

    assertThat(Fixtures.fingerprint(ds)).isEqualTo(settled);
    assertThat(Fixtures.string(ds, "SELECT status FROM pointsman.ledger_entries"))
        .isEqualTo("SETTLED");
  }

  @Test
  void interruptedCallsAreRecordedOnceAsUnknownWithTheirReservationHeld() throws Exception {
    ledger.interrupted(List.of(Fixtures.interrupted("u1", 5_000, 8_000)));
    ledger.interrupted(List.of(Fixtures.interrupted("u1", 5_000, 8_000)));

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries"
        + " WHERE status = 'UNKNOWN' AND outcome = 'UNKNOWN'")).isEqualTo(1);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isZero();
    Hold hold = ledger.hold("u1").orElseThrow();
    assertThat(hold.state()).isEqualTo(ReservationState.UNKNOWN);
    assertThat(hold.heldMicros()).isEqualTo(5_000);
    assertThat(hold.worstCaseMicros()).isEqualTo(8_000);
    assertThat(hold.epoch()).isEqualTo(1);
    // The window starts when the ledger records the hold, on the database's clock.
    assertThat(hold.holdUntil())
        .isEqualTo(hold.heldSince().plus(PostgresSettlement.DEFAULT_HOLD_WINDOW));
    assertThat(hold.heldSince()).isAfter(Fixtures.T0.plusSeconds(60));
  }

  @Test
  void settlementFailureIsThrownAsUnavailable() {
    db.close();
    assertThatThrownBy(() -> ledger.settle(batch("x", 1)))
        .isInstanceOfSatisfying(PointsmanException.class,
            e -> assertThat(e.status()).isEqualTo(io.pointsman.Status.UNAVAILABLE));
  }
}
