package io.pointsman.httpclient5;

import io.pointsman.provider.http.HttpExchange;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.HttpTransportRequest;
import java.io.IOException;
import java.io.InputStream;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.hc.client5.http.ConnectTimeoutException;
import org.apache.hc.client5.http.HttpRoute;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManager;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.io.ConnectionEndpoint;
import org.apache.hc.client5.http.io.HttpClientConnectionManager;
import org.apache.hc.client5.http.io.LeaseRequest;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.ConnectionRequestTimeoutException;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpEntity;
import org.apache.hc.core5.http.io.entity.ByteArrayEntity;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;

/**
 * An {@link HttpTransport} on Apache HttpClient 5 classic: the calling thread writes the request
 * and reads the response itself over a pooled keep-alive connection
 * ({@code PoolingHttpClientConnectionManager}), so an attempt costs no hand-off between
 * threads. Thread-safe; {@link #close} it with the application.
 *
 * <pre>{@code
 * ApacheHttpTransport http = ApacheHttpTransport.builder().build();
 * OpenAiProvider openai = OpenAiProvider.builder().baseUri(uri).transport(http).build();
 * }</pre>
 *
 * <p>A blocking socket read wakes neither at a deadline nor when its thread is interrupted, so
 * one watchdog thread per transport looks every 10 ms at each exchange blocked in a read or
 * waiting for its response, and closes the connection of one whose deadline (the first-byte
 * timeout while waiting for the response, the wait of {@link HttpExchange#read} while reading
 * the body) has passed or whose thread has been interrupted; the blocked call then fails with
 * {@link HttpTimeoutException} or {@link InterruptedException}. {@link HttpExchange#abort} does
 * the same from any thread. A stream's body is read as the reader asks for it, so a slow reader
 * holds back only its own connection (TCP flow control). A body read to its end puts the
 * connection back in the pool; one abandoned earlier closes it; a pooled connection idle for
 * more than a second is checked for a close by the server before it is reused. When every
 * pooled connection is busy ({@link Builder#maxConnections}), a call waits for one within its
 * first-byte timeout; one that gets none in time fails with {@link
 * java.net.http.HttpConnectTimeoutException}, which tells the gateway that nothing was sent
 * (nothing billed, safe to retry). Automatic
 * retries, redirects, cookies and content decompression are off: retrying an attempt is the
 * gateway's decision.
 */
public final class ApacheHttpTransport implements HttpTransport, AutoCloseable {
  /** Headers the client writes itself. */
  private static final Set<String> OWN_HEADERS = Set.of("content-length", "host",
      "transfer-encoding", "connection");
  /** Idle time after which a pooled connection is checked for a close before reuse. */
  private static final TimeValue VALIDATE_AFTER_INACTIVITY = TimeValue.ofSeconds(1);
  private final CloseableHttpClient client;
  private final Watchdog watchdog;
  private final int maxConnections;

  /** The call that {@link #send} runs on this thread, while the client leases and connects. */
  private static final ThreadLocal<Call> SENDING = new ThreadLocal<>();

  private ApacheHttpTransport(Builder b) {
    PoolingHttpClientConnectionManager pool = PoolingHttpClientConnectionManagerBuilder.create()
        .setMaxConnTotal(b.maxConnections).setMaxConnPerRoute(b.maxConnections)
        .setDefaultConnectionConfig(ConnectionConfig.custom()
            .setConnectTimeout(Timeout.of(b.connectTimeout))
            // Reads are bounded by the watchdog, not by the socket.
            .setSocketTimeout(Timeout.DISABLED)
            // A connection idle for longer is checked before reuse: a provider closes idle
            // connections, and a POST sent into a closed one fails with an unknown outcome.
            .setValidateAfterInactivity(VALIDATE_AFTER_INACTIVITY).build())
        .build();
    this.maxConnections = b.maxConnections;
    this.client = HttpClients.custom().setConnectionManager(new Tracking(pool))
        .setDefaultRequestConfig(RequestConfig.custom().setResponseTimeout(Timeout.DISABLED)
            .setConnectionRequestTimeout(Timeout.DISABLED).build())
        .disableAutomaticRetries().disableRedirectHandling().disableCookieManagement()
        .disableContentCompression().disableAuthCaching().build();
    this.watchdog = new Watchdog("pointsman-httpclient5-watchdog");
  }

