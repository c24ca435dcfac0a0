package io.pointsman.ledger;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.Collection;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/** Statement plumbing shared by the ledger's stores. Stateless and thread-safe. */
final class Sql {
  /** Deadlock and serialization failures: the transaction did nothing and may run again. */
  private static final int MAX_ATTEMPTS = 3;

  private Sql() {}

  static java.sql.Array text(Connection c, String[] values) throws SQLException {
    return c.createArrayOf("text", values);
  }

  static java.sql.Array int8(Connection c, Long[] values) throws SQLException {
    return c.createArrayOf("int8", values);
  }

  static java.sql.Array int4(Connection c, Integer[] values) throws SQLException {
    return c.createArrayOf("int4", values);
  }

  static java.sql.Array bool(Connection c, Boolean[] values) throws SQLException {
    return c.createArrayOf("bool", values);
  }

  /**
   * Renders strings as a PostgreSQL array literal, so that one row's set of tags travels as
   * one element of a text array and is cast back with {@code ::text[]}.
   */
  static String arrayLiteral(Collection<String> values) {
    StringBuilder b = new StringBuilder(2 + values.size() * 8).append('{');
    boolean first = true;
    for (String v : values) {
      if (!first) {
        b.append(',');
      }
      first = false;
      b.append('"');
      for (int i = 0; i < v.length(); i++) {
        char ch = v.charAt(i);
        if (ch == '"' || ch == '\\') {
          b.append('\\');
        }
        b.append(ch);
      }
      b.append('"');
    }
    return b.append('}').toString();
  }

  static String instant(Instant at) {
    return at == null ? null : at.toString();
  }

  static Instant instant(Timestamp at) {
    return at == null ? null : at.toInstant();
  }

  /** One transaction's work. */
  @FunctionalInterface
  interface Tx<T> {
    T run(Handle handle) throws SQLException;
  }

  /**
   * Runs a transaction at the server's default isolation (READ COMMITTED unless a host
   * changed it; not set per call, which would cost round trips), running it again after a deadlock or serialization
   * failure (which rolled it back entirely), and turns any other failure into a 503 naming
   * what failed. A {@link PointsmanException} thrown by the work passes through unchanged.
   */
  static <T> T inTransaction(Jdbi jdbi, String what, Tx<T> work) {
    for (int attempt = 1; ; attempt++) {
      try {
        return jdbi.inTransaction(work::run);
      } catch (PointsmanException e) {
        throw e;
      } catch (SQLException | RuntimeException e) {
        String state = sqlState(e);
        if (attempt < MAX_ATTEMPTS && ("40P01".equals(state) || "40001".equals(state))) {
          continue;
        }
        throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
            what + " did not commit: " + rootMessage(e), e);
      }
    }
  }

  static String sqlState(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLException) {
        String state = ((SQLException) t).getSQLState();
        if (state != null) {
          return state;
        }
      }
    }
    return null;
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.getClass().getName() : t.getMessage();
  }
}
