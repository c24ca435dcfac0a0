package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.DispatchIntent;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** An interrupted call is charged at expiry what the live path charges: every attempt's worst case. */
class UnknownWorstCaseTest {
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
  void callWithTwoUnknownAttemptsExpiresAtBothWorstCases() throws Exception {
    // Attempt 2's intent holds 1,400: the gateway extended the hold by a second worst case
    // before retrying after attempt 1's unknown outcome.
    ledger.interrupted(List.of(Fixtures.interrupted("two", "res-two", 2, 1_400, 700)));

    Hold held = ledger.hold("two").orElseThrow();
    assertThat(held.heldMicros()).isEqualTo(1_400);
    assertThat(held.worstCaseMicros()).isEqualTo(1_400);
    assertThat(ledger.unresolvedHolds().worstCaseMicros()).isEqualTo(1_400);

    ledger.expiryClockSkew(PostgresSettlement.DEFAULT_HOLD_WINDOW.plus(Duration.ofSeconds(1)));
    assertThat(ledger.expireHolds()).isEqualTo(1);

    assertThat(ledger.hold("two").orElseThrow().chargedMicros()).isEqualTo(1_400);
    assertThat(Fixtures.count(ds, "SELECT count(*) FROM pointsman.charges"
        + " WHERE amount_micros = 1400")).isEqualTo(5);
    assertThat(ledger.reconcile(0, 0).balanced()).isTrue();
  }

  @Test
  void worstCaseIsTheSumOverAttemptsAndNeverBelowTheHeldAmount() {
    ledger.interrupted(List.of(
        Fixtures.interrupted("one", "res-one", 1, 700, 700),
        // A hold that was not extended still expires at every attempt's worst case.
        Fixtures.interrupted("three", "res-three", 3, 700, 700),
        // A hold larger than the sum is what is charged.
        Fixtures.interrupted("big", "res-big", 1, 2_000, 700)));

    assertThat(ledger.hold("one").orElseThrow().worstCaseMicros()).isEqualTo(700);
    assertThat(ledger.hold("three").orElseThrow().worstCaseMicros()).isEqualTo(2_100);
    assertThat(ledger.hold("big").orElseThrow().worstCaseMicros()).isEqualTo(2_000);
    assertThat(ledger.unresolvedIntents()).extracting(DispatchIntent::worstCaseMicros)
        .containsExactlyInAnyOrder(700L, 2_100L, 2_000L);
  }

  @Test
  void aWorstCaseSumBeyondLongSaturates() {
    assertThat(PostgresSettlement.worstCaseOf(
        Fixtures.interrupted("huge", "res-huge", 3, 1, Long.MAX_VALUE / 2)))
        .isEqualTo(Long.MAX_VALUE);
  }
}
