package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Instances whose clocks disagree decide hold expiry alike: by the database's clock. */
class DatabaseClockTest {
  private TestDatabase db;
  private DataSource ds;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void anInstanceWhoseClockRunsAheadDoesNotExpireHoldsEarly() throws Exception {
    Instant real = Instant.now();
    PostgresSettlement writer = PostgresSettlement.builder(ds).clock(new FakeClock(real)).build();
    DispatchIntent d = new DispatchIntent("x", "req-x", 1, "key-1", null, null, null, Set.of(),
        "m", "d", "p", "res-x", 500, 700, real);
    writer.interrupted(List.of(new InterruptedCall(d, 1, true, real)));
    PostgresSettlement ahead = PostgresSettlement.builder(ds)
        .clock(new FakeClock(real.plus(Duration.ofHours(1)))).migrate(false).build();

    assertThat(ahead.expireHolds()).isZero();
    assertThat(ahead.hold("x").orElseThrow().state()).isEqualTo(ReservationState.UNKNOWN);
    // The window was measured on the database's clock too.
    Hold hold = ahead.hold("x").orElseThrow();
    assertThat(Duration.between(hold.heldSince(), hold.holdUntil()))
        .isEqualTo(PostgresSettlement.DEFAULT_HOLD_WINDOW);
    assertThat(Fixtures.count(ds, "SELECT count(*) FROM pointsman.reservations"
        + " WHERE held_since <= now() AND hold_until > now()")).isEqualTo(1);
  }

  @Test
  void anInstanceWhoseClockLagsExpiresHoldsOnceTheDatabaseSaysTheWindowEnded() {
    Instant real = Instant.now();
    PostgresSettlement writer = PostgresSettlement.builder(ds).clock(new FakeClock(real)).build();
    // The journal's recovery time is a week old: the window still starts when the ledger
    // records the hold.
    DispatchIntent d = new DispatchIntent("y", "req-y", 1, "key-1", null, null, null, Set.of(),
        "m", "d", "p", "res-y", 500, 700, real);
    writer.interrupted(List.of(new InterruptedCall(d, 1, true, real.minus(Duration.ofDays(7)))));
    PostgresSettlement behind = PostgresSettlement.builder(ds)
        .clock(new FakeClock(real.minus(Duration.ofHours(1)))).migrate(false).build();
    assertThat(behind.expireHolds()).isZero();

    behind.expiryClockSkew(PostgresSettlement.DEFAULT_HOLD_WINDOW);
    assertThat(behind.expireHolds()).isEqualTo(1);
    assertThat(behind.hold("y").orElseThrow().chargedMicros()).isEqualTo(700);
  }
}
