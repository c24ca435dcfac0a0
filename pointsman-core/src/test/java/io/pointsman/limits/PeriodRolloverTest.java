package io.pointsman.limits;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FakeClock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeriodRolloverTest {
  private static final ZoneId NEW_YORK = ZoneId.of("America/New_York");

  private static Instant local(String dateTime) {
    return LocalDateTime.parse(dateTime).atZone(NEW_YORK).toInstant();
  }

  @Test
  void aDaylightSavingDayIsOnePeriodOf23Or25Hours() {
    Period daily = Period.daily(NEW_YORK);
    Instant spring = local("2024-03-10T12:00");
    assertThat(Duration.between(daily.start(spring), daily.end(spring))).hasHours(23);
    Instant autumn = local("2024-11-03T12:00");
    assertThat(Duration.between(daily.start(autumn), daily.end(autumn))).hasHours(25);
    // 01:30 happens twice on 3 November; both belong to the same day.
    Instant firstOneThirty = Instant.parse("2024-11-03T05:30:00Z");
    Instant secondOneThirty = Instant.parse("2024-11-03T06:30:00Z");
    assertThat(daily.start(firstOneThirty)).isEqualTo(daily.start(secondOneThirty))
        .isEqualTo(local("2024-11-03T00:00"));
  }

  @Test
  void weeksStartOnMondayAndMonthsOnTheFirstInTheZone() {
    Instant sunday = local("2024-03-10T23:30");
    assertThat(Period.weekly(NEW_YORK).start(sunday)).isEqualTo(local("2024-03-04T00:00"));
    assertThat(Period.weekly(NEW_YORK).end(sunday)).isEqualTo(local("2024-03-11T00:00"));
    // Midnight UTC on 1 April is still 31 March in New York.
    Instant utcApril = Instant.parse("2024-04-01T00:30:00Z");
    assertThat(Period.monthly(NEW_YORK).start(utcApril)).isEqualTo(local("2024-03-01T00:00"));
    assertThat(Period.monthly(NEW_YORK).end(utcApril)).isEqualTo(local("2024-04-01T00:00"));
    assertThat(Period.total().end(utcApril)).isNull();
    assertThat(Period.total().start(utcApril)).isEqualTo(Instant.EPOCH);
  }

  @Test
  void aDailyBudgetRollsOverAtLocalMidnightAcrossTheSpringForwardDay() {
    FakeClock clock = new FakeClock(local("2024-03-10T23:59"));
    InMemoryLimiter limiter = InMemoryLimiter.builder()
        .budget(Scope.team("t1"), Period.daily(NEW_YORK), 100).clock(clock).build();

    Reservation late = limiter.reserve(Admissions.of("e1", "k", "t1", "o", Set.of(), 80,
        clock.now()));
    LimitRemaining left = late.remaining().get(0);
    assertThat(left.rule()).isEqualTo("budget-daily:team:t1");
    assertThat(left.remaining()).isEqualTo(20);
    assertThat(left.resetsAt()).isEqualTo(local("2024-03-11T00:00"));
    assertThatThrownBy(() -> limiter.reserve(Admissions.of("e2", "k", "t1", "o", Set.of(), 30,
        clock.now()))).isInstanceOfSatisfying(PointsmanException.class, e -> {
          assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
          assertThat(e.rule()).isEqualTo("budget-daily:team:t1");
        });

    // The day was 23 hours long: two minutes later it is a new period with the full budget.
    clock.advance(Duration.ofMinutes(2));
    Reservation early = limiter.reserve(Admissions.of("e3", "k", "t1", "o", Set.of(), 90,
        clock.now()));
    assertThat(early.remaining().get(0).remaining()).isEqualTo(10);
    assertThat(early.remaining().get(0).resetsAt()).isEqualTo(local("2024-03-12T00:00"));
    assertThat(Duration.between(local("2024-03-11T00:00"), local("2024-03-12T00:00")))
        .hasHours(24);

    // The late call settles into the day it started in, not into the new one.
    late.settle(70);
    early.settle(90);
    assertThat(limiter.budget(Scope.team("t1"))).isEqualTo(
        new BudgetState(Scope.team("t1"), 100, 90, 0));
    long previousDay = local("2024-03-10T00:00").getEpochSecond();
    assertThat(limiter.limiter().store().read(io.pointsman.spi.Counter.budget(
        "budget-daily:team:t1:" + previousDay, 100, 0, 0))).isEqualTo(
        new io.pointsman.spi.CounterReading(70, 0, 0));
  }

  @Test
  void aLifetimeAndAMonthlyBudgetOnOneScopeHaveDistinctNames() {
    FakeClock clock = new FakeClock(local("2024-01-31T12:00"));
    InMemoryLimiter limiter = InMemoryLimiter.builder()
        .budget(Scope.org("acme"), 1_000)
        .budget(Scope.org("acme"), Period.monthly(NEW_YORK), 100)
        .clock(clock).build();
    Reservation r = limiter.reserve(Admissions.of("e1", "k", "t", "acme", Set.of(), 60,
        clock.now()));
    assertThat(r.remaining()).extracting(LimitRemaining::rule)
        .containsExactly("budget:org:acme", "budget-monthly:org:acme");
    assertThat(r.remaining()).extracting(LimitRemaining::resetsAt)
        .containsExactly(null, local("2024-02-01T00:00"));
    r.settle(60);
    assertThatThrownBy(() -> limiter.reserve(Admissions.of("e2", "k", "t", "acme", Set.of(),
        60, clock.now()))).hasMessageContaining("budget org:acme (monthly) exhausted");
    clock.advance(Duration.ofDays(1));
    limiter.reserve(Admissions.of("e3", "k", "t", "acme", Set.of(), 60, clock.now()))
        .release();
    assertThat(limiter.budgets().get("budget:org:acme").spentMicros()).isEqualTo(60);
    assertThat(limiter.budgets().get("budget-monthly:org:acme").spentMicros()).isZero();
  }
}
