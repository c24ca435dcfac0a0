package io.pointsman.provider.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * A loopback HTTP/1.1 server for provider tests and benchmarks, on the JDK alone. It answers
 * each request with the next {@linkplain #enqueue(FixtureResponse) enqueued} response, else with
 * the {@linkplain #respondWith(Function) default responder}, else with 404; it keeps
 * connections alive, records every request, and controls delays and cuts frame by frame.
 *
 * <pre>{@code
 * try (HttpFixtureServer server = HttpFixtureServer.start()) {
 *   server.enqueue(FixtureResponse.json(429, "{}").header("retry-after", "1"));
 *   server.enqueue(FixtureResponse.json(200, body));
 *   Provider p = OpenAiProvider.builder().baseUri(server.uri()).build();
 *   ...
 *   assertThat(server.requests()).hasSize(2);
 * }
 * }</pre>
 *
 * <p>Thread-safe. Each connection is served by its own daemon thread.
 */
public final class HttpFixtureServer implements AutoCloseable {
  private final ServerSocket socket;
  private final ExecutorService threads;
  private final ConcurrentLinkedQueue<FixtureResponse> queue = new ConcurrentLinkedQueue<>();
  private final List<RecordedRequest> requests =
      java.util.Collections.synchronizedList(new ArrayList<>());
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private final CountDownLatch closed = new CountDownLatch(1);
  private final AtomicInteger connections = new AtomicInteger();
  private volatile boolean recording = true;
  private volatile Function<RecordedRequest, FixtureResponse> responder;

  private HttpFixtureServer(ServerSocket socket) {
    this.socket = socket;
    AtomicInteger n = new AtomicInteger();
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "http-fixture-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
    threads.execute(this::acceptLoop);
  }

  /**
   * Starts a server on an ephemeral port of 127.0.0.1.
   *
   * @return the running server
   * @throws UncheckedIOException if the port cannot be opened
   */
  public static HttpFixtureServer start() {
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 128);
      return new HttpFixtureServer(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Returns the server's origin, for example {@code http://127.0.0.1:41234}.
   *
   * @return the origin, without a trailing slash
   */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + socket.getLocalPort());
  }

  /**
   * Adds a response to the queue answered in order.
   *
   * @param response the response
   * @return this server
   * @throws NullPointerException if response is null
   */
  public HttpFixtureServer enqueue(FixtureResponse response) {
    queue.add(Objects.requireNonNull(response, "response"));
    return this;
  }

  /**
   * Sets the responder used when the queue is empty.
   *
   * @param value maps a request to its response; called on connection threads
   * @return this server
   * @throws NullPointerException if value is null
   */
  public HttpFixtureServer respondWith(Function<RecordedRequest, FixtureResponse> value) {
    this.responder = Objects.requireNonNull(value, "responder");
    return this;
  }

  /**
   * Turns request recording on or off (benchmarks turn it off so memory stays flat).
   *
   * @param value whether to record
   * @return this server
   */
  public HttpFixtureServer recording(boolean value) {
    this.recording = value;
    return this;
  }

  /**
   * Returns the requests received so far, in arrival order.
   *
   * @return a snapshot
   */
  public List<RecordedRequest> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  /**
   * Returns how many connections were accepted, which shows whether clients reuse them.
   *
   * @return the count
   */
  public int connectionsAccepted() {
    return connections.get();
  }

  /**
   * Waits until no accepted connection is open any more: each was closed by the client (or
   * reset by a scripted cut) and the server has noticed, by reading the end of the stream or
   * failing to write to it. A test of cancellation uses it to see that the client closed the
   * connection of a response still being written.
   *
   * @param timeout the longest wait
   * @return true when no connection is open, false when some still were at the timeout
   * @throws InterruptedException if interrupted while waiting
   * @throws NullPointerException if timeout is null
   */
  public boolean awaitNoOpenConnections(Duration timeout) throws InterruptedException {
    long until = System.nanoTime() + timeout.toNanos();
    synchronized (open) {
      while (!open.isEmpty()) {
        long left = until - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(open, left);
      }
      return true;
    }
  }

  /** Stops accepting, ends silent responses and closes every connection. */
  @Override
  public void close() {
    closed.countDown();
    try {
      socket.close();
    } catch (IOException e) {
      // Closing is best effort; the port is released either way.
    }
    for (Socket s : open) {
      closeQuietly(s);
    }
    threads.shutdownNow();
  }

  private void acceptLoop() {
    while (!socket.isClosed()) {
      try {
        Socket s = socket.accept();
        s.setTcpNoDelay(true);
        connections.incrementAndGet();
        open.add(s);
        threads.execute(() -> serve(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        RecordedRequest request = readRequest(in);
        if (request == null) {
          return;
        }
        if (recording) {
          requests.add(request);
        }
        FixtureResponse response = queue.poll();
        if (response == null) {
          Function<RecordedRequest, FixtureResponse> r = responder;
          response = r != null ? r.apply(request)
              : FixtureResponse.json(404, "{\"error\":{\"message\":\"no fixture response\"}}");
        }
        if (!write(s, out, response)) {
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      // A client that went away ends its connection; that is what some tests provoke.
    } finally {
      synchronized (open) {
        open.remove(s);
        open.notifyAll();
      }
    }
  }

  private static RecordedRequest readRequest(InputStream in) throws IOException {
    String line = readLine(in);
    if (line == null) {
      return null;
    }
    String[] parts = line.split(" ");
    if (parts.length < 3) {
      throw new IOException("bad request line");
    }
    Map<String, String> headers = new LinkedHashMap<>();
    String h;
    while ((h = readLine(in)) != null && !h.isEmpty()) {
      int colon = h.indexOf(':');
      if (colon > 0) {
        headers.put(h.substring(0, colon).trim().toLowerCase(Locale.ROOT),
            h.substring(colon + 1).trim());
      }
    }
    byte[] body;
    String length = headers.get("content-length");
    if (length != null) {
      body = in.readNBytes(Integer.parseInt(length));
    } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      while (true) {
        int size = Integer.parseInt(readLine(in).split(";")[0].trim(), 16);
        if (size == 0) {
          readLine(in);
          break;
        }
        b.write(in.readNBytes(size));
        readLine(in);
      }
      body = b.toByteArray();
    } else {
      body = new byte[0];
    }
    return new RecordedRequest(parts[0], parts[1], headers, body);
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(64);
    int b;
    while ((b = in.read()) >= 0) {
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int n = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1
            : bytes.length;
        return new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
    }
    return line.size() == 0 ? null : line.toString(StandardCharsets.ISO_8859_1);
  }

  /** Writes a response; returns whether the connection may serve another request. */
  private boolean write(Socket s, OutputStream out, FixtureResponse r) throws IOException {
    if (!pause(r.headersDelay)) {
      return false;
    }
    if (r.status == 0) {
      return end(s, r);
    }
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(r.status).append(' ')
        .append(reason(r.status)).append("\r\n");
    r.headers.forEach((k, v) -> head.append(k).append(": ").append(v).append("\r\n"));
    boolean streamed = r.frames != null;
    if (streamed) {
      head.append("transfer-encoding: chunked\r\n");
    } else {
      head.append("content-length: ").append(r.body.length).append("\r\n");
    }
    head.append("\r\n");
    out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
    if (!streamed) {
      if (r.ending == FixtureResponse.Ending.COMPLETE) {
        out.write(r.body);
        out.flush();
        return true;
      }
      out.write(r.body, 0, Math.min(r.body.length, r.framesBeforeEnding));
      out.flush();
      return end(s, r);
    }
    out.flush();
    int sent = 0;
    for (byte[] frame : r.frames) {
      if (sent >= r.framesBeforeEnding) {
        break;
      }
      if (sent > 0 && !pause(r.frameDelay)) {
        return false;
      }
      out.write((Integer.toHexString(frame.length) + "\r\n").getBytes(
          StandardCharsets.ISO_8859_1));
      out.write(frame);
      out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      sent++;
    }
    if (r.ending != FixtureResponse.Ending.COMPLETE) {
      return end(s, r);
    }
    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
    return true;
  }

  private boolean end(Socket s, FixtureResponse r) throws IOException {
    if (r.ending == FixtureResponse.Ending.HANG) {
      try {
        closed.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return false;
    }
    // A reset rather than an orderly close: the client sees the stream break off.
    s.setSoLinger(true, 0);
    s.close();
    return false;
  }

  private boolean pause(Duration d) {
    if (d.isZero()) {
      return true;
    }
    try {
      return !closed.await(d.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // Already gone.
    }
  }

  private static String reason(int status) {
    switch (status) {
      case 200:
        return "OK";
      case 400:
        return "Bad Request";
      case 401:
        return "Unauthorized";
      case 403:
        return "Forbidden";
      case 404:
        return "Not Found";
      case 429:
        return "Too Many Requests";
      case 500:
        return "Internal Server Error";
      case 503:
        return "Service Unavailable";
      default:
        return "Status";
    }
  }
}
