package io.pointsman.jmh.ledger;

import io.pointsman.CacheOutcome;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.io.PrintWriter;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Settlement throughput into PostgreSQL: batches of 100 and 500 records side by side with row
 * at a time (batch size 1), in one run. Each invocation settles one batch of fresh records
 * (key, team, org, model and one tag: one ledger row, five charges and one reservation per
 * record) in one transaction; the {@code records} counter reports settled records per second.
 * The database is a fresh one on the server {@code TestDatabases} resolves (local server,
 * {@code POINTSMAN_TEST_PG_URL}, or embedded), reached through one reused connection, as a pool
 * would give.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar SettlementBenchmark -wi 1 -i 3 -r 3s -f 1 \
 *     -rf json -rff pointsman-jmh/results/ledger/settlement.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SettlementBenchmark {
  private static final Instant START = Instant.parse("2026-03-01T10:00:00Z");

  @Param({"1", "100", "500"})
  public int batchSize;

  private TestDatabase db;

  /**
   * One settler: its own connection and settlement instance, as each of several settler
   * threads of a host would have. Run with {@code -t 2} to measure two settlers on one
   * database.
   */
  @State(Scope.Thread)
  public static class Settler {
    private static final java.util.concurrent.atomic.AtomicInteger IDS =
        new java.util.concurrent.atomic.AtomicInteger();
    Connection connection;
    PostgresSettlement ledger;
    String prefix;
    long next;

    @Setup(Level.Trial)
    public void open(SettlementBenchmark benchmark) throws SQLException {
      connection = benchmark.db.connect();
      ledger = PostgresSettlement.create(reusing(connection));
      prefix = "s" + IDS.incrementAndGet() + "-";
    }

    @TearDown(Level.Trial)
    public void close() throws SQLException {
      connection.close();
    }
  }

  /** Settled records, reported per second next to the batches per second. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Counters {
    public long records;
  }

  @Setup(Level.Trial)
  public void setUp() throws SQLException {
    db = TestDatabases.create();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    db.close();
  }

  @Benchmark
  public void settle(Settler settler, Counters counters) {
    List<UsageRecord> batch = new ArrayList<>(batchSize);
    for (int i = 0; i < batchSize; i++) {
      long n = settler.next++;
      String id = "evt-" + settler.prefix + n;
      batch.add(new UsageRecord(id, "req-" + n, "key-" + (n % 50), "user-" + (n % 200),
          "team-" + (n % 10), "org-1", Set.of("prod"), "gpt-4o-mini", "dep-1", 1,
          UsageOutcome.SUCCESS, 200, null, null, Usage.of(420, 80), 1_000 + (n % 500), false,
          "res-" + n, 4_000, CacheOutcome.MISS, START.plusMillis(n), 1_500_000L));
    }
    settler.ledger.settle(batch);
    counters.records += batchSize;
  }

  /** A data source handing out one connection whose close is ignored: a pool of one. */
  private static DataSource reusing(Connection c) {
    Connection shared = (Connection) Proxy.newProxyInstance(
        SettlementBenchmark.class.getClassLoader(), new Class<?>[] {Connection.class},
        (proxy, method, args) -> {
          if (method.getName().equals("close")) {
            return null;
          }
          try {
            return method.invoke(c, args);
          } catch (java.lang.reflect.InvocationTargetException e) {
            throw e.getCause();
          }
        });
    return new DataSource() {
      @Override
      public Connection getConnection() {
        return shared;
      }

      @Override
      public Connection getConnection(String user, String password) {
        return shared;
      }

      @Override
      public PrintWriter getLogWriter() {
        return null;
      }

      @Override
      public void setLogWriter(PrintWriter out) {}

      @Override
      public void setLoginTimeout(int seconds) {}

      @Override
      public int getLoginTimeout() {
        return 0;
      }

      @Override
      public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        throw new SQLFeatureNotSupportedException();
      }

      @Override
      public <T> T unwrap(Class<T> iface) throws SQLException {
        throw new SQLException("not a wrapper");
      }

      @Override
      public boolean isWrapperFor(Class<?> iface) {
        return false;
      }
    };
  }
}
