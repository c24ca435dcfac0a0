package io.pointsman.provider;

import io.pointsman.Clock;
import io.pointsman.provider.http.HttpExchange;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.HttpTransportRequest;
import io.pointsman.provider.http.JdkHttpTransport;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * The HTTP exchange both adapters share: one {@link HttpClient} (so connections are reused),
 * the first-byte timeout on the response headers, the between-chunk and total timeouts while
 * the body arrives, and cancellation. Thread-safe.
 *
 * <p>The calling thread sends with {@link HttpClient#send}, which returns with the headers. A
 * whole body (a plain answer, or any error answer) is gathered by the client's own threads
 * into one array, which the calling thread then waits for, usually not at all (a small answer
 * arrives with its headers): no hand-off per buffer. A success stream is handed to the calling
 * thread buffer list by buffer list; the client may deliver at most {@link #STREAM_WINDOW}
 * lists ahead of it, so a slow reader holds back only its own connection and holds at most
 * that much in memory.
 *
 * <p>Given another {@link HttpTransport} than the JDK's, the same limits are applied through
 * its {@link HttpExchange}: a whole body is pulled into one array up to its cap, a stream piece
 * by piece, each read waiting at most until the between-chunk or the total deadline.
 */
final class ProviderTransport {
  /** An error body larger than this is cut: only its message matters. */
  static final int MAX_ERROR_BODY = 64 * 1024;
  /** A non-streamed response larger than this is refused rather than buffered. */
  static final int MAX_BODY = 64 * 1024 * 1024;
  /**
   * Buffer lists of a stream the client may deliver ahead of the reader; more are requested
   * each time the reader has taken half of them, so the client rarely waits for a request.
   */
  static final int STREAM_WINDOW = 16;
  /** How long the rest of a stream is read after the protocol's end, to keep the connection. */
  static final long DRAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
  /** How much of a stream is read and dropped after the protocol's end, at most. */
  static final long MAX_DRAIN = 64 * 1024;
  /** The pulled path's read size for a stream. */
  static final int STREAM_READ = 8 * 1024;
  private final String name;
  /** Null when {@link #plugged} carries the exchange. */
  private final HttpClient client;
  /** Another transport than the JDK's; null for the JDK's own path. */
  private final HttpTransport plugged;
  private final HttpTimeouts timeouts;
  private final Clock clock;
  private final int maxBody;

  ProviderTransport(String name, HttpClient client, HttpTimeouts timeouts, Clock clock) {
    this(name, client, timeouts, clock, MAX_BODY);
  }

  /** As above, with another cap on whole bodies (tests use a small one). */
  ProviderTransport(String name, HttpClient client, HttpTimeouts timeouts, Clock clock,
      int maxBody) {
    this.name = name;
    this.client = client;
    this.plugged = null;
    this.timeouts = timeouts;
    this.clock = clock;
    this.maxBody = maxBody;
  }

  /**
   * Over a transport: the JDK's ({@link JdkHttpTransport}) takes the JDK path, any other the
   * pulled path.
   */
  ProviderTransport(String name, HttpTransport transport, HttpTimeouts timeouts, Clock clock,
      int maxBody) {
    this.name = name;
    if (transport instanceof JdkHttpTransport jdk) {
      this.client = jdk.client();
      this.plugged = null;
    } else {
      this.client = null;
      this.plugged = Objects.requireNonNull(transport, "transport");
    }
    this.timeouts = timeouts;
    this.clock = clock;
    this.maxBody = maxBody;
  }

  /**
   * The body of a request, as the adapters send it: a byte array that the pulled path hands to
   * its transport as it is.
   */
  static HttpRequest.BodyPublisher body(byte[] bytes) {
    return new Body(bytes);
  }

  private static final class Body implements HttpRequest.BodyPublisher {
    final byte[] bytes;
    private final HttpRequest.BodyPublisher delegate;

    Body(byte[] bytes) {
      this.bytes = bytes;
      this.delegate = HttpRequest.BodyPublishers.ofByteArray(bytes);
    }

    @Override
    public long contentLength() {
      return bytes.length;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
      delegate.subscribe(subscriber);
    }
  }

  /**
   * The transport an adapter's builder asks for: over {@code transport} when one was given,
   * else over {@code client}, else over the default JDK client.
   */
  static ProviderTransport forAdapter(String name, HttpTransport transport, HttpClient client,
      HttpTimeouts timeouts, Clock clock) {
    if (transport != null) {
      return new ProviderTransport(name, transport, timeouts, clock, MAX_BODY);
    }
    return new ProviderTransport(name, client != null ? client : defaultClient(timeouts),
        timeouts, clock);
  }

  static HttpClient defaultClient(HttpTimeouts timeouts) {
    // HTTP/1.1: providers and local servers speak it everywhere, and it avoids an h2c upgrade
    // round trip on plain-text endpoints.
    return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(timeouts.connect()).followRedirects(HttpClient.Redirect.NEVER).build();
  }

  String name() {
    return name;
  }

  Clock clock() {
    return clock;
  }

  /**
   * A response. {@link #body} holds the whole body unless this is a success stream, whose body
   * is read through {@link ProviderTransport#stream}.
   */
  static final class Response {
    final int status;
    final HttpHeaders headers;
    /** The whole body (cut at {@link #MAX_ERROR_BODY} for an error); null for a stream. */
    final byte[] body;
    final StreamBody stream;
    /** A success stream over a plugged transport; null otherwise. */
    final HttpExchange exchange;
    final long deadlineNanos;
    /** The pulled path's read buffer (reader thread only). */
    private byte[] readBuffer;

    Response(int status, HttpHeaders headers, byte[] body, StreamBody stream,
        long deadlineNanos) {
      this(status, headers, body, stream, null, deadlineNanos);
    }

    Response(int status, HttpHeaders headers, byte[] body, StreamBody stream,
        HttpExchange exchange, long deadlineNanos) {
      this.status = status;
      this.headers = headers;
      this.body = body;
      this.stream = stream;
      this.exchange = exchange;
      this.deadlineNanos = deadlineNanos;
    }

    /** Stops reading a stream and releases its connection; nothing for a whole body. */
    void cancel() {
      if (stream != null) {
        stream.cancel();
      }
      if (exchange != null) {
        exchange.abort();
      }
    }
  }

  /**
   * Sends the request and waits for the response: the whole of it, or for a success status
   * when {@code stream} is set, its headers only.
   *
   * @throws ProviderException mapped per {@link ProviderErrors#fromSendFailure} before the
   *     headers, as an interrupted or undecodable outcome after them
   */
  Response exchange(HttpRequest.Builder request, ProviderCall call, boolean stream) {
    return exchange(request, call.deadline(), stream);
  }

  /**
   * As {@link #exchange(HttpRequest.Builder, ProviderCall, boolean)}, for an attempt of any
   * call type: the call's deadline, or {@code null} when it has none.
   */
  Response exchange(HttpRequest.Builder request, Instant callDeadline, boolean stream) {
    long start = System.nanoTime();
    long deadline = start + Math.min(timeouts.total().toNanos(), remainingNanos(callDeadline));
    long firstByte = Math.min(timeouts.firstByte().toNanos(), deadline - start);
    if (firstByte <= 0) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] " + name
          + ": the call's deadline has passed", null);
    }
    request.timeout(Duration.ofNanos(firstByte));
    HttpRequest built;
    try {
      built = request.build();
    } catch (RuntimeException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] " + name
          + ": the request could not be sent (" + e.getClass().getSimpleName() + ")", e);
    }
    if (plugged != null) {
      return exchangePulled(built, stream, firstByte, deadline);
    }
    Handler handler = new Handler(stream, maxBody);
    // send, not sendAsync: the future sendAsync returns completes only after a hop to
    // CompletableFuture's default executor, which on a machine with fewer than three cores
    // starts a new thread for every call. Every body handler here completes its HttpResponse
    // as soon as the headers are in, so send returns then, with the request timeout (the
    // first-byte timeout) enforced by the client; the body's timeouts are enforced below.
    HttpResponse<byte[]> response;
    try {
      response = client.send(built, handler);
    } catch (IOException e) {
      throw ProviderErrors.fromSendFailure(name, e);
    } catch (InterruptedException e) {
      // The client has cancelled the exchange.
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while waiting for the response", e);
    } catch (IllegalArgumentException | SecurityException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] " + name
          + ": the request could not be sent (" + e.getClass().getSimpleName() + ")", e);
    }
    HttpResponse.BodySubscriber<byte[]> body = handler.body;
    if (body instanceof StreamBody s) {
      return new Response(response.statusCode(), response.headers(), null, s, deadline);
    }
    if (!(body instanceof WholeBody whole)) {
      // Not expected: the client calls the handler before it completes a response.
      throw ProviderErrors.interrupted(name, "the client completed a response without a body",
          null);
    }
    return new Response(response.statusCode(), response.headers(), awaitWhole(whole, deadline),
        null, deadline);
  }

  private Response exchangePulled(HttpRequest built, boolean stream, long firstByte,
      long deadline) {
    byte[] bytes = built.bodyPublisher().map(p -> p instanceof Body b ? b.bytes : null)
        .orElse(new byte[0]);
    if (bytes == null) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] " + name
          + ": the request's body is not a byte array", null);
    }
    HttpExchange ex;
    try {
      ex = plugged.send(new HttpTransportRequest(built.method(), built.uri(), built.headers(),
          bytes, Duration.ofNanos(firstByte), stream));
    } catch (IOException e) {
      throw ProviderErrors.fromSendFailure(name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while waiting for the response", e);
    } catch (IllegalArgumentException | SecurityException e) {
      throw ProviderException.notSent("[" + ProviderException.Kind.NOT_SENT.code() + "] " + name
          + ": the request could not be sent (" + e.getClass().getSimpleName() + ")", e);
    }
    int status = ex.status();
    if (stream && status < 300) {
      return new Response(status, ex.headers(), null, null, ex, deadline);
    }
    return new Response(status, ex.headers(), readWhole(ex, status >= 300, deadline), null,
        deadline);
  }

  /**
   * Pulls a whole body into one array, with the same caps and timeouts as the JDK path: a
   * success body over the cap is refused, an error body is cut at its cap, and an error body
   * that breaks off or stalls keeps what arrived.
   */
  private byte[] readWhole(HttpExchange ex, boolean error, long deadline) {
    int cap = error ? MAX_ERROR_BODY : maxBody;
    long length;
    try {
      length = ex.headers().firstValueAsLong("content-length").orElse(0);
    } catch (NumberFormatException e) {
      length = 0;
    }
    byte[] bytes = new byte[(int) Math.max(0, Math.min(length, Math.min(cap,
        Handler.PRESIZE_LIMIT)))];
    int size = 0;
    byte[] one = new byte[1];
    long betweenChunks = timeouts.betweenChunks().toNanos();
    try {
      while (true) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          ex.abort();
          if (error) {
            return Arrays.copyOf(bytes, size);
          }
          throw ProviderErrors.interrupted(name, "the attempt's total time ran out", null);
        }
        long wait = Math.min(left, betweenChunks);
        if (size == cap && error) {
          ex.abort();
          return bytes;
        }
        // Full (at the cap, or at the announced length): one more byte is probed for rather
        // than growing the array; at the cap it means too large.
        boolean probe = size == bytes.length && (size == cap || size == length);
        if (size == bytes.length && !probe) {
          bytes = Arrays.copyOf(bytes, (int) Math.min(cap, Math.max(8192L, 2L * size)));
        }
        int n;
        try {
          n = probe ? ex.read(one, 0, 1, wait) : ex.read(bytes, size, bytes.length - size, wait);
        } catch (HttpTimeoutException e) {
          ex.abort();
          if (error) {
            return Arrays.copyOf(bytes, size);
          }
          throw ProviderErrors.interrupted(name, wait == left
              ? "the attempt's total time ran out" : "no data within the between-chunk timeout",
              e);
        }
        if (probe && n > 0) {
          if (size == cap) {
            ex.abort();
            throw ProviderErrors.undecodable(name, "the response exceeds " + maxBody
                + " bytes", null);
          }
          // More than announced: keep reading.
          bytes = Arrays.copyOf(bytes, (int) Math.min(cap, Math.max(8192L, 2L * size)));
          bytes[size] = one[0];
        }
        if (n < 0) {
          ex.close();
          return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
        }
        size += n;
      }
    } catch (InterruptedException e) {
      ex.abort();
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while reading the response", e);
    } catch (IOException e) {
      ex.abort();
      if (error) {
        return Arrays.copyOf(bytes, size);
      }
      throw ProviderErrors.interrupted(name, "the response body broke off ("
          + e.getClass().getSimpleName() + ")", e);
    } catch (RuntimeException e) {
      ex.abort();
      throw e;
    }
  }

  /**
   * Waits for a whole body, usually complete already or within one wait. An error body that
   * breaks off or stalls keeps what arrived: the status already says what happened.
   */
  private byte[] awaitWhole(WholeBody body, long deadline) {
    long betweenChunks = timeouts.betweenChunks().toNanos();
    while (true) {
      long now = System.nanoTime();
      long silentUntil = body.lastDataNanos() + betweenChunks;
      if (now - deadline >= 0 || now - silentUntil >= 0) {
        body.cancel();
        if (body.error) {
          return body.partial();
        }
        throw ProviderErrors.interrupted(name, now - deadline >= 0
            ? "the attempt's total time ran out" : "no data within the between-chunk timeout",
            null);
      }
      try {
        // Data arriving during the wait moves the silence deadline; it is checked again when
        // the wait ends.
        return body.result.get((deadline - silentUntil < 0 ? deadline : silentUntil) - now,
            TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        // Checked at the top.
      } catch (ExecutionException e) {
        if (body.error) {
          return body.partial();
        }
        if (body.tooLarge) {
          throw ProviderErrors.undecodable(name, "the response exceeds " + maxBody + " bytes",
              e.getCause());
        }
        Throwable cause = e.getCause() == null ? e : e.getCause();
        throw ProviderErrors.interrupted(name, "the response body broke off ("
            + cause.getClass().getSimpleName() + ")", cause);
      } catch (InterruptedException e) {
        body.cancel();
        Thread.currentThread().interrupt();
        throw ProviderErrors.interrupted(name, "interrupted while reading the response", e);
      }
    }
  }

  private long remainingNanos(Instant deadline) {
    if (deadline == null) {
      return Long.MAX_VALUE;
    }
    Duration left = Duration.between(clock.now(), deadline);
    return left.isNegative() ? 0 : left.toNanos();
  }

  /**
   * Feeds a stream's body to a consumer until it ends or {@code stop} says so. When stopped
   * and {@code finished} says the protocol's own end was seen ({@code [DONE]},
   * {@code message_stop}), what is left of the body, usually just the last chunk of the chunked
   * encoding, is read and dropped for up to {@link #DRAIN_NANOS} and {@link #MAX_DRAIN} bytes,
   * so that the connection goes back to the pool (OkHttp drains for the same 100 ms); a body
   * that goes on longer is cancelled, which closes its connection. Otherwise (the caller
   * cancelled, or the stream failed) the body is cancelled at once. A consumer that throws
   * cancels the body.
   *
   * @return true when the body ended, false when stopped
   */
  boolean stream(Response response, Consumer<ByteBuffer> consumer, BooleanSupplier stop,
      BooleanSupplier finished) {
    if (response.exchange != null) {
      return streamPulled(response, consumer, stop, finished);
    }
    List<ByteBuffer> buffers;
    while ((buffers = next(response)) != null) {
      for (ByteBuffer b : buffers) {
        try {
          consumer.accept(b);
        } catch (RuntimeException e) {
          response.cancel();
          throw e;
        }
        if (stopped(response, stop, finished, () -> drain(response))) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * After each delivered piece of a stream: when {@code stop} says so, drains the rest (the
   * protocol's end was seen) or cancels the body, and returns true.
   */
  private static boolean stopped(Response response, BooleanSupplier stop,
      BooleanSupplier finished, Runnable drain) {
    if (!stop.getAsBoolean()) {
      return false;
    }
    if (finished.getAsBoolean()) {
      drain.run();
    } else {
      response.cancel();
    }
    return true;
  }

  private boolean streamPulled(Response response, Consumer<ByteBuffer> consumer,
      BooleanSupplier stop, BooleanSupplier finished) {
    if (response.readBuffer == null) {
      response.readBuffer = new byte[STREAM_READ];
    }
    byte[] buf = response.readBuffer;
    int n;
    while ((n = nextPulled(response, buf)) >= 0) {
      try {
        // The consumers copy what they keep, so the buffer is read into again.
        consumer.accept(ByteBuffer.wrap(buf, 0, n));
      } catch (RuntimeException e) {
        response.cancel();
        throw e;
      }
      if (stopped(response, stop, finished, () -> drainPulled(response))) {
        return false;
      }
    }
    response.exchange.close();
    return true;
  }

  private int nextPulled(Response response, byte[] buf) {
    HttpExchange ex = response.exchange;
    long left = response.deadlineNanos - System.nanoTime();
    if (left <= 0) {
      ex.abort();
      throw ProviderErrors.interrupted(name, "the attempt's total time ran out", null);
    }
    long wait = Math.min(left, timeouts.betweenChunks().toNanos());
    try {
      return ex.read(buf, 0, buf.length, wait);
    } catch (HttpTimeoutException e) {
      ex.abort();
      throw ProviderErrors.interrupted(name, wait == left ? "the attempt's total time ran out"
          : "no data within the between-chunk timeout", e);
    } catch (InterruptedException e) {
      ex.abort();
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while reading the response", e);
    } catch (IOException | RuntimeException e) {
      ex.abort();
      throw ProviderErrors.interrupted(name, "the response body broke off ("
          + e.getClass().getSimpleName() + ")", e);
    }
  }

  private static void drainPulled(Response response) {
    HttpExchange ex = response.exchange;
    long until = Math.min(System.nanoTime() + DRAIN_NANOS, response.deadlineNanos);
    long dropped = 0;
    byte[] buf = response.readBuffer;
    try {
      int n;
      while ((n = ex.read(buf, 0, buf.length, Math.max(1, until - System.nanoTime()))) >= 0) {
        dropped += n;
        if (dropped > MAX_DRAIN) {
          ex.abort();
          return;
        }
      }
      ex.close();
    } catch (InterruptedException e) {
      ex.abort();
      Thread.currentThread().interrupt();
    } catch (IOException | RuntimeException e) {
      // Timed out or broke off after the protocol's end: the answer is complete regardless.
      ex.abort();
    }
  }

  private static void drain(Response response) {
    StreamBody body = response.stream;
    long until = Math.min(System.nanoTime() + DRAIN_NANOS, response.deadlineNanos);
    long dropped = 0;
    try {
      List<ByteBuffer> buffers;
      while ((buffers = body.next(Math.max(0, until - System.nanoTime()))) != null) {
        for (ByteBuffer b : buffers) {
          dropped += b.remaining();
        }
        if (dropped > MAX_DRAIN) {
          body.cancel();
          return;
        }
      }
    } catch (InterruptedException e) {
      body.cancel();
      Thread.currentThread().interrupt();
    } catch (Throwable e) {
      // Timed out or broke off after the protocol's end: the answer is complete regardless.
      body.cancel();
    }
  }

  private List<ByteBuffer> next(Response response) {
    StreamBody body = response.stream;
    long left = response.deadlineNanos - System.nanoTime();
    if (left <= 0) {
      body.cancel();
      throw ProviderErrors.interrupted(name, "the attempt's total time ran out", null);
    }
    long wait = Math.min(left, timeouts.betweenChunks().toNanos());
    try {
      return body.next(wait);
    } catch (TimeoutException e) {
      body.cancel();
      throw ProviderErrors.interrupted(name, wait == left ? "the attempt's total time ran out"
          : "no data within the between-chunk timeout", e);
    } catch (InterruptedException e) {
      body.cancel();
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while reading the response", e);
    } catch (Throwable e) {
      body.cancel();
      throw ProviderErrors.interrupted(name, "the response body broke off ("
          + e.getClass().getSimpleName() + ")", e);
    }
  }

  /**
   * Picks the body subscriber once the headers are in: a stream for a success answer to a
   * streamed request, a whole body otherwise.
   */
  private static final class Handler implements HttpResponse.BodyHandler<byte[]> {
    private static final long PRESIZE_LIMIT = 1024 * 1024;
    private final boolean stream;
    private final int maxBody;
    volatile HttpResponse.BodySubscriber<byte[]> body;

    Handler(boolean stream, int maxBody) {
      this.stream = stream;
      this.maxBody = maxBody;
    }

    @Override
    public HttpResponse.BodySubscriber<byte[]> apply(HttpResponse.ResponseInfo info) {
      boolean error = info.statusCode() >= 300;
      if (stream && !error) {
        StreamBody sb = new StreamBody();
        body = sb;
        return sb;
      }
      int cap = error ? MAX_ERROR_BODY : maxBody;
      long length;
      try {
        length = info.headers().firstValueAsLong("content-length").orElse(0);
      } catch (NumberFormatException e) {
        length = 0;
      }
      // Sized from the announced length when there is one (so the array is filled exactly and
      // handed over without a copy), but never beyond the cap or 1 MiB up front.
      WholeBody wb = new WholeBody(error, cap, (int) Math.max(0, Math.min(length,
          Math.min(cap, PRESIZE_LIMIT))));
      body = wb;
      return wb;
    }
  }

  /**
   * A body subscriber whose {@code getBody} completes at once (so the client's send returns
   * with the headers and the body is read through the subclass), with an initial demand and
   * cancellation that also works before the subscription arrives.
   */
  abstract static class CancellableBody implements HttpResponse.BodySubscriber<byte[]> {
    private final long initialDemand;
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;

    CancellableBody(long initialDemand) {
      this.initialDemand = initialDemand;
    }

    @Override
    public final CompletionStage<byte[]> getBody() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public final void onSubscribe(Flow.Subscription s) {
      subscription = Objects.requireNonNull(s, "subscription");
      if (cancelled) {
        s.cancel();
      } else {
        s.request(initialDemand);
      }
    }

    /** Asks for more; nothing when not subscribed yet. */
    final void request(long n) {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.request(n);
      }
    }

    final void cancel() {
      cancelled = true;
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }

  /**
   * Gathers a whole body on the client's threads and completes once. A success body over the
   * cap is refused (the exchange is cancelled); an error body is cut at the cap and completes
   * with what it has. Requests everything at once: the cap bounds the memory.
   */
  static final class WholeBody extends CancellableBody {
    final boolean error;
    /** Set when a success body went over the cap. */
    volatile boolean tooLarge;
    private final int cap;
    final CompletableFuture<byte[]> result = new CompletableFuture<>();
    private volatile long lastDataNanos = System.nanoTime();
    /** Guarded by this: onNext runs on the client's threads, partial() on the caller's. */
    private byte[] bytes;
    private int size;

    WholeBody(boolean error, int cap, int expected) {
      super(Long.MAX_VALUE);
      this.error = error;
      this.cap = cap;
      this.bytes = new byte[expected];
    }


    @Override
    public void onNext(List<ByteBuffer> item) {
      lastDataNanos = System.nanoTime();
      if (result.isDone()) {
        return;
      }
      // Set when a success body goes over the cap, or an error body reaches it.
      boolean stop = false;
      synchronized (this) {
        for (ByteBuffer b : item) {
          int n = b.remaining();
          if (n > cap - size) {
            if (!error) {
              stop = true;
              break;
            }
            n = cap - size;
          }
          if (size + n > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(cap, Math.max(size + n, 2 * bytes.length)));
          }
          b.get(bytes, size, n);
          size += n;
          if (error && size == cap) {
            stop = true;
            break;
          }
        }
      }
      if (stop) {
        if (error) {
          result.complete(partial());
        } else {
          tooLarge = true;
          result.completeExceptionally(new IOException("body over " + cap + " bytes"));
        }
        cancel();
      }
    }

    @Override
    public void onError(Throwable throwable) {
      if (error) {
        // The status already says what happened; a broken error body only loses the detail.
        result.complete(partial());
      } else {
        result.completeExceptionally(throwable);
      }
    }

    @Override
    public void onComplete() {
      result.complete(partial());
    }

    /** The {@link System#nanoTime} of the headers or of the last data, whichever is later. */
    long lastDataNanos() {
      return lastDataNanos;
    }

    synchronized byte[] partial() {
      return size == bytes.length ? bytes : Arrays.copyOf(bytes, size);
    }

  }

  /**
   * A stream's body, pulled by the reading thread. The client may deliver up to
   * {@link #STREAM_WINDOW} buffer lists ahead of the reader; each time the reader has taken
   * half of them, as many more are requested.
   */
  static final class StreamBody extends CancellableBody {
    private static final Object END = new Object();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    /** Reader thread only. */
    private boolean ended;
    /** Reader thread only: lists taken since demand was last topped up. */
    private int taken;

    StreamBody() {
      super(STREAM_WINDOW);
    }

    @Override
    public void onNext(List<ByteBuffer> item) {
      queue.add(item);
    }

    @Override
    public void onError(Throwable throwable) {
      queue.add(throwable);
    }

    @Override
    public void onComplete() {
      queue.add(END);
    }

    /**
     * Returns the next buffers, or null at the end of the body.
     *
     * @throws TimeoutException when nothing arrived within the wait
     * @throws Throwable the failure the client reported
     */
    @SuppressWarnings("unchecked")
    List<ByteBuffer> next(long waitNanos) throws Throwable {
      if (ended) {
        return null;
      }
      Object item = queue.poll();
      if (item == null) {
        item = queue.poll(waitNanos, TimeUnit.NANOSECONDS);
      }
      if (item == null) {
        throw new TimeoutException();
      }
      if (item == END) {
        ended = true;
        return null;
      }
      if (item instanceof Throwable t) {
        ended = true;
        throw t;
      }
      if (++taken >= STREAM_WINDOW / 2) {
        request(taken);
        taken = 0;
      }
      return (List<ByteBuffer>) item;
    }

  }
}
