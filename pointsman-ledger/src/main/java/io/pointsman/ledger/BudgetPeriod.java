package io.pointsman.ledger;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/** The period over which a budget's spend is summed. Periods are calendar periods in UTC. */
public enum BudgetPeriod {
  /** Every charge ever made. */
  TOTAL,
  /** The current UTC day. */
  DAY,
  /** The current UTC calendar month. */
  MONTH;

  /**
   * Returns the start of the period containing an instant.
   *
   * @param at the instant
   * @return the start ({@link Instant#EPOCH} for {@link #TOTAL})
   */
  public Instant start(Instant at) {
    LocalDate day = at.atZone(ZoneOffset.UTC).toLocalDate();
    switch (this) {
      case TOTAL: return Instant.EPOCH;
      case DAY: return day.atStartOfDay(ZoneOffset.UTC).toInstant();
      case MONTH: return day.withDayOfMonth(1).atStartOfDay(ZoneOffset.UTC).toInstant();
      default: throw new AssertionError(this);
    }
  }

  /**
   * Returns the end (exclusive) of the period containing an instant.
   *
   * @param at the instant
   * @return the end, or {@code null} for {@link #TOTAL}
   */
  public Instant end(Instant at) {
    ZonedDateTime start = start(at).atZone(ZoneOffset.UTC);
    switch (this) {
      case TOTAL: return null;
      case DAY: return start.plusDays(1).toInstant();
      case MONTH: return start.plusMonths(1).toInstant();
      default: throw new AssertionError(this);
    }
  }
}