  /**
   * Returns a new builder.
   *
   * @return a builder
   */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public HttpExchange send(HttpTransportRequest request)
      throws IOException, InterruptedException {
    Objects.requireNonNull(request, "request");
    HttpUriRequestBase http = new HttpUriRequestBase(request.method(), request.uri());
    request.headers().map().forEach((name, values) -> {
      if (!OWN_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
        values.forEach(v -> http.addHeader(name, v));
      }
    });
    if (request.body().length > 0 || !"GET".equals(request.method())) {
      http.setEntity(new ByteArrayEntity(request.body(), null));
    }
    if (Thread.interrupted()) {
      throw new InterruptedException("interrupted before the send");
    }
    // With every pooled connection busy, the call waits for one within its first-byte budget
    // (the client's default, no wait at all, failed such calls at once).
    http.setConfig(RequestConfig.custom().setResponseTimeout(Timeout.DISABLED)
        .setConnectionRequestTimeout(Timeout.of(request.firstByteTimeout())).build());
    Call call = new Call(http);
    Watchdog.Guard guard = watchdog.open(call::abort);
    call.guard = guard;
    ClassicHttpResponse response;
    guard.arm(System.nanoTime() + request.firstByteTimeout().toNanos());
    SENDING.set(call);
    try {
      response = client.executeOpen(null, http, null);
    } catch (IOException e) {
      guard.disarm();
      guard.release();
      if (!call.connected && (guard.reason() != Watchdog.Reason.NONE
          || e instanceof ConnectionRequestTimeoutException)) {
        throw notSent(guard.reason(), e);
      }
      throw failure(guard.reason(), e, "no response within the first-byte timeout");
    } catch (RuntimeException e) {
      guard.disarm();
      guard.release();
      if (!call.connected && e instanceof CancellationException) {
        // The watchdog cancelled the wait for a pooled connection.
        throw notSent(guard.reason(), e);
      }
      throw e;
    } finally {
      SENDING.remove();
    }
    guard.disarm();
    call.response = response;
    if (guard.reason() != Watchdog.Reason.NONE) {
      // Fired just as the response arrived: the connection is closed already.
      call.abort();
      guard.release();
      throw failure(guard.reason(), new IOException("aborted"),
          "no response within the first-byte timeout");
    }
    HttpEntity entity = response.getEntity();
    call.in = entity == null ? null : entity.getContent();
    return call;
  }

  /**
   * Maps a failure that came while the call still waited for a pooled connection, before any
   * byte of it was written: nothing was sent, so the gateway neither bills nor doubts it. An
   * interrupt is still thrown as such.
   */
  private IOException notSent(Watchdog.Reason why, Exception e) throws InterruptedException {
    if (why == Watchdog.Reason.INTERRUPT) {
      Thread.interrupted();
      InterruptedException ie = new InterruptedException("interrupted while waiting for a"
          + " pooled connection; nothing was sent");
      ie.initCause(e);
      throw ie;
    }
    IOException out;
    if (why == Watchdog.Reason.ABORT) {
      out = new java.net.ConnectException("aborted while waiting for a pooled connection;"
          + " nothing was sent");
    } else {
      out = new HttpConnectTimeoutException("no connection free within the first-byte timeout"
          + " (all " + maxConnections + " pooled connections busy); nothing was sent");
    }
    out.initCause(e);
    return out;
  }

  /**
   * Maps a failure of a blocking call by why the watchdog fired, if it did: an interrupt it saw
   * is thrown as such (the thread's flag cleared), a deadline as {@link HttpTimeoutException},
   * Apache's connect timeout as the JDK's.
   */
  private static IOException failure(Watchdog.Reason why, IOException e, String timeout)
      throws InterruptedException {
    if (why == Watchdog.Reason.INTERRUPT) {
      Thread.interrupted();
      InterruptedException ie = new InterruptedException("interrupted while waiting");
      ie.initCause(e);
      throw ie;
    }
    if (why == Watchdog.Reason.TIMEOUT) {
      HttpTimeoutException t = new HttpTimeoutException(timeout);
      t.initCause(e);
      return t;
    }
    if (e instanceof ConnectTimeoutException) {
      HttpConnectTimeoutException t = new HttpConnectTimeoutException(e.getMessage());
      t.initCause(e);
      return t;
    }
    return e;
  }

  /** Stops the watchdog and closes every pooled connection. */
  @Override
  public void close() {
    watchdog.close();
    try {
      client.close();
    } catch (IOException e) {
      // Closing sockets: nothing left to do.
    }
  }

  @Override
  public String toString() {
    return "ApacheHttpTransport";
  }

  /**
   * The pool, watched: marks the call on the sending thread once it holds a connected
   * connection, the point from which its request may have reached the provider.
   */
  private static final class Tracking implements HttpClientConnectionManager {
    private final PoolingHttpClientConnectionManager pool;

    Tracking(PoolingHttpClientConnectionManager pool) {
      this.pool = pool;
    }

    @Override
    public LeaseRequest lease(String id, HttpRoute route, Timeout requestTimeout, Object state) {
      LeaseRequest lease = pool.lease(id, route, requestTimeout, state);
      Call call = SENDING.get();
      return new LeaseRequest() {
        @Override
        public ConnectionEndpoint get(Timeout timeout) throws InterruptedException,
            ExecutionException, TimeoutException {
          ConnectionEndpoint endpoint = lease.get(timeout);
          if (call != null && endpoint.isConnected()) {
            call.connected = true;
          }
          return endpoint;
        }

        @Override
        public boolean cancel() {
          return lease.cancel();
        }
      };
    }

