package io.pointsman.provider.http;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's {@link HttpClient} as an {@link HttpTransport}: the adapters' default. Given to an
 * adapter's builder, the adapter uses the client exactly as it does by default (whole bodies
 * gathered by the client's own threads, streams through a bounded window); through
 * {@link #send} directly, every body is pulled through a window of {@value #WINDOW} buffer
 * lists. Thread-safe.
 */
public final class JdkHttpTransport implements HttpTransport {
  /** Buffer lists the client may deliver ahead of the reader. */
  public static final int WINDOW = 16;
  private final HttpClient client;

  private JdkHttpTransport(HttpClient client) {
    this.client = client;
  }

  /**
   * Wraps a client. Its connect timeout is the client's own.
   *
   * @param client the client (HTTP/1.1 and no redirects, as the adapters' default, suit
   *     providers best)
   * @return the transport
   * @throws NullPointerException if {@code client} is null
   */
  public static JdkHttpTransport of(HttpClient client) {
    return new JdkHttpTransport(Objects.requireNonNull(client, "client"));
  }

  /**
   * Returns the client this transport sends with.
   *
   * @return the client
   */
  public HttpClient client() {
    return client;
  }

  @Override
  public HttpExchange send(HttpTransportRequest request)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(request.uri())
        .timeout(request.firstByteTimeout())
        .method(request.method(), request.body().length == 0 && "GET".equals(request.method())
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofByteArray(request.body()));
    request.headers().map().forEach((name, values) -> values.forEach(v -> b.header(name, v)));
    PulledBody body = new PulledBody();
    HttpResponse<Void> response = client.send(b.build(), info -> body);
    return new Exchange(response.statusCode(), response.headers(), body);
  }

  @Override
  public String toString() {
    return "JdkHttpTransport(" + client + ")";
  }

  private static final class Exchange implements HttpExchange {
    private final int status;
    private final HttpHeaders headers;
    private final PulledBody body;

    Exchange(int status, HttpHeaders headers, PulledBody body) {
      this.status = status;
      this.headers = headers;
      this.body = body;
    }

    @Override
    public int status() {
      return status;
    }

    @Override
    public HttpHeaders headers() {
      return headers;
    }

    @Override
    public int read(byte[] into, int offset, int length, long waitNanos)
        throws IOException, InterruptedException {
      Objects.checkFromIndexSize(offset, length, into.length);
      try {
        return body.read(into, offset, length, waitNanos);
      } catch (InterruptedException e) {
        body.cancel();
        throw e;
      }
    }

    @Override
    public void close() {
      if (!body.ended) {
        body.cancel();
      }
    }

    @Override
    public void abort() {
      body.cancel();
    }
  }

  /** A body pulled by the reading thread through a window of {@link #WINDOW} lists. */
  private static final class PulledBody implements HttpResponse.BodySubscriber<Void> {
    private static final Object END = new Object();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;
    /** Reader thread only. */
    volatile boolean ended;
    private List<ByteBuffer> current = List.of();
    private int index;
    private int taken;

    @Override
    public CompletionStage<Void> getBody() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
      if (cancelled) {
        s.cancel();
      } else {
        s.request(WINDOW);
      }
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

    void cancel() {
      cancelled = true;
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
      // Wakes a reader waiting in another thread.
      queue.add(new IOException("the exchange was aborted"));
    }

    @SuppressWarnings("unchecked")
    int read(byte[] into, int offset, int length, long waitNanos)
        throws IOException, InterruptedException {
      while (true) {
        if (ended) {
          return -1;
        }
        while (index < current.size()) {
          ByteBuffer b = current.get(index);
          if (b.hasRemaining()) {
            int n = Math.min(length, b.remaining());
            b.get(into, offset, n);
            return n;
          }
          index++;
        }
        Object item = queue.poll();
        if (item == null) {
          item = queue.poll(waitNanos, TimeUnit.NANOSECONDS);
        }
        if (item == null) {
          throw new HttpTimeoutException("no data within " + waitNanos + " ns");
        }
        if (item == END) {
          ended = true;
          return -1;
        }
        if (item instanceof Throwable t) {
          queue.add(t);
          throw t instanceof IOException io ? io : new IOException(t);
        }
        current = (List<ByteBuffer>) item;
        index = 0;
        if (++taken >= WINDOW / 2) {
          Flow.Subscription s = subscription;
          if (s != null) {
            s.request(taken);
          }
          taken = 0;
        }
      }
    }
  }
}
