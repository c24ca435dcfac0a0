package io.pointsman.provider;

import io.pointsman.Clock;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
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
 * reading the body, and cancellation. The body is pulled one buffer list at a time, so a slow
 * reader holds back only its own connection. Thread-safe.
 */
final class ProviderTransport {
  /** An error body larger than this is cut: only its message matters. */
  private static final int MAX_ERROR_BODY = 64 * 1024;
  /** A non-streamed response larger than this is refused rather than buffered. */
  private static final int MAX_BODY = 64 * 1024 * 1024;

  private final String name;
  private final HttpClient client;
  private final HttpTimeouts timeouts;
  private final Clock clock;

  ProviderTransport(String name, HttpClient client, HttpTimeouts timeouts, Clock clock) {
    this.name = name;
    this.client = client;
    this.timeouts = timeouts;
    this.clock = clock;
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

  /** An open response whose body has not been read yet. */
  static final class Response {
    final int status;
    final HttpHeaders headers;
    final PullingSubscriber body;
    final long deadlineNanos;

    Response(int status, HttpHeaders headers, PullingSubscriber body, long deadlineNanos) {
      this.status = status;
      this.headers = headers;
      this.body = body;
      this.deadlineNanos = deadlineNanos;
    }
  }

  /**
   * Sends the request and waits for the response headers.
   *
   * @throws ProviderException mapped per {@link ProviderErrors#fromSendFailure}
   */
  Response open(HttpRequest.Builder request, ProviderCall call) {
    long start = System.nanoTime();
    long deadline = start + Math.min(timeouts.total().toNanos(), remainingNanos(call));
    long firstByte = Math.min(timeouts.firstByte().toNanos(), deadline - start);
    if (firstByte <= 0) {
      throw ProviderException.notSent("[" + ProviderErrorKind.NOT_SENT.code() + "] " + name
          + ": the call's deadline has passed", null);
    }
    request.timeout(Duration.ofNanos(firstByte));
    PullingSubscriber subscriber = new PullingSubscriber();
    CompletableFuture<HttpResponse<Void>> future;
    try {
      future = client.sendAsync(request.build(), info -> subscriber);
    } catch (RuntimeException e) {
      throw ProviderException.notSent("[" + ProviderErrorKind.NOT_SENT.code() + "] " + name
          + ": the request could not be sent (" + e.getClass().getSimpleName() + ")", e);
    }
    HttpResponse<Void> response;
    try {
      // The request timeout above fires first; this bound only guards against a client that
      // never completes the future.
      response = future.get(firstByte + TimeUnit.SECONDS.toNanos(5), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw ProviderErrors.fromSendFailure(name, e.getCause() == null ? e : e.getCause());
    } catch (TimeoutException e) {
      future.cancel(true);
      throw ProviderException.unknownOutcome("[" + ProviderErrorKind.NO_RESPONSE.code() + "] "
          + name + ": no response within the first-byte timeout", e);
    } catch (InterruptedException e) {
      future.cancel(true);
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while waiting for the response", e);
    }
    return new Response(response.statusCode(), response.headers(), subscriber, deadline);
  }

  private long remainingNanos(ProviderCall call) {
    Instant deadline = call.deadline();
    if (deadline == null) {
      return Long.MAX_VALUE;
    }
    Duration left = Duration.between(clock.now(), deadline);
    return left.isNegative() ? 0 : left.toNanos();
  }

  /** Reads a whole body. */
  byte[] readAll(Response response, boolean errorBody) {
    int limit = errorBody ? MAX_ERROR_BODY : MAX_BODY;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      List<ByteBuffer> buffers;
      while ((buffers = next(response)) != null) {
        for (ByteBuffer b : buffers) {
          int n = Math.min(b.remaining(), limit - out.size());
          if (n < b.remaining() && !errorBody) {
            response.body.cancel();
            throw ProviderErrors.undecodable(name, "the response exceeds " + MAX_BODY
                + " bytes", null);
          }
          byte[] chunk = new byte[n];
          b.get(chunk);
          out.write(chunk, 0, n);
        }
        if (errorBody && out.size() >= limit) {
          response.body.cancel();
          break;
        }
      }
    } catch (ProviderException e) {
      if (errorBody) {
        // The status already says what happened; a broken error body only loses the detail.
        return out.toByteArray();
      }
      throw e;
    }
    return out.toByteArray();
  }

  /**
   * Feeds the body to a consumer until it ends or {@code stop} says so (the caller cancelled),
   * then cancels the rest.
   *
   * @return true when the body ended, false when stopped
   */
  boolean stream(Response response, Consumer<ByteBuffer> consumer, BooleanSupplier stop) {
    List<ByteBuffer> buffers;
    while ((buffers = next(response)) != null) {
      for (ByteBuffer b : buffers) {
        consumer.accept(b);
        if (stop.getAsBoolean()) {
          response.body.cancel();
          return false;
        }
      }
    }
    return true;
  }

  private List<ByteBuffer> next(Response response) {
    long left = response.deadlineNanos - System.nanoTime();
    if (left <= 0) {
      response.body.cancel();
      throw ProviderErrors.interrupted(name, "the attempt's total time ran out", null);
    }
    long wait = Math.min(left, timeouts.betweenChunks().toNanos());
    try {
      return response.body.next(wait);
    } catch (TimeoutException e) {
      response.body.cancel();
      throw ProviderErrors.interrupted(name, wait == left ? "the attempt's total time ran out"
          : "no data within the between-chunk timeout", e);
    } catch (InterruptedException e) {
      response.body.cancel();
      Thread.currentThread().interrupt();
      throw ProviderErrors.interrupted(name, "interrupted while reading the response", e);
    } catch (Throwable e) {
      response.body.cancel();
      throw ProviderErrors.interrupted(name, "the response body broke off ("
          + e.getClass().getSimpleName() + ")", e);
    }
  }

  /**
   * A body subscriber the reading thread pulls from. It requests one buffer list at a time,
   * only after the previous one was taken, so nothing piles up for a slow reader.
   */
  static final class PullingSubscriber implements HttpResponse.BodySubscriber<Void> {
    private static final Object END = new Object();
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private volatile Flow.Subscription subscription;
    private volatile boolean cancelled;
    private boolean ended;

    @Override
    public CompletionStage<Void> getBody() {
      return CompletableFuture.completedFuture(null);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = Objects.requireNonNull(s, "subscription");
      if (cancelled) {
        s.cancel();
      } else {
        s.request(1);
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
      Object item = queue.poll(waitNanos, TimeUnit.NANOSECONDS);
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
      Flow.Subscription s = subscription;
      if (s != null) {
        s.request(1);
      }
      return (List<ByteBuffer>) item;
    }

    void cancel() {
      cancelled = true;
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }
}
