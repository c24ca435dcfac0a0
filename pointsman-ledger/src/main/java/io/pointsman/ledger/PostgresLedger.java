package io.pointsman.ledger;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.limits.Scope;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Ledger;
import io.pointsman.spi.UsageRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL ledger as core's {@link Ledger}: {@link PostgresSettlement} and
 * {@link PostgresBudgetStore} over one data source, for
 * {@code Gateway.builder().journal(journal).ledger(PostgresLedger.of(pool))}. They are built on
 * first use rather than at once: building them migrates the schema, which needs the database,
 * and a durable gateway must start (and recover its journal) while PostgreSQL is down. Until
 * they are built, {@link #reachable()} answers false and settlement throws a 503, which the
 * journal answers by keeping the batch and retrying it.
 *
 * <pre>{@code
 * Ledger ledger = PostgresLedger.of(LedgerPool.builder(url).build());   // owns the pool
 * Ledger tuned = PostgresLedger.builder(dataSource)
 *     .settlement(b -> b.holdWindow(Duration.ofMinutes(30)))
 *     .build();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class PostgresLedger implements Ledger {
  private static final Logger LOG = LoggerFactory.getLogger(PostgresLedger.class);

  private final DataSource dataSource;
  private final AutoCloseable owned;
  private final UnaryOperator<PostgresSettlement.Builder> options;
  private final Clock clock;
  private final ReentrantLock building = new ReentrantLock();
  private volatile PostgresSettlement settlement;
  private volatile PostgresBudgetStore budgets;
  private volatile String lastFailure = "not reached yet";
  private volatile boolean closed;

  private PostgresLedger(Builder b) {
    this.dataSource = b.dataSource;
    this.owned = b.owned;
    this.options = b.options;
    this.clock = b.clock;
  }

  /**
   * Returns a ledger over a pool, which it owns: {@link #close()} closes the pool.
   *
   * @param pool the pool
   * @return the ledger
   * @throws NullPointerException if pool is null
   */
  public static PostgresLedger of(LedgerPool pool) {
    Objects.requireNonNull(pool, "pool");
    Builder b = new Builder(pool.dataSource());
    b.owned = pool;
    return b.build();
  }

  /**
   * Returns a ledger over a data source the host keeps and closes.
   *
   * @param dataSource a pooled data source with timeouts ({@link LedgerPool})
   * @return the ledger
   * @throws NullPointerException if dataSource is null
   */
  public static PostgresLedger of(DataSource dataSource) {
    return builder(dataSource).build();
  }

  /**
   * Returns a builder over a data source the host keeps and closes.
   *
   * @param dataSource the data source
   * @return the builder
   * @throws NullPointerException if dataSource is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(dataSource);
  }

  /**
   * Returns the settlement, building the ledger if it was not yet.
   *
   * @return the settlement
   * @throws PointsmanException with status 503 when PostgreSQL cannot be reached (or migrated)
   */
  public PostgresSettlement settlement() {
    require();
    return settlement;
  }

  /**
   * Returns the budget store, building the ledger if it was not yet.
   *
   * @return the store
   * @throws PointsmanException with status 503 when PostgreSQL cannot be reached
   */
  public PostgresBudgetStore budgets() {
    require();
    return budgets;
  }

  /**
   * Returns the settlement if the ledger was built, without trying.
   *
   * @return the settlement, or empty
   */
  public Optional<PostgresSettlement> settlementIfReady() {
    return Optional.ofNullable(settlement);
  }

  /**
   * Returns the data source.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Returns why the last attempt to build the ledger failed.
   *
   * @return the reason
   */
  public String lastFailure() {
    return lastFailure;
  }

  private void require() {
    if (budgets != null) {
      return;
    }
    building.lock();
    try {
      if (budgets == null) {
        try {
          PostgresSettlement s = options.apply(PostgresSettlement.builder(dataSource)
              .clock(clock)).build();
          budgets = PostgresBudgetStore.create(dataSource, clock);
          settlement = s;
          LOG.info("ledger reached: schema migrated, settlement ready");
        } catch (RuntimeException e) {
          settlement = null;
          lastFailure = e.getClass().getSimpleName() + ": " + e.getMessage();
          throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
              "the ledger (PostgreSQL) cannot be reached yet: " + e.getMessage(), e);
        }
      }
    } finally {
      building.unlock();
    }
  }

  @Override
  public boolean reachable() {
    try {
      require();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void settle(List<UsageRecord> records) {
    settlement().settle(records);
  }

  @Override
  public void interrupted(List<InterruptedCall> calls) {
    settlement().interrupted(calls);
  }

  @Override
  public long spent(Scope scope, Instant from, Instant to) {
    return budgets().spent(scope, from, to);
  }

  @Override
  public long spentExcluding(Scope scope, Instant from, Instant to,
      java.util.Set<String> reservationIds) {
    return budgets().spentExcluding(scope, from, to, reservationIds);
  }

  @Override
  public Collection<DispatchIntent> unresolvedHolds() {
    return settlement().unresolvedIntents();
  }

  @Override
  public boolean includes(String reservationId) {
    return settlement().includes(reservationId);
  }

  @Override
  public int expireHolds() {
    return settlement().expireHolds();
  }

  @Override
  public OptionalLong resolvedCharge(String eventId) {
    Optional<Hold> hold = settlement().hold(eventId);
    return hold.isPresent() && !hold.get().state().holding()
        ? OptionalLong.of(hold.get().chargedMicros()) : OptionalLong.empty();
  }

  /** Closes the pool when this ledger owns it ({@link #of(LedgerPool)}). Idempotent. */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (owned != null) {
      try {
        owned.close();
      } catch (Exception e) {
        LOG.warn("closing the ledger's pool failed", e);
      }
    }
  }

  @Override
  public String toString() {
    return "PostgresLedger(" + (settlement == null ? "not reached yet" : "ready") + ")";
  }

  /** Builds a {@link PostgresLedger}. Not thread-safe. */
  public static final class Builder {
    private final DataSource dataSource;
    private AutoCloseable owned;
    private UnaryOperator<PostgresSettlement.Builder> options = b -> b;
    private Clock clock = Clock.system();

    private Builder(DataSource dataSource) {
      this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    /**
     * Sets the settlement's options (hold window, floor policy, hold alert), applied when the
     * ledger is built.
     *
     * @param value sets options on the settlement's builder and returns it
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder settlement(UnaryOperator<PostgresSettlement.Builder> value) {
      this.options = Objects.requireNonNull(value, "settlement");
      return this;
    }

    /**
     * Sets the clock of the settlement and the budget store. Default: {@link Clock#system()}.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Builds the ledger; nothing is read from the database yet.
     *
     * @return the ledger
     */
    public PostgresLedger build() {
      return new PostgresLedger(this);
    }
  }
}
