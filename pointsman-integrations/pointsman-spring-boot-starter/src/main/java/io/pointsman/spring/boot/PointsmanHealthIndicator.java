package io.pointsman.spring.boot;

import io.pointsman.Gateway;
import io.pointsman.accounting.Durability;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.SettlerState;
import io.pointsman.ledger.PostgresLedger;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;

/**
 * The gateway's health for Spring Boot Actuator ({@code /actuator/health}, component
 * {@code pointsman}): one detail per component, each {@code {"status": "UP"|"DOWN", "detail":
 * ...}}, read from what the library exposes ({@link Gateway#durability()}, the journal's
 * {@link SettlerState}, the ledger's database):
 *
 * <ul>
 *   <li>{@code journal}: down once a write or force failed (the journal is poisoned: restart
 *       after fixing the disk);
 *   <li>{@code settler}: down when it stopped, the journal is at its size limit, or records wait
 *       with none settled for {@code pointsman.health.settler-stall};
 *   <li>{@code counters}: in process, or Redis answering PING;
 *   <li>{@code database}: a valid connection within {@code pointsman.health.database-timeout};
 *   <li>{@code budgets}: down until the budgets were confirmed against the ledger (calls under a
 *       budget are refused until then).
 * </ul>
 *
 * <p>The whole is down when any component is. A gateway that is not durable (an application's
 * own, built without a journal) reports {@code durable: false} and no components. Details never
 * hold a secret. Thread-safe.
 */
public final class PointsmanHealthIndicator implements HealthIndicator {
  private final Gateway gateway;
  private final Supplier<ComponentState> counters;
  private final Duration settlerStall;
  private final Duration databaseTimeout;

  /**
   * One component's state.
   *
   * @param up whether it works
   * @param detail what it does, or what is wrong (never a secret)
   */
  public record ComponentState(boolean up, String detail) {
    /**
     * Validates the detail.
     *
     * @param up whether it works
     * @param detail what it does, or what is wrong
     * @throws NullPointerException if detail is null
     */
    public ComponentState {
      Objects.requireNonNull(detail, "detail");
    }
  }

  /**
   * Creates the indicator.
   *
   * @param gateway the gateway
   * @param counters the counters' check (Redis PING, or always up in process)
   * @param settlerStall how long records may wait with none settled
   * @param databaseTimeout how long the database's round trip may take
   * @throws NullPointerException if an argument is null
   */
  public PointsmanHealthIndicator(Gateway gateway, Supplier<ComponentState> counters,
      Duration settlerStall, Duration databaseTimeout) {
    this.gateway = Objects.requireNonNull(gateway, "gateway");
    this.counters = Objects.requireNonNull(counters, "counters");
    this.settlerStall = Objects.requireNonNull(settlerStall, "settlerStall");
    this.databaseTimeout = Objects.requireNonNull(databaseTimeout, "databaseTimeout");
  }

  @Override
  public Health health() {
    Durability durability = gateway.durability();
    if (durability == null) {
      return Health.up().withDetail("durable", false).build();
    }
    Map<String, ComponentState> parts = new LinkedHashMap<>();
    if (durability.accounting() instanceof JournalAccounting journal) {
      parts.put("journal", journal(journal));
      parts.put("settler", settler(journal));
    }
    parts.put("counters", safely(counters));
    if (durability.ledger() instanceof PostgresLedger ledger) {
      parts.put("database", safely(() -> database(ledger)));
    }
    parts.put("budgets", durability.confirmed()
        ? new ComponentState(true, "confirmed against the ledger")
        : new ComponentState(false, "not confirmed against the ledger yet: calls under a"
            + " budget are refused (503 " + Durability.UNCONFIRMED_RULE + ")"));
    boolean up = parts.values().stream().allMatch(ComponentState::up);
    Health.Builder b = up ? Health.up() : Health.down();
    b.withDetail("durable", true);
    parts.forEach((name, s) -> b.withDetail(name, Map.of("status", s.up() ? "UP" : "DOWN",
        "detail", s.detail())));
    return b.build();
  }

  private static ComponentState safely(Supplier<ComponentState> check) {
    try {
      return check.get();
    } catch (RuntimeException e) {
      return new ComponentState(false, "check failed: " + e.getMessage());
    }
  }

  private static ComponentState journal(JournalAccounting journal) {
    return journal.settlerState().journalPoisoned()
        ? new ComponentState(false, "poisoned (a write or force of the journal failed): restart"
            + " the process after fixing the disk; never retry an fsync")
        : new ComponentState(true, "appending");
  }

  private ComponentState settler(JournalAccounting journal) {
    SettlerState st = journal.settlerState();
    String counts = st.backlog() + " records waiting, " + (journal.settledCount()
        + journal.interruptedCount()) + " settled since start, " + journal.settlementFailures()
        + " failed batches";
    if (!st.running()) {
      return new ComponentState(false, "stopped; " + counts);
    }
    if (st.journalPoisoned()) {
      return new ComponentState(false, "the journal is poisoned; " + counts);
    }
    if (st.refusingCalls()) {
      return new ComponentState(false, "journal size limit reached ("
          + st.journalRetainedBytes() + " of " + st.journalLimitBytes()
          + " bytes): calls are refused; " + counts);
    }
    Instant since = st.stalledSince();
    if (st.backlog() > 0 && since != null
        && Duration.between(since, Instant.now()).compareTo(settlerStall) > 0) {
      return new ComponentState(false, "stalled since " + since + " ("
          + st.consecutiveFailures() + " failures in a row); " + counts);
    }
    return new ComponentState(true, counts + (st.overflowing()
        ? "; queue overflowing to the journal" : ""));
  }

  private ComponentState database(PostgresLedger ledger) {
    try (Connection c = ledger.dataSource().getConnection()) {
      if (!c.isValid((int) Math.max(1, databaseTimeout.toSeconds()))) {
        return new ComponentState(false, "no valid connection");
      }
    } catch (SQLException e) {
      return new ComponentState(false, "unreachable: " + e.getMessage());
    }
    return new ComponentState(true, "reachable; " + (ledger.settlementIfReady().isPresent()
        ? "ledger ready" : "ledger not built yet"));
  }
}
