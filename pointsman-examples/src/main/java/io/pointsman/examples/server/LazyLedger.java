package io.pointsman.examples.server;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.ledger.PostgresBudgetStore;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The facade's PostgreSQL ledger, built on first use rather than at start: building
 * {@link PostgresSettlement} and {@link PostgresBudgetStore} migrates the schema, which needs
 * the database, and the facade must start (and recover its journal) while PostgreSQL is down.
 * Every use tries to build them until it succeeds once; until then, settlement throws (503),
 * which the journal answers by keeping the batch and retrying it. Thread-safe.
 */
final class LazyLedger implements Settlement {
  private static final Logger LOG = LoggerFactory.getLogger(LazyLedger.class);

  /** The two ledger objects, built together. */
  record Ledger(PostgresSettlement settlement, PostgresBudgetStore budgets) {}

  private final DataSource dataSource;
  private final int floorPercent;
  private volatile Ledger ledger;
  private volatile String lastFailure = "not reached yet";

  LazyLedger(DataSource dataSource, int floorPercent) {
    this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    this.floorPercent = floorPercent;
  }

  /**
   * Returns the ledger, building it if it was not yet.
   *
   * @return the ledger
   * @throws PointsmanException with status 503 when PostgreSQL cannot be reached (or migrated)
   */
  Ledger require() {
    Ledger l = ledger;
    if (l != null) {
      return l;
    }
    synchronized (this) {
      if (ledger == null) {
        try {
          int floor = floorPercent;
          PostgresSettlement s = PostgresSettlement.builder(dataSource)
              .floorPolicy(call -> call.lastIntent().heldMicros() * floor / 100)
              .build();
          ledger = new Ledger(s, PostgresBudgetStore.create(dataSource, Clock.system()));
          LOG.info("ledger reached: schema migrated, settlement ready");
        } catch (RuntimeException e) {
          lastFailure = e.getClass().getSimpleName() + ": " + e.getMessage();
          throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
              "the ledger (PostgreSQL) cannot be reached yet: " + e.getMessage(), e);
        }
      }
      return ledger;
    }
  }

  /**
   * Returns the ledger if it was built, without trying.
   *
   * @return the ledger, or empty
   */
  Optional<Ledger> ifReady() {
    return Optional.ofNullable(ledger);
  }

  /**
   * Returns why the last attempt to build the ledger failed.
   *
   * @return the reason
   */
  String lastFailure() {
    return lastFailure;
  }

  @Override
  public void settle(List<UsageRecord> records) {
    require().settlement().settle(records);
  }

  @Override
  public void interrupted(List<InterruptedCall> calls) {
    require().settlement().interrupted(calls);
  }
}
