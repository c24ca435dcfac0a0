package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.Clock;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.Scope;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The spend a counter rebuild reads leaves out the reservations still to end. */
class SpentExcludingTest {
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");
  private TestDatabase db;
  private PostgresLedger ledger;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ledger = PostgresLedger.of(db.dataSource());
  }

  @AfterEach
  void tearDown() {
    ledger.close();
    db.close();
  }

  private static UsageRecord record(String eventId, String reservationId, long cost) {
    return UsageRecord.builder().eventId(eventId).requestId("r-" + eventId).keyId("k1")
        .teamId("t1").model("m").deploymentId("d").attempts(1).outcome(UsageOutcome.SUCCESS)
        .httpStatus(200).usage(Usage.of(10, 5)).costMicros(cost).reservationId(reservationId)
        .heldMicros(cost).cacheOutcome(CacheOutcome.MISS).startedAt(T0).durationNanos(1)
        .build();
  }

  @Test
  void chargesOfTheGivenReservationsAreLeftOut() {
    ledger.settle(List.of(record("e1", "e1", 100), record("e2", "res-2", 200),
        record("e3", "e3", 400)));
    Scope team = Scope.team("t1");
    assertThat(ledger.spent(team, T0, null)).isEqualTo(700);
    assertThat(ledger.spentExcluding(team, T0, null, Set.of())).isEqualTo(700);
    assertThat(ledger.spentExcluding(team, T0, null, Set.of("e1"))).isEqualTo(600);
    // by reservation id when it differs from the event id
    assertThat(ledger.spentExcluding(team, T0, null, Set.of("res-2", "e3"))).isEqualTo(100);
    assertThat(ledger.spentExcluding(team, T0, null, Set.of("unknown"))).isEqualTo(700);
    assertThat(PostgresBudgetStore.create(db.dataSource(), Clock.system())
        .spentExcluding(Scope.global(), T0, null, Set.of("e3"))).isEqualTo(300);
  }
}
