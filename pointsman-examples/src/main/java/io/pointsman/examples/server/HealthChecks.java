package io.pointsman.examples.server;

import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.SettlerState;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * The facade's health checks, one per component. Each reads what exists in the component
 * today; where a component later reports its own state (a supervised settler's snapshot, a
 * journal's poisoned flag), only the body of its check changes.
 */
final class HealthChecks {
  private HealthChecks() {}

  /** A check from a name and a body. */
  static HealthCheck of(String name, CheckBody body) {
    return new HealthCheck() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public ComponentHealth check() throws Exception {
        return body.check();
      }
    };
  }

  /** The body of a check. */
  @FunctionalInterface
  interface CheckBody {
    ComponentHealth check() throws Exception;
  }

  /** The journal: down once an append met a poisoned journal. */
  static HealthCheck journal(JournalWatch watch) {
    return of("journal", () -> {
      String poisoned = watch.poisoned();
      if (poisoned != null) {
        return ComponentHealth.down("poisoned (" + poisoned + "): restart the process after"
            + " fixing the disk; never retry an fsync");
      }
      return ComponentHealth.up("appending");
    });
  }

  /**
   * The settler: down when records wait and none was settled for {@code stallAfter} (the
   * database is unreachable, or the settler stopped).
   */
  static HealthCheck settler(JournalAccounting journal, Duration stallAfter) {
    return of("settler", () -> {
      SettlerState st = journal.settlerState();
      String counts = st.backlog() + " records waiting, " + (journal.settledCount()
          + journal.interruptedCount()) + " settled since start, "
          + journal.settlementFailures() + " failed batches";
      if (!st.running()) {
        return ComponentHealth.down("stopped; " + counts);
      }
      if (st.journalPoisoned()) {
        return ComponentHealth.down("the journal is poisoned; " + counts);
      }
      if (st.refusingCalls()) {
        return ComponentHealth.down("journal size limit reached (" + st.journalRetainedBytes()
            + " of " + st.journalLimitBytes() + " bytes): calls are refused; " + counts);
      }
      Instant since = st.stalledSince();
      if (st.backlog() > 0 && since != null
          && Duration.between(since, Instant.now()).compareTo(stallAfter) > 0) {
        return ComponentHealth.down("stalled since " + since + " (" + st.consecutiveFailures()
            + " failures in a row, last: " + st.lastError() + "); " + counts);
      }
      return ComponentHealth.up(counts + (st.overflowing() ? "; queue overflowing to the"
          + " journal" : ""));
    });
  }

  /** The database: a connection and a round trip within the time-out. */
  static HealthCheck database(DataSource dataSource, Duration timeout,
      Supplier<String> ledgerState) {
    return of("database", () -> {
      try (Connection c = dataSource.getConnection()) {
        if (!c.isValid((int) Math.max(1, timeout.toSeconds()))) {
          return ComponentHealth.down("no valid connection");
        }
      } catch (java.sql.SQLException e) {
        return ComponentHealth.down("unreachable: " + e.getMessage());
      }
      return ComponentHealth.up("reachable; " + ledgerState.get());
    });
  }

  /** The counters: in process (always up), or Redis answering PING. */
  static HealthCheck counters(RedisConnection redis) {
    if (redis == null) {
      return of("counters", () -> ComponentHealth.up("in process"));
    }
    return of("counters", () -> {
      try {
        String pong = redis.client().ping();
        return "PONG".equalsIgnoreCase(pong) ? ComponentHealth.up("Redis answers PING")
            : ComponentHealth.down("Redis answered PING with " + pong);
      } catch (RuntimeException e) {
        return ComponentHealth.down("Redis unreachable: " + e.getMessage());
      }
    });
  }

  /** The budgets: down until confirmed against the ledger (budgeted calls refused). */
  static HealthCheck budgets(io.pointsman.accounting.Durability durability) {
    return of("budgets", () -> durability.confirmed() ? ComponentHealth.up("confirmed against"
        + " the ledger") : ComponentHealth.down("not confirmed against the ledger yet: calls"
        + " under a budget are refused (503 " + io.pointsman.accounting.Durability.UNCONFIRMED_RULE
        + ")"));
  }
}
