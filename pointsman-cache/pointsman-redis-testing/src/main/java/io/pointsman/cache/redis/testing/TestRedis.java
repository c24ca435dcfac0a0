package io.pointsman.cache.redis.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.UUID;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import redis.embedded.RedisServer;

/**
 * A real Redis server for a test, and a key prefix of its own. Resolution order:
 * <ol>
 *   <li>{@code POINTSMAN_TEST_REDIS_URL} ({@code redis://host:port}) when set;</li>
 *   <li>a server on 127.0.0.1:6379 when one answers {@code PING};</li>
 *   <li>otherwise an embedded {@code redis-server} binary shipped in a Maven artifact
 *       ({@code com.github.codemonstur:embedded-redis}, an optional dependency the test must
 *       declare), started on a free loopback port and stopped on {@link #close()}.</li>
 * </ol>
 * Testcontainers is not used: the embedded binary covers machines without a server and
 * without Docker. Every instance has a unique key prefix; {@link #close()} deletes the keys
 * under it. Not thread-safe to close concurrently; the client is thread-safe.
 *
 * <pre>{@code
 * try (TestRedis redis = TestRedis.start()) {
 *   JedisPooled client = redis.client();
 *   client.set(redis.keyPrefix() + "k", "v");
 * }
 * }</pre>
 */
public final class TestRedis implements AutoCloseable {
  private final URI uri;
  private final String keyPrefix;
  private final JedisPooled client;
  private final RedisServer embedded;
  private final String source;

  private TestRedis(URI uri, RedisServer embedded, String source) {
    this.uri = uri;
    this.embedded = embedded;
    this.source = source;
    this.keyPrefix = "pmtest:" + UUID.randomUUID() + ":";
    this.client = new JedisPooled(uri.getHost(), uri.getPort());
  }

  /**
   * Resolves a server as described above.
   *
   * @return the test server
   * @throws IllegalStateException when no server could be found or started
   */
  public static TestRedis start() {
    String url = System.getenv("POINTSMAN_TEST_REDIS_URL");
    if (url != null && !url.isBlank()) {
      return new TestRedis(URI.create(url.trim()), null, "POINTSMAN_TEST_REDIS_URL");
    }
    if (answers("127.0.0.1", 6379)) {
      return new TestRedis(URI.create("redis://127.0.0.1:6379"), null, "local server");
    }
    return embedded();
  }

  /**
   * Starts an embedded server on a free loopback port, whatever else is running.
   *
   * @return the test server
   * @throws IllegalStateException when the embedded binary cannot start
   */
  public static TestRedis embedded() {
    int port = freePort();
    try {
      RedisServer server = RedisServer.newRedisServer().port(port).bind("127.0.0.1")
          .setting("save \"\"").setting("appendonly no").build();
      server.start();
      return new TestRedis(URI.create("redis://127.0.0.1:" + port), server, "embedded");
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("no Redis server: set POINTSMAN_TEST_REDIS_URL, start one"
          + " on 127.0.0.1:6379, or make the embedded binary runnable", e);
    }
  }

  private static boolean answers(String host, int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 300);
      socket.setSoTimeout(500);
      socket.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      byte[] buf = new byte[7];
      int n = socket.getInputStream().read(buf);
      return n > 0 && buf[0] == '+';
    } catch (IOException e) {
      return false;
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Returns the server's address.
   *
   * @return {@code redis://host:port}
   */
  public URI uri() {
    return uri;
  }

  /**
   * Returns where the server came from: the URL variable, the local server or embedded.
   *
   * @return a short description
   */
  public String source() {
    return source;
  }

  /**
   * Returns this test's key prefix; put every key under it.
   *
   * @return a unique prefix ending in a colon
   */
  public String keyPrefix() {
    return keyPrefix;
  }

  /**
   * Returns a pooled client.
   *
   * @return the client
   */
  public JedisPooled client() {
    return client;
  }

  /**
   * Returns whether this test started its own embedded server.
   *
   * @return true if embedded
   */
  public boolean isEmbedded() {
    return embedded != null;
  }

  /** Deletes this test's keys and stops an embedded server. */
  @Override
  public void close() {
    try {
      String cursor = ScanParams.SCAN_POINTER_START;
      ScanParams params = new ScanParams().match(keyPrefix + "*").count(1000);
      do {
        ScanResult<String> page = client.scan(cursor, params);
        List<String> keys = page.getResult();
        if (!keys.isEmpty()) {
          client.del(keys.toArray(new String[0]));
        }
        cursor = page.getCursor();
      } while (!ScanParams.SCAN_POINTER_START.equals(cursor));
    } catch (RuntimeException e) {
      // The server may already be gone (a test that stops it on purpose).
    } finally {
      client.close();
      if (embedded != null) {
        try {
          embedded.stop();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
  }
}
