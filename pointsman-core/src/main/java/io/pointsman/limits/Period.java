package io.pointsman.limits;

import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Objects;

/**
 * The period over which a budget is counted: the whole lifetime, or calendar days, ISO weeks
 * (from Monday) or months in a time zone. Periods are aligned to the calendar of the zone, so a
 * day that a daylight-saving change makes 23 or 25 hours long is one period. Immutable.
 *
 * @param unit the length
 * @param zone the zone whose calendar aligns the periods (UTC for {@link Unit#TOTAL})
 */
public record Period(Unit unit, ZoneId zone) {
  /** The lengths of a period. */
  public enum Unit {
    /** Never resets. */
    TOTAL,
    /** A calendar day. */
    DAY,
    /** An ISO week, from Monday. */
    WEEK,
    /** A calendar month. */
    MONTH
  }

  /**
   * Validates the fields.
   *
   * @param unit the length
   * @param zone the zone whose calendar aligns the periods (UTC for {@link Unit#TOTAL})
   * @throws NullPointerException if a field is null
   */
  public Period {
    Objects.requireNonNull(unit, "unit");
    Objects.requireNonNull(zone, "zone");
  }

  /**
   * Returns the period that never resets.
   *
   * @return the period
   */
  public static Period total() {
    return new Period(Unit.TOTAL, ZoneOffset.UTC);
  }

  /**
   * Returns calendar days in a zone.
   *
   * @param zone the zone
   * @return the period
   */
  public static Period daily(ZoneId zone) {
    return new Period(Unit.DAY, zone);
  }

  /**
   * Returns ISO weeks (Monday to Sunday) in a zone.
   *
   * @param zone the zone
   * @return the period
   */
  public static Period weekly(ZoneId zone) {
    return new Period(Unit.WEEK, zone);
  }

  /**
   * Returns calendar months in a zone.
   *
   * @param zone the zone
   * @return the period
   */
  public static Period monthly(ZoneId zone) {
    return new Period(Unit.MONTH, zone);
  }

  /**
   * Returns when the period containing an instant starts.
   *
   * @param at the instant
   * @return the start ({@link Instant#EPOCH} for {@link Unit#TOTAL})
   */
  public Instant start(Instant at) {
    if (unit == Unit.TOTAL) {
      return Instant.EPOCH;
    }
    return startDay(at).atStartOfDay(zone).toInstant();
  }

  /**
   * Returns when the period containing an instant ends.
   *
   * @param at the instant
   * @return the end, exclusive, or {@code null} for {@link Unit#TOTAL}
   */
  public Instant end(Instant at) {
    if (unit == Unit.TOTAL) {
      return null;
    }
    LocalDate start = startDay(at);
    LocalDate next = switch (unit) {
      case DAY -> start.plusDays(1);
      case WEEK -> start.plusWeeks(1);
      case MONTH -> start.plusMonths(1);
      default -> throw new AssertionError(unit);
    };
    // atStartOfDay, not plusHours: a day across a daylight-saving change is 23 or 25 hours.
    return next.atStartOfDay(zone).toInstant();
  }

  private LocalDate startDay(Instant at) {
    LocalDate day = at.atZone(zone).toLocalDate();
    return switch (unit) {
      case DAY -> day;
      case WEEK -> day.with(TemporalAdjusters.previousOrSame(DayOfWeek.MONDAY));
      case MONTH -> day.withDayOfMonth(1);
      default -> throw new AssertionError(unit);
    };
  }

  /**
   * Returns the label used in rule names: {@code total}, {@code daily}, {@code weekly} or
   * {@code monthly}.
   *
   * @return the label
   */
  public String label() {
    return unit == Unit.TOTAL ? "total" : unit == Unit.DAY ? "daily"
        : unit.name().toLowerCase(Locale.ROOT) + "ly";
  }
}
