package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CacheOutcome;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.Scope;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FakeClock;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class PostgresBudgetStoreTest {
  private TestDatabase db;
  private DataSource ds;
  private FakeClock clock;
  private PostgresSettlement ledger;
  private PostgresBudgetStore budgets;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    clock = new FakeClock(Instant.parse("2026-03-15T12:00:00Z"));
    ledger = PostgresSettlement.builder(ds).clock(clock).build();
    budgets = PostgresBudgetStore.create(ds, clock);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private static UsageRecord at(String id, String team, Instant start, long cost) {
    return new UsageRecord(id, "r-" + id, "key-" + team, null, team, "acme", Set.of("batch"),
        "gpt-4o-mini", "d", 1, UsageOutcome.SUCCESS, 200, null, null, Usage.of(10, 10), cost,
        false, null, 0, CacheOutcome.MISS, start, 1);
  }

  @Test
  void rebuildsSpentPerPeriodAndHeldFromTheLedger() {
    ledger.settle(List.of(
        at("a", "t1", Instant.parse("2026-03-15T08:00:00Z"), 100),
        at("b", "t1", Instant.parse("2026-03-14T08:00:00Z"), 200),
        at("c", "t1", Instant.parse("2026-02-27T08:00:00Z"), 400),
        at("d", "t2", Instant.parse("2026-03-15T09:00:00Z"), 800)));
    ledger.interrupted(List.of(Fixtures.interrupted("u", 3_000, 9_000)));
    budgets.putBudget(Scope.team("t1"), BudgetPeriod.DAY, 1_000);
    budgets.putBudget(Scope.team("t1"), BudgetPeriod.MONTH, 5_000);
    budgets.putBudget(Scope.org("acme"), BudgetPeriod.TOTAL, 10_000);
    budgets.putBudget(Scope.global(), BudgetPeriod.MONTH, 50_000);

    List<BudgetStatus> statuses = budgets.statuses();

    assertThat(statuses).extracting(BudgetStatus::state).containsExactlyInAnyOrder(
        new BudgetState(Scope.team("t1"), 1_000, 100, 0),
        new BudgetState(Scope.team("t1"), 5_000, 300, 0),
        new BudgetState(Scope.org("acme"), 10_000, 1_500, 0),
        new BudgetState(Scope.global(), 50_000, 1_100, 3_000));
    assertThat(budgets.held(Scope.team("team-1"))).isEqualTo(3_000);
    assertThat(budgets.held(Scope.tag("batch"))).isZero();
    assertThat(budgets.spent(Scope.tag("batch"), Instant.EPOCH, null)).isEqualTo(1_500);
  }

  @Test
  void changedBudgetIsSeenAtOnceAndPeriodsAreRecorded() throws Exception {
    budgets.putBudget(Scope.key("k"), BudgetPeriod.DAY, 10);
    assertThat(budgets.statuses()).singleElement()
        .extracting(BudgetStatus::limitMicros).isEqualTo(10L);

    budgets.putBudget(Scope.key("k"), BudgetPeriod.DAY, 20);
    assertThat(budgets.statuses()).singleElement()
        .extracting(BudgetStatus::limitMicros).isEqualTo(20L);

    assertThat(budgets.recordPeriods()).isEqualTo(1);
    assertThat(budgets.recordPeriods()).isEqualTo(1);
    assertThat(Fixtures.count(ds, "SELECT count(*) FROM pointsman.budget_periods")).isEqualTo(1);
    assertThat(budgets.removeBudget(Scope.key("k"), BudgetPeriod.DAY)).isTrue();
    assertThat(budgets.statuses()).isEmpty();
  }

  @Test
  void periodsAreUtcCalendarPeriods() {
    Instant at = Instant.parse("2026-03-15T12:34:56Z");
    assertThat(BudgetPeriod.DAY.start(at)).isEqualTo(Instant.parse("2026-03-15T00:00:00Z"));
    assertThat(BudgetPeriod.DAY.end(at)).isEqualTo(Instant.parse("2026-03-16T00:00:00Z"));
    assertThat(BudgetPeriod.MONTH.start(at)).isEqualTo(Instant.parse("2026-03-01T00:00:00Z"));
    assertThat(BudgetPeriod.MONTH.end(at)).isEqualTo(Instant.parse("2026-04-01T00:00:00Z"));
    assertThat(BudgetPeriod.TOTAL.start(at)).isEqualTo(Instant.EPOCH);
    assertThat(BudgetPeriod.TOTAL.end(at)).isNull();
  }
}
