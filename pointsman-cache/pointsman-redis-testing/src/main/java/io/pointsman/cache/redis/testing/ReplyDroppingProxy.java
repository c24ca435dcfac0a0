package io.pointsman.cache.redis.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A TCP proxy on 127.0.0.1 in front of a Redis server that can lose replies and go down, for
 * tests of what a client sees when the network fails after the server acted:
 * {@link #dropNextReplyTo} forwards the next command that contains a marker, discards the
 * server's reply to it and closes that client connection (the command ran, the client never
 * learns its result); {@link #down} closes every connection and refuses new ones while the
 * server keeps its data. Thread-safe.
 *
 * <pre>{@code
 * try (ReplyDroppingProxy proxy = ReplyDroppingProxy.start(redis.uri())) {
 *   proxy.dropNextReplyTo("reservation-7");
 * }
 * }</pre>
 */
public final class ReplyDroppingProxy implements AutoCloseable {
  private final InetSocketAddress upstream;
  private final ServerSocket server;
  private final AtomicReference<byte[]> marker = new AtomicReference<>();
  private final AtomicInteger toDrop = new AtomicInteger();
  private final AtomicInteger dropped = new AtomicInteger();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean down;
  private volatile boolean closed;

  private ReplyDroppingProxy(URI upstream) throws IOException {
    this.upstream = new InetSocketAddress(upstream.getHost(), upstream.getPort());
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::accept, "redis-proxy-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  /**
   * Starts a proxy in front of a server.
   *
   * @param upstream {@code redis://host:port}
   * @return the running proxy
   */
  public static ReplyDroppingProxy start(URI upstream) {
    try {
      return new ReplyDroppingProxy(upstream);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Returns the proxy's address, for the client.
   *
   * @return {@code redis://127.0.0.1:<port>}
   */
  public URI uri() {
    return URI.create("redis://127.0.0.1:" + server.getLocalPort());
  }

  /**
   * Arms the proxy: the next command whose bytes contain {@code text} is forwarded, its reply
   * discarded and its connection closed. One command only.
   *
   * @param text the marker, for example a reservation id
   */
  public void dropNextReplyTo(String text) {
    dropRepliesTo(text, 1);
  }

  /**
   * Arms the proxy for several commands: each of the next {@code count} commands whose bytes
   * contain {@code text} is forwarded, its reply discarded and its connection closed.
   *
   * @param text the marker
   * @param count how many replies to drop
   */
  public void dropRepliesTo(String text, int count) {
    toDrop.set(count);
    marker.set(text.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Returns how many replies were dropped so far.
   *
   * @return the count
   */
  public int dropped() {
    return dropped.get();
  }

  /**
   * Takes the server out of reach (every connection closed, new ones closed at once) or
   * back. The server itself keeps running with its data.
   *
   * @param value true for down
   */
  public void down(boolean value) {
    down = value;
    if (value) {
      for (Socket s : open) {
        closeQuietly(s);
      }
    }
  }

  private void accept() {
    while (!closed) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        return;
      }
      if (down) {
        closeQuietly(client);
        continue;
      }
      Socket up = new Socket();
      try {
        up.connect(upstream, 2_000);
      } catch (IOException e) {
        closeQuietly(client);
        closeQuietly(up);
        continue;
      }
      open.add(client);
      open.add(up);
      Connection c = new Connection(client, up);
      start("redis-proxy-up", c::pumpUp);
      start("redis-proxy-down", c::pumpDown);
    }
  }

  private static void start(String name, Runnable r) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    t.start();
  }

  private final class Connection {
    final Socket client;
    final Socket up;
    volatile boolean dropNext;

    Connection(Socket client, Socket up) {
      this.client = client;
      this.up = up;
    }

    void pumpUp() {
      byte[] buf = new byte[64 * 1024];
      try (InputStream in = client.getInputStream(); OutputStream out = up.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          byte[] m = marker.get();
          if (m != null && contains(buf, n, m) && claim(m)) {
            dropNext = true;
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // Closed by either side.
      } finally {
        shut();
      }
    }

    void pumpDown() {
      byte[] buf = new byte[64 * 1024];
      try (InputStream in = up.getInputStream(); OutputStream out = client.getOutputStream()) {
        int n;
        while ((n = in.read(buf)) > 0) {
          if (dropNext) {
            // The server answered: the command ran. The client never hears of it.
            dropped.incrementAndGet();
            return;
          }
          out.write(buf, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // Closed by either side.
      } finally {
        shut();
      }
    }

    void shut() {
      closeQuietly(client);
      closeQuietly(up);
      open.remove(client);
      open.remove(up);
    }
  }

  /** Takes one of the armed drops; the last one disarms the marker. */
  private boolean claim(byte[] m) {
    while (true) {
      int left = toDrop.get();
      if (left <= 0 || marker.get() != m) {
        return false;
      }
      if (toDrop.compareAndSet(left, left - 1)) {
        if (left == 1) {
          marker.compareAndSet(m, null);
        }
        return true;
      }
    }
  }

  private static boolean contains(byte[] buf, int n, byte[] m) {
    outer:
    for (int i = 0; i + m.length <= n; i++) {
      for (int j = 0; j < m.length; j++) {
        if (buf[i + j] != m[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Nothing to do.
    }
  }

  /** Stops accepting and closes every connection. */
  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // Nothing to do.
    }
    for (Socket s : open) {
      closeQuietly(s);
    }
  }
}
