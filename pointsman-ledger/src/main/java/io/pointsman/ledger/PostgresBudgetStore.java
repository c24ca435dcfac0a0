package io.pointsman.ledger;

import io.pointsman.Clock;
import io.pointsman.limits.Scope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;

/**
 * Budgets kept in PostgreSQL, and their spend read back from the ledger's charges: what a
 * gateway needs at start to rebuild its in-process budget counters ({@link #statuses()}), and
 * what operators query (spend per key, team, org, tag or model per period). Spend is never
 * kept in a counter row; it is summed from charges through the {@code (scope, time)} index, so
 * settlement never contends on a budget row. Held amounts are those of unresolved
 * {@code UNKNOWN} holds plus those of quarantined items not yet re-driven (a quarantined item
 * is in no spend, so its hold stays held).
 *
 * <p>A {@link Scope.Kind#GLOBAL} budget sums every key's charges (each charged call charges
 * exactly one key) and every unresolved hold.
 *
 * <p>Budget definitions are cached in process and reloaded after a change through this store
 * ({@link #putBudget}, {@link #removeBudget}) or {@link #invalidate()}; spend is always read
 * fresh.
 *
 * <p>Thread-safe.
 */
public final class PostgresBudgetStore {
  /** A budget definition. */
  private record Budget(long id, Scope scope, BudgetPeriod period, long limitMicros) {}

  private final Jdbi jdbi;
  private final Clock clock;
  private final AtomicReference<List<Budget>> budgets = new AtomicReference<>();

  private PostgresBudgetStore(DataSource dataSource, Clock clock) {
    this.jdbi = Jdbi.create(dataSource);
    this.clock = clock;
  }

  /**
   * Creates a store, migrating the schema.
   *
   * @param dataSource the ledger's database
   * @param clock the clock that decides the current period
   * @return the store
   * @throws NullPointerException if an argument is null
   * @throws LedgerSchemaException if the database's schema cannot be used by this code
   */
  public static PostgresBudgetStore create(DataSource dataSource, Clock clock) {
    Objects.requireNonNull(dataSource, "dataSource");
    Objects.requireNonNull(clock, "clock");
    LedgerSchema.migrate(dataSource);
    return new PostgresBudgetStore(dataSource, clock);
  }

