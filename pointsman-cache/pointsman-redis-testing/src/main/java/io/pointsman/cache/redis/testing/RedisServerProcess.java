package io.pointsman.cache.redis.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code redis-server} child process of a test's own, on a free loopback port, without
 * persistence ({@code --save "" --appendonly no}): stopping and starting it again on the same
 * port gives an empty server, as a restart without persistence or a failover to an empty
 * replica does. Uses the {@code redis-server} on the {@code PATH} (or the binary named by
 * {@code POINTSMAN_REDIS_SERVER}). Never touches a shared server. Not thread-safe.
 *
 * <pre>{@code
 * try (RedisServerProcess redis = RedisServerProcess.start()) {
 *   redis.restartEmpty();
 * }
 * }</pre>
 */
public final class RedisServerProcess implements AutoCloseable {
  private final String binary;
  private final int port;
  private final List<String> extraArgs;
  private Process process;

  private RedisServerProcess(String binary, int port, List<String> extraArgs) {
    this.binary = binary;
    this.port = port;
    this.extraArgs = List.copyOf(extraArgs);
  }

  /**
   * Starts a server on a free port.
   *
   * @param extraArgs further {@code redis-server} arguments, for example
   *     {@code "--maxmemory-policy", "allkeys-lru"}
   * @return the running server
   * @throws IllegalStateException when no binary is found or it does not answer
   */
  public static RedisServerProcess start(String... extraArgs) {
    RedisServerProcess p = new RedisServerProcess(binary(), freePort(), List.of(extraArgs));
    p.startProcess();
    return p;
  }

  private static String binary() {
    String configured = System.getenv("POINTSMAN_REDIS_SERVER");
    if (configured != null && !configured.isBlank()) {
      return configured.trim();
    }
    String path = System.getenv("PATH");
    if (path != null) {
      for (String dir : path.split(File.pathSeparator)) {
        File f = new File(dir, "redis-server");
        if (f.canExecute()) {
          return f.getAbsolutePath();
        }
      }
    }
    throw new IllegalStateException("no redis-server on the PATH; install one or set"
        + " POINTSMAN_REDIS_SERVER");
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void startProcess() {
    List<String> cmd = new ArrayList<>(List.of(binary, "--port", Integer.toString(port),
        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--protected-mode", "no"));
    cmd.addAll(extraArgs);
    try {
      process = new ProcessBuilder(cmd).redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + binary, e);
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (!answers()) {
      if (!process.isAlive() || System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException("redis-server on port " + port + " did not start");
      }
      Thread.onSpinWait();
    }
  }

  private boolean answers() {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      socket.setSoTimeout(500);
      socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] buf = new byte[7];
      int n = socket.getInputStream().read(buf);
      return n > 0 && buf[0] == '+';
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Returns the server's address.
   *
   * @return {@code redis://127.0.0.1:<port>}
   */
  public URI uri() {
    return URI.create("redis://127.0.0.1:" + port);
  }

  /**
   * Returns the port.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /** Stops the server (SIGKILL: no shutdown save) and waits until it is gone. */
  public void stop() {
    if (process == null) {
      return;
    }
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  /** Starts a stopped server again on the same port: it comes back empty. */
  public void startAgain() {
    if (process != null) {
      throw new IllegalStateException("already running");
    }
    startProcess();
  }

  /** Kills the server and starts an empty one on the same port. */
  public void restartEmpty() {
    stop();
    startAgain();
  }

  /** Stops the server. */
  @Override
  public void close() {
    stop();
  }
}
