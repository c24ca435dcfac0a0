package io.pointsman.examples;

import io.pointsman.ledger.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import io.pointsman.ledger.LedgerPool;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The examples' ledger database: the PostgreSQL a JDBC URL names, else an embedded server
 * started from a Maven artifact (stopped on {@link #close()}), either throw-away or on a data
 * directory kept between starts.
 *
 * <p>A URL's data source is a {@link LedgerPool} (HikariCP, bounded waits: 2 seconds to
 * connect and log in or wait for a session, 30 seconds for a reply, 15 seconds per
 * statement), so a dead database fails a settlement batch (which the journal retries)
 * instead of hanging it. The pool is opened on first use and again after a failed open, so
 * the examples start while PostgreSQL is down.
 */
public final class LedgerDatabase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(LedgerDatabase.class);
  /** The lock file the embedded server's library keeps in its data directory. */
  private static final String EMBEDDED_LOCK = "epg-lock";
  private static final Duration ORPHAN_STOP = Duration.ofSeconds(30);

  private final DataSource dataSource;
  private final EmbeddedPostgres embedded;
  private final String description;
  private final PooledSource pooled;

  private LedgerDatabase(DataSource dataSource, EmbeddedPostgres embedded, String description) {
    this.dataSource = dataSource;
    this.embedded = embedded;
    this.description = description;
    this.pooled = dataSource instanceof PooledSource p ? p : null;
  }

  /** A {@link LedgerPool} opened on first use (and again after a failed open). */
  private static final class PooledSource implements DataSource {
    private final String url;
    private LedgerPool pool;
    private boolean closed;

    PooledSource(String url) {
      this.url = url;
    }

    private synchronized LedgerPool pool() throws SQLException {
      if (closed) {
        throw new SQLException("the ledger database was closed");
      }
      if (pool == null) {
        try {
          // A caller waits at most 2 s for a session, so a health check (3 s) sees a dead
          // server as unreachable rather than as a check that did not answer.
          pool = LedgerPool.builder(url).name("pointsman-ledger")
              .connectTimeout(Duration.ofSeconds(2)).build();
        } catch (RuntimeException e) {
          throw new SQLException("cannot open the ledger pool: " + e.getMessage(), e);
        }
      }
      return pool;
    }

    synchronized void close() {
      closed = true;
      if (pool != null) {
        pool.close();
        pool = null;
      }
    }

    @Override
    public Connection getConnection() throws SQLException {
      return pool().dataSource().getConnection();
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
      return pool().dataSource().getConnection(username, password);
    }

    @Override
    public PrintWriter getLogWriter() {
      return null;
    }

    @Override
    public void setLogWriter(PrintWriter out) {
      // Logging goes through SLF4J.
    }

    @Override
    public void setLoginTimeout(int seconds) {
      // The pool's connect timeout applies.
    }

    @Override
    public int getLoginTimeout() {
      return (int) LedgerPool.DEFAULT_CONNECT_TIMEOUT.toSeconds();
    }

    @Override
    public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException("no java.util.logging");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
      if (iface.isInstance(this)) {
        return iface.cast(this);
      }
      throw new SQLException("not a wrapper of " + iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) {
      return iface.isInstance(this);
    }
  }

  /**
   * Connects to the database a URL names, or starts a throw-away embedded one (a fresh data
   * directory, deleted when closed).
   *
   * @param url a JDBC URL, or null or blank for an embedded server
   * @return the database
   */
  public static LedgerDatabase open(String url) {
    return open(url, null);
  }

  /**
   * Connects to the database a URL names, or starts an embedded one on a data directory that
   * outlives the process: created when missing, reused with its ledger when present. An
   * embedded server left running by a process that was killed (the server outlives it, its
   * {@code postmaster.pid} still names it) is stopped first with PostgreSQL's smart shutdown,
   * so the directory can be opened again; the embedded library's own lock file tells a live
   * owner (refused) from a dead one.
   *
   * @param url a JDBC URL, or null or blank for an embedded server
   * @param embeddedDataDir the embedded server's data directory; null for a throw-away one
   * @return the database
   * @throws UncheckedIOException if the embedded server does not start
   */
  public static LedgerDatabase open(String url, Path embeddedDataDir) {
    if (url != null && !url.isBlank()) {
      return new LedgerDatabase(new PooledSource(url), null,
          url.replaceAll("password=[^&]*", "password=***"));
    }
    if (embeddedDataDir == null) {
      EmbeddedPostgres pg = EmbeddedPostgres.start();
      return new LedgerDatabase(pg.dataSource(), pg, "embedded PostgreSQL on port " + pg.port()
          + " (throw-away data directory)");
    }
    Path dir = embeddedDataDir.toAbsolutePath();
    stopOrphan(dir);
    EmbeddedPostgres pg = EmbeddedPostgres.start(dir);
    return new LedgerDatabase(pg.dataSource(), pg, "embedded PostgreSQL on port " + pg.port()
        + ", data in " + dir);
  }

  /**
   * Stops a server still running on a data directory whose owner died: only when the
   * library's lock on the directory is free (no live owner) and {@code postmaster.pid} names
   * a live PostgreSQL process.
   */
  private static void stopOrphan(Path dir) {
    Path pidFile = dir.resolve("postmaster.pid");
    if (!Files.exists(pidFile)) {
      return;
    }
    try (FileChannel ch = FileChannel.open(dir.resolve(EMBEDDED_LOCK), StandardOpenOption.CREATE,
        StandardOpenOption.WRITE)) {
      FileLock lock = ch.tryLock();
      if (lock == null) {
        // A live process owns the directory; starting fails with the library's own message.
        return;
      }
      lock.release();
      List<String> lines = Files.readAllLines(pidFile);
      if (lines.isEmpty()) {
        return;
      }
      long pid = Long.parseLong(lines.get(0).trim());
      Optional<ProcessHandle> process = ProcessHandle.of(pid);
      if (process.isEmpty() || !process.get().isAlive() || !process.get().info().command()
          .map(c -> c.endsWith("/postgres")).orElse(false)) {
        return;
      }
      LOG.warn("embedded PostgreSQL (pid {}) left running on {} by a process that died;"
          + " stopping it", pid, dir);
      // SIGTERM: PostgreSQL's smart shutdown; its clients died with their process.
      process.get().destroy();
      process.get().onExit().get(ORPHAN_STOP.toMillis(), TimeUnit.MILLISECONDS);
    } catch (IOException | NumberFormatException e) {
      LOG.warn("cannot inspect {} for a server left running; starting anyway", dir, e);
    } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException("the embedded PostgreSQL left running on " + dir
          + " did not stop within " + ORPHAN_STOP, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while stopping a server left running", e);
    }
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
   * Returns whether this is an embedded server.
   *
   * @return true when embedded
   */
  public boolean embedded() {
    return embedded != null;
  }

  /**
   * Describes the database for a log line, with any password masked.
   *
   * @return the description
   */
  public String description() {
    return description;
  }

  /** Closes a URL's pool; stops an embedded server. */
  @Override
  public void close() {
    if (pooled != null) {
      pooled.close();
    }
    if (embedded != null) {
      embedded.close();
    }
  }
}