  /**
   * Creates or replaces the budget of a scope for a period.
   *
   * @param scope the scope
   * @param period the period
   * @param limitMicros the limit per period
   * @throws NullPointerException if scope or period is null
   * @throws IllegalArgumentException if limitMicros is negative
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be written
   */
  public void putBudget(Scope scope, BudgetPeriod period, long limitMicros) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(period, "period");
    if (limitMicros < 0) {
      throw new IllegalArgumentException("limitMicros must not be negative: " + limitMicros);
    }
    Sql.inTransaction(jdbi, "storing budget " + scope, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement("INSERT INTO"
          + " pointsman.budgets (scope_kind, scope_id, period, limit_micros)"
          + " VALUES (?, ?, ?, ?) ON CONFLICT (scope_kind, scope_id, period)"
          + " DO UPDATE SET limit_micros = excluded.limit_micros, updated_at = now()")) {
        ps.setString(1, scope.kind().name());
        ps.setString(2, scope.id());
        ps.setString(3, period.name());
        ps.setLong(4, limitMicros);
        return ps.executeUpdate();
      }
    });
    invalidate();
  }

  /**
   * Removes the budget of a scope for a period, with its recorded periods.
   *
   * @param scope the scope
   * @param period the period
   * @return true if it existed
   * @throws NullPointerException if an argument is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be written
   */
  public boolean removeBudget(Scope scope, BudgetPeriod period) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(period, "period");
    int removed = Sql.inTransaction(jdbi, "removing budget " + scope, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement("DELETE FROM"
          + " pointsman.budgets WHERE scope_kind = ? AND scope_id = ? AND period = ?")) {
        ps.setString(1, scope.kind().name());
        ps.setString(2, scope.id());
        ps.setString(3, period.name());
        return ps.executeUpdate();
      }
    });
    invalidate();
    return removed > 0;
  }

  /** Forgets the cached budget definitions, so the next read loads them again. */
  public void invalidate() {
    budgets.set(null);
  }

  /**
   * Returns every budget with its spend in the current period and its held amount: the
   * counters an in-process limiter starts from.
   *
   * @return one status per budget, ordered by scope and period
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public List<BudgetStatus> statuses() {
    Instant now = clock.now();
    List<Budget> defined = definitions();
    return Sql.inTransaction(jdbi, "reading budget statuses", h -> {
      Connection c = h.getConnection();
      List<BudgetStatus> out = new ArrayList<>(defined.size());
      for (Budget b : defined) {
        Instant start = b.period().start(now);
        Instant end = b.period().end(now);
        out.add(new BudgetStatus(b.scope(), b.period(), b.limitMicros(), start, end,
            spent(c, b.scope(), start, end), held(c, b.scope())));
      }
      return out;
    });
  }

  /**
   * Returns what a scope was charged in a time range (by the calls' start times).
   *
   * @param scope the scope
   * @param from the start, inclusive
   * @param to the end, exclusive, or {@code null} for no end
   * @return the charges in micro-units
   * @throws NullPointerException if scope or from is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public long spent(Scope scope, Instant from, Instant to) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(from, "from");
    return Sql.inTransaction(jdbi, "reading spend of " + scope,
        h -> spent(h.getConnection(), scope, from, to));
  }

  /**
   * Returns what a scope was charged by calls that started in a time range, leaving out the
   * charges of the given reservations (matched by reservation id or, for a call whose
   * reservation row is missing, by event id): the spend a rebuild of lost counters reads while
   * those reservations' ends are still to come.
   *
   * @param scope the scope
   * @param from the start, inclusive
   * @param to the end, exclusive, or {@code null} for no end
   * @param reservationIds the reservations left out
   * @return the charges in micro-units
   * @throws NullPointerException if an argument but {@code to} is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public long spentExcluding(Scope scope, Instant from, Instant to,
      java.util.Set<String> reservationIds) {
    Objects.requireNonNull(scope, "scope");
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(reservationIds, "reservationIds");
    if (reservationIds.isEmpty()) {
      return spent(scope, from, to);
    }
    String[] ids = reservationIds.toArray(new String[0]);
    return Sql.inTransaction(jdbi, "reading spend of " + scope,
        h -> spent(h.getConnection(), scope, from, to, ids));
  }

  /**
   * Returns what unresolved holds of calls in a scope hold against it.
   *
   * @param scope the scope
   * @return the held amount in micro-units
   * @throws NullPointerException if scope is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public long held(Scope scope) {
    Objects.requireNonNull(scope, "scope");
    return Sql.inTransaction(jdbi, "reading holds of " + scope, h -> held(h.getConnection(),
        scope));
  }

  /**
   * Records every budget's current period (limit, spend, held) in
   * {@code pointsman.budget_periods}, replacing an earlier record of the same period: a
   * history operators can query after a period ends.
   *
   * @return how many periods were recorded
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be written
   */
  public int recordPeriods() {
    List<BudgetStatus> current = statuses();
    List<Budget> defined = definitions();
    String now = clock.now().toString();
    return Sql.inTransaction(jdbi, "recording budget periods", h -> {
      int n = 0;
      try (PreparedStatement ps = h.getConnection().prepareStatement("INSERT INTO"
          + " pointsman.budget_periods (budget_id, period_start, period_end, limit_micros,"
          + " spent_micros, held_micros, recorded_at)"
          + " VALUES (?, ?::timestamptz, ?::timestamptz, ?, ?, ?, ?::timestamptz)"
          + " ON CONFLICT (budget_id, period_start) DO UPDATE SET"
          + " limit_micros = excluded.limit_micros, spent_micros = excluded.spent_micros,"
          + " held_micros = excluded.held_micros, recorded_at = excluded.recorded_at")) {
        for (BudgetStatus s : current) {
          Budget b = defined.stream()
              .filter(d -> d.scope().equals(s.scope()) && d.period() == s.period())
              .findFirst().orElseThrow();
          ps.setLong(1, b.id());
          ps.setString(2, s.periodStart().toString());
          ps.setString(3, Sql.instant(s.periodEnd()));
          ps.setLong(4, s.limitMicros());
          ps.setLong(5, s.spentMicros());
          ps.setLong(6, s.heldMicros());
          ps.setString(7, now);
          n += ps.executeUpdate();
        }
      }
      return n;
    });
  }

  @Override
  public String toString() {
    return "PostgresBudgetStore";
  }

  private List<Budget> definitions() {
    List<Budget> cached = budgets.get();
    if (cached != null) {
      return cached;
    }
    List<Budget> loaded = Sql.inTransaction(jdbi, "reading budgets", h -> {
      List<Budget> out = new ArrayList<>();
      try (PreparedStatement ps = h.getConnection().prepareStatement("SELECT budget_id,"
              + " scope_kind, scope_id, period, limit_micros FROM pointsman.budgets"
              + " ORDER BY scope_kind, scope_id, period");
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new Budget(rs.getLong(1),
              new Scope(Scope.Kind.valueOf(rs.getString(2)), rs.getString(3)),
              BudgetPeriod.valueOf(rs.getString(4)), rs.getLong(5)));
        }
      }
      return List.copyOf(out);
    });
    budgets.compareAndSet(null, loaded);
    return loaded;
  }

  private static long spent(Connection c, Scope scope, Instant from, Instant to)
      throws SQLException {
    return spent(c, scope, from, to, null);
  }

  private static long spent(Connection c, Scope scope, Instant from, Instant to,
      String[] excluded) throws SQLException {
    boolean global = scope.kind() == Scope.Kind.GLOBAL;
    String sql = "SELECT coalesce(sum(amount_micros), 0) FROM pointsman.charges"
        + " WHERE scope_kind = ?" + (global ? "" : " AND scope_id = ?")
        + " AND occurred_at >= ?::timestamptz"
        + " AND (?::timestamptz IS NULL OR occurred_at < ?::timestamptz)"
        + (excluded == null ? "" : " AND NOT (event_id = ANY(?::text[])) AND event_id NOT IN"
            + " (SELECT r.event_id FROM pointsman.reservations r"
            + " WHERE r.reservation_id = ANY(?::text[]))");
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      int p = 1;
      ps.setString(p++, global ? Scope.Kind.KEY.name() : scope.kind().name());
      if (!global) {
        ps.setString(p++, scope.id());
      }
      ps.setString(p++, from.toString());
      ps.setString(p++, Sql.instant(to));
      ps.setString(p++, Sql.instant(to));
      if (excluded != null) {
        java.sql.Array ids = Sql.text(c, excluded);
        ps.setArray(p++, ids);
        ps.setArray(p, ids);
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }

  private static long held(Connection c, Scope scope) throws SQLException {
    boolean global = scope.kind() == Scope.Kind.GLOBAL;
    String sql = "SELECT (SELECT coalesce(sum(r.held_micros), 0) FROM pointsman.reservations r"
        + (global ? "" : " JOIN pointsman.ledger_entries e ON e.event_id = r.event_id")
        + " WHERE r.state IN ('HELD', 'UNKNOWN')"
        + (global ? "" : " AND EXISTS (SELECT 1 FROM"
            + " pointsman.scopes_of(e.key_id, e.team_id, e.org_id, e.tags, e.model) s"
            + " WHERE s.scope_kind = ? AND s.scope_id = ?)")
        + ") + (SELECT coalesce(sum(q.held_micros), 0) FROM pointsman.quarantine q"
        + " WHERE q.redriven_at IS NULL"
        + (global ? "" : " AND EXISTS (SELECT 1 FROM"
            + " pointsman.scopes_of(q.key_id, q.team_id, q.org_id, q.tags, q.model) s"
            + " WHERE s.scope_kind = ? AND s.scope_id = ?)")
        + ")";
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      if (!global) {
        ps.setString(1, scope.kind().name());
        ps.setString(2, scope.id());
        ps.setString(3, scope.kind().name());
        ps.setString(4, scope.id());
      }
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    }
  }
}