    @Override
    public void release(ConnectionEndpoint endpoint, Object newState, TimeValue validDuration) {
      pool.release(endpoint, newState, validDuration);
    }

    @Override
    public void connect(ConnectionEndpoint endpoint, TimeValue connectTimeout,
        HttpContext context) throws IOException {
      pool.connect(endpoint, connectTimeout, context);
      Call call = SENDING.get();
      if (call != null) {
        call.connected = true;
      }
    }

    @Override
    public void upgrade(ConnectionEndpoint endpoint, HttpContext context) throws IOException {
      pool.upgrade(endpoint, context);
    }

    @Override
    public void close(CloseMode mode) {
      pool.close(mode);
    }

    @Override
    public void close() throws IOException {
      pool.close();
    }
  }

  /** One exchange: the request (for cancellation) and, once in, its response. */
  private static final class Call implements HttpExchange {
    private final HttpUriRequestBase request;
    volatile Watchdog.Guard guard;
    /** Set on the sending thread once a connected connection is held for the request. */
    volatile boolean connected;
    volatile ClassicHttpResponse response;
    /** Reader thread only. */
    InputStream in;
    private boolean ended;
    private HttpHeaders headers;

    Call(HttpUriRequestBase request) {
      this.request = request;
    }

    @Override
    public int status() {
      return response.getCode();
    }

    @Override
    public HttpHeaders headers() {
      if (headers == null) {
        Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        for (Header h : response.getHeaders()) {
          map.computeIfAbsent(h.getName(), k -> new ArrayList<>()).add(h.getValue());
        }
        headers = HttpHeaders.of(map, (n, v) -> true);
      }
      return headers;
    }

    @Override
    public int read(byte[] into, int offset, int length, long waitNanos)
        throws IOException, InterruptedException {
      Objects.checkFromIndexSize(offset, length, into.length);
      if (ended || in == null) {
        ended = true;
        return -1;
      }
      Watchdog.Guard g = guard;
      if (g.reason() != Watchdog.Reason.NONE) {
        throw failure(g.reason(), new IOException("the exchange was aborted"),
            "no data within the wait");
      }
      if (Thread.interrupted()) {
        g.fire(Watchdog.Reason.INTERRUPT);
        throw new InterruptedException("interrupted while reading the response");
      }
      int n;
      g.arm(System.nanoTime() + waitNanos);
      try {
        n = in.read(into, offset, length);
      } catch (IOException e) {
        g.disarm();
        g.fire(Watchdog.Reason.ABORT);
        throw failure(g.reason(), e, "no data within the wait");
      }
      g.disarm();
      if (n < 0) {
        // The client has put the connection back in the pool.
        ended = true;
        g.release();
      }
      return n;
    }

    @Override
    public void close() {
      if (ended) {
        guard.release();
        closeResponse();
      } else {
        abort();
      }
    }

    @Override
    public void abort() {
      Watchdog.Guard g = guard;
      if (g != null && g.reason() == Watchdog.Reason.NONE) {
        // Runs cancel() below through the guard, so the first reason sticks.
        g.fire(Watchdog.Reason.ABORT);
        return;
      }
      request.cancel();
      closeResponse();
    }

    private void closeResponse() {
      ClassicHttpResponse r = response;
      if (r != null) {
        try {
          r.close();
        } catch (IOException | RuntimeException e) {
          // The connection is being discarded.
        }
      }
    }
  }

  /** Settings of an {@link ApacheHttpTransport}. */
  public static final class Builder {
    private Duration connectTimeout = Duration.ofSeconds(10);
    private int maxConnections = 1024;

    private Builder() {}

    /**
     * Sets how long opening a connection may take; default 10 s (the adapters' default).
     *
     * @param value the timeout
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder connectTimeout(Duration value) {
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("connectTimeout must be positive: " + value);
      }
      this.connectTimeout = value;
      return this;
    }

    /**
     * Sets how many connections the pool holds, in all and to one host; default 1,024. A
     * call beyond them waits for a free connection (within its first-byte timeout).
     *
     * @param value the maximum
     * @return this builder
     * @throws IllegalArgumentException if not positive
     */
    public Builder maxConnections(int value) {
      if (value <= 0) {
        throw new IllegalArgumentException("maxConnections must be positive: " + value);
      }
      this.maxConnections = value;
      return this;
    }

    /**
     * Builds the transport (its pool starts empty; its watchdog thread starts now).
     *
     * @return the transport
     */
    public ApacheHttpTransport build() {
      return new ApacheHttpTransport(this);
    }
  }
}
