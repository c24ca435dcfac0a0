package io.pointsman.ledger.testing;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A database created for one test on a {@link TestDatabases.Server}, dropped by
 * {@link #close()} (connections still open to it are terminated). Thread-safe.
 */
public final class TestDatabase implements AutoCloseable {
  private final TestDatabases.Server server;
  private final String name;
  private final AtomicBoolean closed = new AtomicBoolean();

  TestDatabase(TestDatabases.Server server, String name) {
    this.server = Objects.requireNonNull(server, "server");
    this.name = Objects.requireNonNull(name, "name");
  }

  /**
   * Returns the database's name (random, {@code pointsman_test_} followed by hex digits).
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Returns the server the database lives on.
   *
   * @return the server
   */
  public TestDatabases.Server server() {
    return server;
  }

  /**
   * Returns the database's JDBC URL, with the server's user (and password, if any) as URL
   * parameters.
   *
   * @return the URL
   */
  public String jdbcUrl() {
    return server.jdbcUrl(name);
  }

  /**
   * Returns a new, unpooled data source for the database.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return server.dataSource(name);
  }

  /**
   * Opens a connection to the database (autocommit on).
   *
   * @return the connection, which the caller closes
   * @throws SQLException if the connection fails
   */
  public Connection connect() throws SQLException {
    return dataSource().getConnection();
  }

  /**
   * Drops the database, terminating connections still open to it. Idempotent.
   *
   * @throws IllegalStateException if the drop fails
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    PGSimpleDataSource admin = server.dataSource(server.adminDatabase());
    try (Connection c = admin.getConnection(); Statement s = c.createStatement()) {
      s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
    } catch (SQLException e) {
      throw new IllegalStateException("could not drop test database " + name, e);
    }
  }

  @Override
  public String toString() {
    return "TestDatabase{" + name + " on " + server + "}";
  }
}
