package io.pointsman.ledger.testing;

import io.pointsman.ledger.EmbeddedPostgres;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.locks.ReentrantLock;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * Finds a PostgreSQL server for tests and creates a fresh database on it per test. The server
 * is resolved once per JVM, in this order:
 *
 * <ol>
 *   <li>the URL in the environment variable {@value #URL_ENV}: a JDBC URL
 *       ({@code jdbc:postgresql://host:port/db?user=u&password=p}) or a libpq URI
 *       ({@code postgresql://u:p@host:port/db}); its database is used only to create and drop
 *       test databases;
 *   <li>a server on {@code 127.0.0.1:5432} answering as user {@code postgres} without password;
 *   <li>embedded PostgreSQL ({@link EmbeddedPostgres}), started once and stopped at JVM exit.
 * </ol>
 *
 * <p>Testcontainers is not among the steps: the embedded server covers a machine without a
 * server and without Docker alike, with no container runtime to depend on.
 *
 * <pre>{@code
 * try (TestDatabase db = TestDatabases.create()) {
 *   PostgresSettlement ledger = PostgresSettlement.create(db.dataSource());
 * }
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class TestDatabases {
  /** The environment variable naming an explicit server. */
  public static final String URL_ENV = "POINTSMAN_TEST_PG_URL";

  private static final SecureRandom RANDOM = new SecureRandom();
  // A lock rather than synchronized: resolution blocks on I/O, possibly on a virtual thread.
  private static final ReentrantLock LOCK = new ReentrantLock();
  private static Server resolved;
  private static EmbeddedPostgres embedded;

  private TestDatabases() {}

  /** Where a server came from. */
  public enum Source {
    /** The URL in {@value TestDatabases#URL_ENV}. */
    ENVIRONMENT,
    /** The server on the standard local port. */
    LOCAL,
    /** Embedded PostgreSQL started by this JVM. */
    EMBEDDED
  }

  /**
   * A PostgreSQL server reachable by a superuser (or a user allowed to create databases).
   * Immutable.
   *
   * @param source where it came from
   * @param host the host
   * @param port the port
   * @param user the user
   * @param password the password, or {@code null}
   * @param adminDatabase an existing database to connect to for creating and dropping others
   */
  public record Server(
      Source source, String host, int port, String user, String password, String adminDatabase) {

    /**
     * Validates the fields.
     *
     * @param source where it came from
     * @param host the host
     * @param port the port
     * @param user the user
     * @param password the password, or {@code null}
     * @param adminDatabase an existing database to connect to for creating and dropping others
     * @throws NullPointerException if a required field is null
     */
    public Server {
      Objects.requireNonNull(source, "source");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(user, "user");
      Objects.requireNonNull(adminDatabase, "adminDatabase");
    }

    /**
     * Returns a JDBC URL for one of the server's databases, carrying the user (and the password,
     * if any) as URL parameters: without them the driver would connect as the operating-system
     * user, which need not be a role on the server.
     *
     * @param database the database
     * @return the URL
     */
    public String jdbcUrl(String database) {
      StringBuilder url = new StringBuilder("jdbc:postgresql://").append(host).append(':')
          .append(port).append('/').append(database)
          .append("?user=").append(URLEncoder.encode(user, StandardCharsets.UTF_8));
      if (password != null) {
        url.append("&password=").append(URLEncoder.encode(password, StandardCharsets.UTF_8));
      }
      return url.toString();
    }

    /**
     * Returns a new, unpooled data source for one of the server's databases.
     *
     * @param database the database
     * @return the data source
     */
    public PGSimpleDataSource dataSource(String database) {
      PGSimpleDataSource ds = new PGSimpleDataSource();
      ds.setServerNames(new String[] {host});
      ds.setPortNumbers(new int[] {port});
      ds.setDatabaseName(database);
      ds.setUser(user);
      if (password != null) {
        ds.setPassword(password);
      }
      ds.setConnectTimeout(5);
      return ds;
    }

    /**
     * Creates a database with a random name on this server.
     *
     * @return the database, to be closed (dropped) by the caller
     * @throws IllegalStateException if the database cannot be created
     */
    public TestDatabase createDatabase() {
      byte[] bytes = new byte[8];
      RANDOM.nextBytes(bytes);
      String name = "pointsman_test_" + HexFormat.of().formatHex(bytes);
      try (Connection c = dataSource(adminDatabase).getConnection();
          Statement s = c.createStatement()) {
        s.execute("CREATE DATABASE " + name);
      } catch (SQLException e) {
        throw new IllegalStateException("could not create test database on " + this, e);
      }
      return new TestDatabase(this, name);
    }

    @Override
    public String toString() {
      // The password stays out of test logs.
      return source + " postgresql://" + user + "@" + host + ":" + port + "/" + adminDatabase;
    }
  }

  /**
   * Returns the server tests use, resolving it on first call.
   *
   * @return the server
   * @throws IllegalArgumentException if {@value #URL_ENV} is set but malformed
   * @throws IllegalStateException if the environment's server does not answer
   */
  public static Server server() {
    LOCK.lock();
    try {
      if (resolved == null) {
        resolved = resolve(System.getenv(URL_ENV));
      }
      return resolved;
    } finally {
      LOCK.unlock();
    }
  }

  /**
   * Creates a fresh database on {@link #server()}.
   *
   * @return the database, to be closed (dropped) by the caller
   * @throws IllegalStateException if no server can be used or the database cannot be created
   */
  public static TestDatabase create() {
    return server().createDatabase();
  }

  /**
   * Starts embedded PostgreSQL, whatever other server is available, and returns it as a
   * server; started once per JVM, stopped at exit. For proving that a machine without a
   * server can run the ledger.
   *
   * @return the embedded server
   */
  public static Server embedded() {
    LOCK.lock();
    try {
      if (embedded == null) {
        EmbeddedPostgres pg = EmbeddedPostgres.start();
        Runtime.getRuntime().addShutdownHook(new Thread(pg::close, "pointsman-embedded-pg-stop"));
        embedded = pg;
      }
      return new Server(Source.EMBEDDED, "localhost", embedded.port(), "postgres", null,
          "postgres");
    } finally {
      LOCK.unlock();
    }
  }

  static Server resolve(String url) {
    if (url != null && !url.isBlank()) {
      Server s = parse(url.trim());
      if (!answers(s)) {
        throw new IllegalStateException(URL_ENV + " names a server that does not answer: " + s);
      }
      return s;
    }
    Server local = new Server(Source.LOCAL, "127.0.0.1", 5432, "postgres", null, "postgres");
    if (answers(local)) {
      return local;
    }
    return embedded();
  }

  static Server parse(String url) {
    String u = url.startsWith("jdbc:") ? url.substring("jdbc:".length()) : url;
    URI uri = URI.create(u);
    if (!"postgresql".equals(uri.getScheme()) && !"postgres".equals(uri.getScheme())) {
      throw new IllegalArgumentException(URL_ENV + " must be a PostgreSQL URL, not " + url);
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(URL_ENV + " has no host: " + url);
    }
    Map<String, String> query = new HashMap<>();
    if (uri.getRawQuery() != null) {
      for (String pair : uri.getRawQuery().split("&")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          query.put(decode(pair.substring(0, eq)), decode(pair.substring(eq + 1)));
        }
      }
    }
    String user = query.get("user");
    String password = query.get("password");
    if (uri.getRawUserInfo() != null) {
      String[] parts = uri.getRawUserInfo().split(":", 2);
      user = decode(parts[0]);
      password = parts.length > 1 ? decode(parts[1]) : password;
    }
    String path = uri.getPath() == null ? "" : uri.getPath().replaceFirst("^/", "");
    return new Server(Source.ENVIRONMENT, uri.getHost(), uri.getPort() < 0 ? 5432 : uri.getPort(),
        user == null ? "postgres" : user, password, path.isEmpty() ? "postgres" : path);
  }

  private static String decode(String s) {
    return URLDecoder.decode(s, StandardCharsets.UTF_8);
  }

  private static boolean answers(Server s) {
    PGSimpleDataSource ds = s.dataSource(s.adminDatabase());
    ds.setConnectTimeout(2);
    ds.setLoginTimeout(2);
    try (Connection c = ds.getConnection()) {
      return c.isValid(2);
    } catch (SQLException e) {
      return false;
    }
  }
}
