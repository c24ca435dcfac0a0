package io.pointsman.ledger;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * A bounded pool of PostgreSQL sessions for the ledger (HikariCP), with every wait towards
 * the server bounded: a TCP connect and the login that follows ({@code connectTimeout}, also
 * the longest a caller waits for a free session), every read from the socket
 * ({@code socketTimeout}: a frozen or unreachable server fails the call instead of blocking
 * it for ever), and every statement on the server ({@code statementTimeout}, PostgreSQL's
 * {@code statement_timeout}: a statement stuck on a lock or a slow plan is cancelled by the
 * server, before the socket timeout would break the session). All stores of one host share
 * one pool, so settling batch after batch reuses the same few sessions.
 *
 * <pre>{@code
 * try (LedgerPool pool = LedgerPool.builder("jdbc:postgresql://db:5432/ledger")
 *     .user("pointsman").password(secret)
 *     .maximumSize(8)
 *     .build()) {
 *   PostgresSettlement ledger = PostgresSettlement.create(pool.dataSource());
 * }
 * }</pre>
 *
 * <p>Thread-safe. {@link #close()} closes every session; the data source refuses to give
 * more afterwards.
 */
public final class LedgerPool implements AutoCloseable {
  /** How long a connect and login may take, and a caller may wait for a session. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(5);

  /** How long a read from the server may block. */
  public static final Duration DEFAULT_SOCKET_TIMEOUT = Duration.ofSeconds(30);

  /** How long the server lets one statement run. */
  public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(15);

  /** The most sessions the pool opens unless the builder says otherwise. */
  public static final int DEFAULT_MAXIMUM_SIZE = 8;

  /** The fewest idle sessions the pool keeps unless the builder says otherwise. */
  public static final int DEFAULT_MINIMUM_IDLE = 2;

  private final HikariDataSource dataSource;
  private final Builder settings;

  private LedgerPool(HikariDataSource dataSource, Builder settings) {
    this.dataSource = dataSource;
    this.settings = settings;
  }

  /**
   * Starts a builder.
   *
   * @param jdbcUrl the server and database, for example
   *     {@code jdbc:postgresql://127.0.0.1:5432/ledger}; may carry {@code user} and
   *     {@code password} parameters
   * @return a builder with the defaults: 8 sessions at most, 2 kept idle, connect 5 s, socket
   *     30 s, statement 15 s
   * @throws NullPointerException if jdbcUrl is null
   * @throws IllegalArgumentException if jdbcUrl is not a PostgreSQL JDBC URL
   */
  public static Builder builder(String jdbcUrl) {
    Objects.requireNonNull(jdbcUrl, "jdbcUrl");
    if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
      throw new IllegalArgumentException("not a PostgreSQL JDBC URL (jdbc:postgresql://...)");
    }
    return new Builder(jdbcUrl);
  }

  /**
   * Returns the pooled data source, for {@link PostgresSettlement}, {@link PostgresKeyStore},
   * {@link PostgresBudgetStore} and {@link LedgerSchema}.
   *
   * @return the data source
   */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Returns the sessions in use right now.
   *
   * @return the count
   */
  public int activeConnections() {
    HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
    return pool == null ? 0 : pool.getActiveConnections();
  }

  /**
   * Returns the sessions open and idle right now.
   *
   * @return the count
   */
  public int idleConnections() {
    HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
    return pool == null ? 0 : pool.getIdleConnections();
  }

  /**
   * Returns the sessions open right now, in use or idle; never above {@link #maximumSize()}.
   *
   * @return the count
   */
  public int totalConnections() {
    HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
    return pool == null ? 0 : pool.getTotalConnections();
  }

  /**
   * Returns the callers waiting for a session right now.
   *
   * @return the count
   */
  public int threadsAwaitingConnection() {
    HikariPoolMXBean pool = dataSource.getHikariPoolMXBean();
    return pool == null ? 0 : pool.getThreadsAwaitingConnection();
  }

  /**
   * Returns the most sessions the pool opens.
   *
   * @return the maximum
   */
  public int maximumSize() {
    return settings.maximumSize;
  }

  /**
   * Returns the connect timeout.
   *
   * @return the timeout
   */
  public Duration connectTimeout() {
    return settings.connectTimeout;
  }

  /**
   * Returns the socket timeout.
   *
   * @return the timeout
   */
  public Duration socketTimeout() {
    return settings.socketTimeout;
  }

  /**
   * Returns the statement timeout, zero when the server's own setting applies.
   *
   * @return the timeout
   */
  public Duration statementTimeout() {
    return settings.statementTimeout;
  }

  /** Closes every session. Idempotent. */
  @Override
  public void close() {
    dataSource.close();
  }

  @Override
  public String toString() {
    return "LedgerPool{max=" + settings.maximumSize + ", total=" + totalConnections()
        + ", active=" + activeConnections() + ", connect=" + settings.connectTimeout
        + ", socket=" + settings.socketTimeout + ", statement=" + settings.statementTimeout
        + "}";
  }

  /** Builds a {@link LedgerPool}. Not thread-safe. */
  public static final class Builder {
    private final String jdbcUrl;
    private String user;
    private String password;
    private int maximumSize = DEFAULT_MAXIMUM_SIZE;
    private int minimumIdle = DEFAULT_MINIMUM_IDLE;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration socketTimeout = DEFAULT_SOCKET_TIMEOUT;
    private Duration statementTimeout = DEFAULT_STATEMENT_TIMEOUT;
    private String name = "pointsman-ledger";

    private Builder(String jdbcUrl) {
      this.jdbcUrl = jdbcUrl;
    }

    /**
     * Sets the user (otherwise the URL's, or the driver's default).
     *
     * @param value the user
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder user(String value) {
      this.user = Objects.requireNonNull(value, "user");
      return this;
    }

    /**
     * Sets the password (otherwise the URL's, or none).
     *
     * @param value the password; never logged
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder password(String value) {
      this.password = Objects.requireNonNull(value, "password");
      return this;
    }

    /**
     * Sets the most sessions the pool opens.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if value is below 1
     */
    public Builder maximumSize(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maximumSize must be at least 1: " + value);
      }
      this.maximumSize = value;
      return this;
    }

    /**
     * Sets the fewest idle sessions the pool keeps open (capped at the maximum size).
     *
     * @param value at least 0
     * @return this builder
     * @throws IllegalArgumentException if value is negative
     */
    public Builder minimumIdle(int value) {
      if (value < 0) {
        throw new IllegalArgumentException("minimumIdle must not be negative: " + value);
      }
      this.minimumIdle = value;
      return this;
    }

    /**
     * Sets how long a TCP connect and the login after it may take, which is also the longest
     * a caller waits for a free session before failing.
     *
     * @param value whole seconds, at least 1 s
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is below 1 s or not whole seconds
     */
    public Builder connectTimeout(Duration value) {
      this.connectTimeout = wholeSeconds(value, "connectTimeout");
      return this;
    }

    /**
     * Sets how long one read from the server may block; a server that stops answering fails
     * the call after this long.
     *
     * @param value whole seconds, at least 1 s
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is below 1 s or not whole seconds
     */
    public Builder socketTimeout(Duration value) {
      this.socketTimeout = wholeSeconds(value, "socketTimeout");
      return this;
    }

    /**
     * Sets PostgreSQL's {@code statement_timeout} for the pool's sessions; zero keeps the
     * server's setting. It must be shorter than the socket timeout, so that the server cancels
     * a slow statement (a clean error, the session survives) before the socket timeout breaks
     * the session.
     *
     * @param value zero, or at least 1 ms
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is negative
     */
    public Builder statementTimeout(Duration value) {
      Objects.requireNonNull(value, "statementTimeout");
      if (value.isNegative()) {
        throw new IllegalArgumentException("statementTimeout must not be negative: " + value);
      }
      this.statementTimeout = value;
      return this;
    }

    /**
     * Sets the pool's name, used in its threads' names and log lines.
     *
     * @param value the name
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder name(String value) {
      this.name = Objects.requireNonNull(value, "name");
      return this;
    }

    /**
     * Opens the pool and its first session.
     *
     * @return the pool
     * @throws IllegalArgumentException if the statement timeout is not below the socket
     *     timeout
     * @throws PointsmanException with status 503 if the server cannot be reached
     */
    public LedgerPool build() {
      if (!statementTimeout.isZero() && statementTimeout.compareTo(socketTimeout) >= 0) {
        throw new IllegalArgumentException("statementTimeout " + statementTimeout
            + " must be below socketTimeout " + socketTimeout);
      }
      HikariConfig hc = new HikariConfig();
      hc.setPoolName(name);
      hc.setJdbcUrl(jdbcUrl);
      if (user != null) {
        hc.setUsername(user);
      }
      if (password != null) {
        hc.setPassword(password);
      }
      hc.setMaximumPoolSize(maximumSize);
      hc.setMinimumIdle(Math.min(minimumIdle, maximumSize));
      long connectMillis = connectTimeout.toMillis();
      hc.setConnectionTimeout(connectMillis);
      hc.setValidationTimeout(Math.max(250, connectMillis / 2));
      // pgjdbc's own timeouts, in seconds: the TCP connect, the whole login, every read.
      hc.addDataSourceProperty("connectTimeout", Long.toString(connectTimeout.toSeconds()));
      hc.addDataSourceProperty("loginTimeout", Long.toString(connectTimeout.toSeconds()));
      hc.addDataSourceProperty("socketTimeout", Long.toString(socketTimeout.toSeconds()));
      hc.addDataSourceProperty("tcpKeepAlive", "true");
      if (!statementTimeout.isZero()) {
        hc.setConnectionInitSql("SET statement_timeout = " + statementTimeout.toMillis());
      }
      try {
        return new LedgerPool(new HikariDataSource(hc), this);
      } catch (RuntimeException e) {
        throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE,
            "could not open the ledger's connection pool: " + e.getMessage(), e);
      }
    }

    private static Duration wholeSeconds(Duration value, String name) {
      Objects.requireNonNull(value, name);
      if (value.compareTo(Duration.ofSeconds(1)) < 0 || value.getNano() != 0) {
        throw new IllegalArgumentException(name + " must be whole seconds, at least 1 s: "
            + value);
      }
      return value;
    }
  }
}
