package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.count;
import static io.pointsman.ledger.Fixtures.interrupted;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.HoldDecision.Verdict;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AttestationTest {
  private static final long HELD = 5_000;
  private static final long WORST = 8_000;
  private static final long FLOOR = 1_200;

  private TestDatabase db;
  private DataSource ds;
  private FakeClock clock;
  private final List<HoldSummary> alerts = new ArrayList<>();
  private PostgresSettlement ledger;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    clock = new FakeClock(Fixtures.T0.plusSeconds(60));
    ledger = PostgresSettlement.builder(ds)
        .clock(clock)
        .holdWindow(Duration.ofMinutes(15))
        .floorPolicy(call -> FLOOR)
        .holdAlert(alerts::add)
        .build();
    ledger.interrupted(List.of(interrupted("u1", HELD, WORST)));
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  /** Time passes: for the host's clock, and for the database's clock expiry decides by. */
  private Duration skew = Duration.ZERO;

  private void advance(Duration d) {
    clock.advance(d);
    skew = skew.plus(d);
    ledger.expiryClockSkew(skew);
  }

  @Test
  void acceptedAttestationChargesTheAttestedCostInEveryScopeAndResolvesTheHold()
      throws Exception {
    Hold hold = ledger.hold("u1").orElseThrow();

    HoldDecision decision =
        ledger.attest("u1", Usage.of(300, 40), 2_500, "provider export line 17", hold.epoch());

    assertThat(decision.verdict()).isEqualTo(Verdict.ACCEPTED);
    assertThat(decision.epoch()).isEqualTo(hold.epoch() + 1);
    Hold after = ledger.hold("u1").orElseThrow();
    assertThat(after.state()).isEqualTo(ReservationState.ATTESTED);
    assertThat(after.chargedMicros()).isEqualTo(2_500);
    assertThat(Fixtures.string(ds, "SELECT status || ':' || cost_micros || ':' || prompt_tokens"
        + " FROM pointsman.ledger_entries")).isEqualTo("ATTESTED:2500:300");
    // key, team, org, model, one tag
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges WHERE amount_micros = 2500"))
        .isEqualTo(5);
    assertThat(ledger.reconcile(0, 0).balanced()).isTrue();
  }

  @Test
  void unresolvedIntentsListTheHoldsStillUnknownWithTheirScopesAndLeaveResolvedOnesOut() {
    ledger.interrupted(List.of(interrupted("u2", 700, 900)));
    List<DispatchIntent> before = ledger.unresolvedIntents();
    assertThat(before).extracting(DispatchIntent::eventId).containsExactly("u1", "u2");
    DispatchIntent u1 = before.get(0);
    assertThat(u1.reservationId()).isEqualTo("res-u1");
    assertThat(u1.heldMicros()).isEqualTo(HELD);
    assertThat(u1.worstCaseMicros()).isEqualTo(WORST);
    assertThat(u1.keyId()).isEqualTo("key-1");
    assertThat(u1.teamId()).isEqualTo("team-1");
    assertThat(u1.orgId()).isEqualTo("org-1");
    assertThat(u1.tags()).containsExactly("prod");
    assertThat(u1.model()).isEqualTo("gpt-4o-mini");
    assertThat(u1.callStartedAt()).isEqualTo(Fixtures.T0);

    Hold hold = ledger.hold("u1").orElseThrow();
    assertThat(ledger.attest("u1", null, 2_000, "export", hold.epoch()).accepted()).isTrue();
    assertThat(ledger.unresolvedIntents()).extracting(DispatchIntent::eventId)
        .containsExactly("u2");
  }

  @Test
  void underFloorAttestationIsRefusedAndWritesNothing() throws Exception {
    String before = Fixtures.fingerprint(ds);
    List<Long> counts = Fixtures.tableCounts(ds);

    HoldDecision decision = ledger.attest("u1", Usage.of(1, 1), FLOOR - 1, "too cheap", 1);

    assertThat(decision.verdict()).isEqualTo(Verdict.UNDER_FLOOR);
    assertThat(decision.accepted()).isFalse();
    assertThat(Fixtures.tableCounts(ds)).isEqualTo(counts);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(before);
  }

  @Test
  void attestationAtExactlyTheFloorIsAccepted() {
    assertThat(ledger.attest("u1", null, FLOOR, "floor", 1).verdict())
        .isEqualTo(Verdict.ACCEPTED);
  }

  @Test
  void staleEpochAttestationIsRefusedAndWritesNothing() throws Exception {
    Hold seen = ledger.hold("u1").orElseThrow();
    // The hold changes after the attester read it.
    assertThat(ledger.extendHold("u1", seen.epoch(), Duration.ofMinutes(5)).accepted()).isTrue();
    String before = Fixtures.fingerprint(ds);

    HoldDecision decision = ledger.attest("u1", Usage.of(300, 40), 2_500, "late", seen.epoch());

    assertThat(decision.verdict()).isEqualTo(Verdict.STALE_EPOCH);
    assertThat(decision.epoch()).isEqualTo(seen.epoch() + 1);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(before);
  }

  @Test
  void repeatedAttestationIsRefusedAndWritesNothing() throws Exception {
    assertThat(ledger.attest("u1", Usage.of(300, 40), 2_500, "first", 1).accepted()).isTrue();
    String before = Fixtures.fingerprint(ds);

    HoldDecision sameEpoch = ledger.attest("u1", Usage.of(300, 40), 2_500, "again", 1);
    HoldDecision nextEpoch = ledger.attest("u1", Usage.of(900, 40), 9_000, "again", 2);

    assertThat(sameEpoch.verdict()).isEqualTo(Verdict.ALREADY_RESOLVED);
    assertThat(nextEpoch.verdict()).isEqualTo(Verdict.ALREADY_RESOLVED);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(before);
  }

  @Test
  void attestationOfAnUnknownEventIsRefused() throws Exception {
    String before = Fixtures.fingerprint(ds);
    assertThat(ledger.attest("nope", null, 0, "none", 1).verdict()).isEqualTo(Verdict.NOT_FOUND);
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(before);
  }

  @Test
  void holdExpiryChargesTheWorstCaseAndFlagsTheRow() throws Exception {
    advance(Duration.ofMinutes(14));
    assertThat(ledger.expireHolds()).isZero();
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isZero();

    advance(Duration.ofMinutes(1));
    assertThat(ledger.expireHolds()).isEqualTo(1);
    assertThat(ledger.expireHolds()).isZero();

    Hold hold = ledger.hold("u1").orElseThrow();
    assertThat(hold.state()).isEqualTo(ReservationState.EXPIRED);
    assertThat(hold.chargedMicros()).isEqualTo(WORST);
    assertThat(Fixtures.string(ds, "SELECT status || ':' || cost_micros || ':' || cost_estimated"
        + " FROM pointsman.ledger_entries")).isEqualTo("EXPIRED:8000:true");
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges WHERE amount_micros = 8000"))
        .isEqualTo(5);
    assertThat(ledger.attest("u1", null, 2_000, "too late", hold.epoch()).verdict())
        .isEqualTo(Verdict.ALREADY_RESOLVED);
  }

  @Test
  void attestationAfterTheWindowButBeforeExpiryRunsStillResolvesTheHold() {
    advance(Duration.ofMinutes(20));
    assertThat(ledger.attest("u1", null, 2_000, "just in time", 1).accepted()).isTrue();
    assertThat(ledger.expireHolds()).isZero();
    assertThat(ledger.hold("u1").orElseThrow().chargedMicros()).isEqualTo(2_000);
  }

  @Test
  void extendedHoldExpiresLater() {
    ledger.extendHold("u1", 1, Duration.ofMinutes(10));
    advance(Duration.ofMinutes(20));
    assertThat(ledger.expireHolds()).isZero();
    advance(Duration.ofMinutes(5));
    assertThat(ledger.expireHolds()).isEqualTo(1);
  }

  @Test
  void alertFiresWhileUnresolvedHoldsExistAndStopsOnceResolved() {
    HoldSummary summary = ledger.checkHolds();
    assertThat(summary.unresolved()).isEqualTo(1);
    assertThat(summary.heldMicros()).isEqualTo(HELD);
    assertThat(summary.worstCaseMicros()).isEqualTo(WORST);
    assertThat(alerts).hasSize(1);

    advance(Duration.ofMinutes(15));
    HoldSummary afterExpiry = ledger.checkHolds();
    assertThat(afterExpiry.expiredNow()).isEqualTo(1);
    assertThat(afterExpiry.any()).isFalse();
    assertThat(alerts).hasSize(1);
  }
}
