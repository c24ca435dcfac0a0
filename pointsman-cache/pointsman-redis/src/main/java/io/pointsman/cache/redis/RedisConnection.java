package io.pointsman.cache.redis;

import java.net.SocketTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import redis.clients.jedis.Connection;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPooled;

/**
 * The Redis server the shared cache tiers use, with a key prefix and one time-out that bounds
 * every step of a command: connecting, borrowing a pooled connection and waiting for the reply
 * (default 50 ms). A cache treats a failure here as a miss, never as a failed call.
 * Thread-safe; close it after the caches that use it.
 *
 * <pre>{@code
 * try (RedisConnection redis = RedisConnection.builder(URI.create("redis://127.0.0.1:6379"))
 *     .keyPrefix("pointsman:").build()) {
 *   ResponseCache exact = CaffeineExactCache.builder().shared(redis).build();
 * }
 * }</pre>
 */
public final class RedisConnection implements AutoCloseable {
  /** The default time-out of one command. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(50);

  private final JedisPooled client;
  private final String keyPrefix;
  private final Duration timeout;

  private RedisConnection(Builder b) {
    int millis = (int) Math.max(1, b.timeout.toMillis());
    DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
        .connectionTimeoutMillis(millis).socketTimeoutMillis(millis)
        .ssl("rediss".equalsIgnoreCase(b.uri.getScheme()));
    String userInfo = b.uri.getRawUserInfo();
    if (userInfo != null && !userInfo.isEmpty()) {
      // redis://user:password@host or redis://:password@host
      int colon = userInfo.indexOf(':');
      String user = colon < 0 ? null : decode(userInfo.substring(0, colon));
      String password = decode(colon < 0 ? userInfo : userInfo.substring(colon + 1));
      config.user(user == null || user.isEmpty() ? null : user).password(password);
    }
    GenericObjectPoolConfig<Connection> pool = new GenericObjectPoolConfig<>();
    pool.setMaxTotal(b.maxConnections);
    pool.setMaxIdle(b.maxConnections);
    pool.setMaxWait(b.timeout);
    pool.setJmxEnabled(false);
    this.client = new JedisPooled(pool, new HostAndPort(b.uri.getHost(),
        b.uri.getPort() < 0 ? 6379 : b.uri.getPort()), config.build());
    this.keyPrefix = b.keyPrefix;
    this.timeout = b.timeout;
  }

  private static String decode(String s) {
    return java.net.URLDecoder.decode(s, java.nio.charset.StandardCharsets.UTF_8);
  }

  /**
   * Returns a builder for a server.
   *
   * @param uri {@code redis://host:port}, with {@code user:password@} or {@code :password@}
   *     for a server that requires them, {@code rediss://} for TLS
   * @return the builder
   * @throws NullPointerException if uri is null
   */
  public static Builder builder(URI uri) {
    return new Builder(Objects.requireNonNull(uri, "uri"));
  }

  /**
   * Returns the pooled client.
   *
   * @return the client, thread-safe
   */
  public JedisPooled client() {
    return client;
  }

  /**
   * Returns the prefix every key of the caches starts with.
   *
   * @return the prefix
   */
  public String keyPrefix() {
    return keyPrefix;
  }

  /**
   * Returns the time-out of one command.
   *
   * @return the time-out
   */
  public Duration timeout() {
    return timeout;
  }

  /**
   * Returns whether a failure was a time-out (the server did not answer in time) rather than
   * another error (refused connection, protocol error).
   *
   * @param failure a failure thrown by a command
   * @return true for a time-out
   */
  public static boolean isTimeout(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof SocketTimeoutException
          || (t instanceof java.util.NoSuchElementException
              && String.valueOf(t.getMessage()).contains("Timeout"))) {
        return true;
      }
    }
    return false;
  }

  /** Closes the pool. */
  @Override
  public void close() {
    client.close();
  }

  /** Configures a {@link RedisConnection}. Not thread-safe. */
  public static final class Builder {
    private final URI uri;
    private String keyPrefix = "pointsman:";
    private Duration timeout = DEFAULT_TIMEOUT;
    private int maxConnections = 16;

    private Builder(URI uri) {
      this.uri = uri;
    }

    /**
     * Sets the key prefix.
     *
     * @param prefix the prefix, for example {@code "pointsman:"}
     * @return this builder
     * @throws NullPointerException if prefix is null
     */
    public Builder keyPrefix(String prefix) {
      this.keyPrefix = Objects.requireNonNull(prefix, "prefix");
      return this;
    }

    /**
     * Sets the time-out of one command.
     *
     * @param value a positive duration
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder timeout(Duration value) {
      Objects.requireNonNull(value, "value");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /**
     * Sets the most pooled connections.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     */
    public Builder maxConnections(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("maxConnections must be at least 1: " + value);
      }
      this.maxConnections = value;
      return this;
    }

    /**
     * Creates the pool; connections open lazily.
     *
     * @return the connection
     */
    public RedisConnection build() {
      return new RedisConnection(this);
    }
  }
}
