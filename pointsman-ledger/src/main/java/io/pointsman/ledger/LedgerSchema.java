package io.pointsman.ledger;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Applies the ledger's versioned SQL migrations ({@code db/migration/V<n>__<name>.sql} on the
 * class path) to a PostgreSQL database. Migrations run under a PostgreSQL advisory lock, so
 * several instances starting together apply each migration once; each runs in its own
 * transaction and is recorded with its SHA-256 checksum in {@code pointsman.schema_history}.
 * A database that has a version this code does not know, or whose recorded checksum differs
 * from the shipped migration, is refused with {@link LedgerSchemaException} before anything
 * is written. Applying to a current schema changes nothing.
 *
 * <pre>{@code
 * int version = LedgerSchema.migrate(dataSource);
 * }</pre>
 *
 * <p>Thread-safe: stateless; concurrent calls serialise on the advisory lock.
 */
public final class LedgerSchema {
  /** The migrations this code ships, in order; the version is the position plus one. */
  static final List<String> MIGRATIONS =
      List.of("V1__ledger.sql", "V2__quarantine_conflicts.sql", "V3__price_versions.sql");

  /** An arbitrary constant shared by every Pointsman instance: "pointsman" in ASCII. */
  private static final long ADVISORY_LOCK_KEY = 0x706f696e74736d61L;

  private LedgerSchema() {}

  /**
   * Returns the newest schema version this code knows.
   *
   * @return the version
   */
  public static int currentVersion() {
    return MIGRATIONS.size();
  }

  /**
   * Brings the database's ledger schema to {@link #currentVersion()}.
   *
   * @param dataSource where the ledger lives
   * @return the schema version after migration
   * @throws NullPointerException if dataSource is null
   * @throws LedgerSchemaException if the database's schema is newer or a checksum differs
   * @throws PointsmanException with status 503 if the database cannot be reached or a
   *     migration fails (the failed migration is rolled back)
   */
  public static int migrate(DataSource dataSource) {
    Objects.requireNonNull(dataSource, "dataSource");
    try (Connection c = dataSource.getConnection()) {
      c.setAutoCommit(true);
      // A session-level lock, taken outside any transaction, survives the per-migration
      // commits and is released by unlock or, if this process dies, by the server.
      try (PreparedStatement lock = c.prepareStatement("SELECT pg_advisory_lock(?)")) {
        lock.setLong(1, ADVISORY_LOCK_KEY);
        lock.execute();
      }
      try {
        return migrateLocked(c);
      } finally {
        try (PreparedStatement unlock = c.prepareStatement("SELECT pg_advisory_unlock(?)")) {
          unlock.setLong(1, ADVISORY_LOCK_KEY);
          unlock.execute();
        }
      }
    } catch (SQLException e) {
      throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
          "could not migrate the ledger schema: " + e.getMessage(), e);
    }
  }

  private static int migrateLocked(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS pointsman");
      s.execute("CREATE TABLE IF NOT EXISTS pointsman.schema_history ("
          + " version integer PRIMARY KEY,"
          + " description text NOT NULL,"
          + " checksum text NOT NULL,"
          + " applied_at timestamptz NOT NULL DEFAULT now())");
    }
    Map<Integer, String> applied = new HashMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT version, checksum FROM pointsman.schema_history")) {
      while (rs.next()) {
        applied.put(rs.getInt(1), rs.getString(2));
      }
    }
    // Refuse before writing anything: a newer or altered schema must be seen by an operator.
    for (int version : applied.keySet()) {
      if (version > MIGRATIONS.size()) {
        throw new LedgerSchemaException(LedgerSchemaException.Reason.NEWER_SCHEMA, version,
            "the ledger schema is at version " + version + " but this code knows only up to "
                + MIGRATIONS.size() + "; upgrade Pointsman before using this database");
      }
    }
    for (int i = 0; i < MIGRATIONS.size(); i++) {
      int version = i + 1;
      String recorded = applied.get(version);
      if (recorded != null && !recorded.equals(checksum(script(MIGRATIONS.get(i))))) {
        throw new LedgerSchemaException(LedgerSchemaException.Reason.CHECKSUM_MISMATCH, version,
            "ledger migration " + MIGRATIONS.get(i) + " was applied with checksum " + recorded
                + " but this code ships a different script; refusing to run against it");
      }
    }
    for (int i = 0; i < MIGRATIONS.size(); i++) {
      int version = i + 1;
      if (!applied.containsKey(version)) {
        apply(c, version, MIGRATIONS.get(i));
      }
    }
    return MIGRATIONS.size();
  }

  private static void apply(Connection c, int version, String name) throws SQLException {
    String sql = script(name);
    c.setAutoCommit(false);
    try (Statement s = c.createStatement();
        PreparedStatement record = c.prepareStatement(
            "INSERT INTO pointsman.schema_history (version, description, checksum)"
                + " VALUES (?, ?, ?)")) {
      // A plain Statement sends the whole script as one simple query, so functions with
      // dollar quoting need no client-side splitting.
      s.execute(sql);
      record.setInt(1, version);
      record.setString(2, name);
      record.setString(3, checksum(sql));
      record.executeUpdate();
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } finally {
      c.setAutoCommit(true);
    }
  }

  static String script(String name) {
    String path = "db/migration/" + name;
    // Through the class, not its loader: on the module path the scripts are resources of this
    // named module, which its class loader does not hand out.
    try (InputStream in = LedgerSchema.class.getResourceAsStream("/" + path)) {
      if (in == null) {
        throw new IllegalStateException("ledger migration missing from the class path: " + path);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + path, e);
    }
  }

  static String checksum(String script) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(sha.digest(script.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by every Java platform", e);
    }
  }
}
