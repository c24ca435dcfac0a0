package io.pointsman.httpclient5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.HttpTimeouts;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.ProviderErrorKind;
import io.pointsman.provider.http.HttpExchange;
import io.pointsman.provider.http.HttpTransport;
import io.pointsman.provider.http.HttpTransportRequest;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import io.pointsman.spi.ProviderReply;
import java.io.IOException;
import java.net.http.HttpHeaders;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What any {@link HttpTransport} must do under the adapters, against the fixture server: whole
 * bodies, error bodies and their headers, the first-byte, between-chunk and total timeouts,
 * streams (back-pressure, drain and connection reuse, cutting), and cancellation by interrupt
 * and by {@link HttpExchange#abort} from another thread.
 */
abstract class TransportContract {
  static final String COMPLETION = "{\"id\":\"c1\",\"object\":\"chat.completion\","
      + "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
      + "\"assistant\",\"content\":\"hello\"},\"finish_reason\":\"stop\"}],\"usage\":{"
      + "\"prompt_tokens\":3,\"completion_tokens\":1,\"total_tokens\":4}}";
  static final HttpTimeouts SHORT = new HttpTimeouts(Duration.ofSeconds(2),
      Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(20));
  final HttpFixtureServer server = HttpFixtureServer.start();
  private final List<AutoCloseable> closing = new ArrayList<>();

  /**
   * A new transport under test; connect timeout from {@code timeouts}. (The fixture notices a
   * connection closed by the client only when it next writes to it: the cancellation tests use
   * an upstream that never answers in time, so that only an abort can end the call.)
   */
  abstract HttpTransport transport(HttpTimeouts timeouts);

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
    server.close();
  }

  private HttpTransport opened(HttpTimeouts timeouts) {
    HttpTransport t = transport(timeouts);
    if (t instanceof AutoCloseable c) {
      closing.add(c);
    }
    return t;
  }

  OpenAiProvider openAi(HttpTimeouts timeouts) {
    return OpenAiProvider.builder().baseUri(server.uri()).timeouts(timeouts)
        .transport(opened(timeouts)).build();
  }

  static ProviderCall call(boolean stream) {
    ChatRequest r = ChatRequest.builder().model("m").addMessage(Message.user("hi"))
        .stream(stream).build();
    return new ProviderCall("req-1", "evt-1", Deployment.of("d", "p", "m"), r, 1, null);
  }

  static String frame(String content) {
    return "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":"
        + "\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + content + "\"},"
        + "\"finish_reason\":null}]}\n\n";
  }

  static List<String> frames(int n) {
    List<String> f = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      f.add(frame("t" + i + " "));
    }
    f.add("data: [DONE]\n\n");
    return f;
  }

  static ProviderException failureOf(Runnable r) {
    return catchThrowableOfType(ProviderException.class, r::run);
  }

  static String content(ProviderReply reply) {
    return reply.response().firstText();
  }

  @Test
  void plainCallsAnswerAndShareOneKeptAliveConnection() {
    server.respondWith(req -> FixtureResponse.json(200, COMPLETION));
    OpenAiProvider p = openAi(SHORT);
    for (int i = 0; i < 5; i++) {
      assertThat(content(p.send(call(false)))).contains("hello");
    }
    assertThat(server.connectionsAccepted()).isEqualTo(1);
    assertThat(server.requests().get(0).header("content-type")).isEqualTo("application/json");
    assertThat(server.requests().get(0).bodyText()).contains("\"hi\"");
  }

  @Test
  void anErrorStatusDecidesWithRetryAfterAndTheConnectionIsKept() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}")
        .header("retry-after", "7"));
    server.enqueue(FixtureResponse.json(503, "{\"error\":{\"message\":\"" + "x".repeat(100_000)
        + "\"}}"));
    server.enqueue(FixtureResponse.json(200, COMPLETION));
    OpenAiProvider p = openAi(SHORT);
    ProviderException limited = failureOf(() -> p.send(call(false)));
    assertThat(ProviderErrorKind.of(limited)).isEqualTo(ProviderErrorKind.RATE_LIMITED);
    assertThat(limited.retryAfter()).isEqualTo(Duration.ofSeconds(7));
    assertThat(limited.getMessage()).contains("slow down");
    assertThat(limited.billing()).isEqualTo(Billing.NOT_BILLED);
    ProviderException overloaded = failureOf(() -> p.send(call(false)));
    assertThat(ProviderErrorKind.of(overloaded)).isEqualTo(ProviderErrorKind.OVERLOADED);
    assertThat(content(p.send(call(false)))).contains("hello");
  }

  @Test
  void aRefusedConnectionIsNotSent() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    OpenAiProvider p = OpenAiProvider.builder()
        .baseUri(java.net.URI.create("http://127.0.0.1:" + port)).timeouts(SHORT)
        .transport(opened(SHORT)).build();
    ProviderException e = failureOf(() -> p.send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NOT_SENT);
    assertThat(e.billing()).isEqualTo(Billing.NOT_BILLED);
  }

  @Test
  void noHeadersWithinTheFirstByteTimeoutIsNoResponse() {
    server.enqueue(FixtureResponse.json(200, COMPLETION).headersDelay(Duration.ofSeconds(5)));
    ProviderException e = failureOf(() -> openAi(new HttpTimeouts(Duration.ofSeconds(2),
        Duration.ofMillis(300), Duration.ofSeconds(2), Duration.ofSeconds(20)))
        .send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NO_RESPONSE);
    assertThat(e.getMessage()).contains("first-byte");
  }

  @Test
  void aPlainBodyThatGoesSilentFailsAfterTheBetweenChunkTimeout() {
    server.enqueue(FixtureResponse.json(200, COMPLETION).hangAfter(5));
    ProviderException e = failureOf(() -> openAi(new HttpTimeouts(Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(20)))
        .send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(e.getMessage()).contains("between-chunk");
  }

  @Test
  void aBodyStillArrivingWhenTheTotalTimeRunsOutFails() {
    server.enqueue(FixtureResponse.json(200, COMPLETION).hangAfter(5));
    ProviderException e = failureOf(() -> openAi(new HttpTimeouts(Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofSeconds(10), Duration.ofMillis(400)))
        .send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(e.getMessage()).contains("total time");
  }

  @Test
  void anErrorBodyThatGoesSilentKeepsWhatArrivedAndTheStatusDecides() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}")
        .header("retry-after", "1").hangAfter(3));
    ProviderException e = failureOf(() -> openAi(new HttpTimeouts(Duration.ofSeconds(2),
        Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(20)))
        .send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.RATE_LIMITED);
    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aStreamArrivesWholeAndInOrderAndItsConnectionIsReusedAfterTheEnd() {
    List<String> frames = frames(300);
    server.respondWith(req -> FixtureResponse.sse(frames));
    OpenAiProvider p = openAi(SHORT);
    for (int round = 0; round < 3; round++) {
      StringBuilder text = new StringBuilder();
      p.stream(call(true), chunk -> {
        text.append(deltaOf(chunk));
        return true;
      });
      StringBuilder expected = new StringBuilder();
      for (int i = 0; i < 300; i++) {
        expected.append("t").append(i).append(' ');
      }
      assertThat(text.toString()).isEqualTo(expected.toString());
    }
    assertThat(server.connectionsAccepted()).isEqualTo(1);
  }

  @Test
  void aStreamTheCallerCutsClosesItsConnection() throws Exception {
    server.respondWith(req -> FixtureResponse.sse(frames(50_000)));
    OpenAiProvider p = openAi(SHORT);
    int[] seen = {0};
    p.stream(call(true), chunk -> ++seen[0] < 3);
    assertThat(seen[0]).isEqualTo(3);
    assertThat(server.awaitNoOpenConnections(Duration.ofSeconds(10))).isTrue();
  }

  @Test
  void aPausedStreamReaderHoldsBackOnlyItsOwnConnection() throws Exception {
    server.respondWith(req -> req.bodyText().contains("\"stream\":true")
        ? FixtureResponse.sse(frames(20_000)) : FixtureResponse.json(200, COMPLETION));
    OpenAiProvider p = openAi(SHORT);
    CountDownLatch paused = new CountDownLatch(1);
    CountDownLatch resume = new CountDownLatch(1);
    int[] chunks = {0};
    CompletableFuture<ProviderReply> streamed = CompletableFuture.supplyAsync(() ->
        p.stream(call(true), chunk -> {
          if (chunks[0]++ == 1) {
            paused.countDown();
            try {
              resume.await();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
          }
          return true;
        }));
    assertThat(paused.await(10, TimeUnit.SECONDS)).isTrue();
    // The stream's reader is paused; another call on the same transport goes ahead.
    assertThat(content(p.send(call(false)))).contains("hello");
    resume.countDown();
    streamed.get(30, TimeUnit.SECONDS);
    assertThat(chunks[0]).isEqualTo(20_000);
  }

  @Test
  void anInterruptWhileWaitingForTheHeadersEndsTheCallAndClosesTheConnection()
      throws Exception {
    // The headers would come after an hour, past every timeout of this test.
    server.enqueue(FixtureResponse.json(200, COMPLETION).headersDelay(Duration.ofHours(1)));
    OpenAiProvider p = openAi(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMinutes(10),
        Duration.ofMinutes(10), Duration.ofMinutes(20)));
    AtomicReference<Throwable> failure = new AtomicReference<>();
    boolean[] stillInterrupted = {false};
    Thread caller = new Thread(() -> {
      try {
        p.send(call(false));
      } catch (Throwable t) {
        failure.set(t);
        stillInterrupted[0] = Thread.currentThread().isInterrupted();
      }
    });
    caller.start();
    while (server.requests().isEmpty()) {
      Thread.sleep(5);
    }
    // Only an abort of the blocked read can end the call now.
    caller.interrupt();
    caller.join(30_000);
    assertThat(caller.isAlive()).isFalse();
    assertThat(failure.get()).isInstanceOf(ProviderException.class);
    ProviderException e = (ProviderException) failure.get();
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(e.getMessage()).contains("interrupted");
    assertThat(stillInterrupted[0]).isTrue();
  }

  @Test
  void anInterruptWhileAStreamIsSilentEndsTheCallAndClosesTheConnection() throws Exception {
    server.enqueue(FixtureResponse.sse(frames(10)).frameDelay(Duration.ofHours(1)));
    OpenAiProvider p = openAi(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMinutes(10),
        Duration.ofMinutes(10), Duration.ofMinutes(20)));
    AtomicReference<Throwable> failure = new AtomicReference<>();
    CountDownLatch headers = new CountDownLatch(1);
    Thread caller = new Thread(() -> {
      try {
        p.stream(call(true), chunk -> {
          headers.countDown();
          return true;
        });
      } catch (Throwable t) {
        failure.set(t);
      }
    });
    caller.start();
    // The first frame arrives at once, the next an hour later: only an abort of the blocked
    // read can end the call.
    assertThat(headers.await(10, TimeUnit.SECONDS)).isTrue();
    caller.interrupt();
    caller.join(30_000);
    assertThat(caller.isAlive()).isFalse();
    assertThat(failure.get()).isInstanceOf(ProviderException.class);
    assertThat(ProviderErrorKind.of((ProviderException) failure.get()))
        .isEqualTo(ProviderErrorKind.INTERRUPTED);
  }

  @Test
  void abortFromAnotherThreadFailsABlockedReadAndATimeoutIsReportedAsSuch() throws Exception {
    server.enqueue(FixtureResponse.sse(frames(10)).frameDelay(Duration.ofHours(1)));
    server.enqueue(FixtureResponse.sse(frames(10)).frameDelay(Duration.ofHours(1)));
    HttpTransport t = opened(SHORT);
    HttpTransportRequest request = new HttpTransportRequest("POST",
        server.uri().resolve("/chat/completions"), HttpHeaders.of(Map.of("content-type",
        List.of("application/json")), (a, b) -> true),
        "{}".getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(5), true);
    byte[] buf = new byte[8192];

    HttpExchange ex = t.send(request);
    assertThat(ex.status()).isEqualTo(200);
    assertThat(ex.headers().firstValue("content-type")).hasValueSatisfying(
        v -> assertThat(v).startsWith("text/event-stream"));
    assertThat(ex.read(buf, 0, buf.length, TimeUnit.SECONDS.toNanos(5))).isPositive();
    CompletableFuture<Void> aborter = CompletableFuture.runAsync(() -> {
      try {
        Thread.sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      ex.abort();
    });
    IOException aborted = catchThrowableOfType(IOException.class,
        () -> ex.read(buf, 0, buf.length, TimeUnit.SECONDS.toNanos(60)));
    assertThat(aborted).isNotNull().isNotInstanceOf(HttpTimeoutException.class);
    aborter.get(10, TimeUnit.SECONDS);
    ex.abort();

    HttpExchange slow = t.send(request);
    assertThat(slow.read(buf, 0, buf.length, TimeUnit.SECONDS.toNanos(5))).isPositive();
    assertThat(catchThrowableOfType(HttpTimeoutException.class,
        () -> slow.read(buf, 0, buf.length, TimeUnit.MILLISECONDS.toNanos(200)))).isNotNull();
    slow.abort();
  }

  private static String deltaOf(ChatChunk chunk) {
    String t = chunk.text();
    return t == null ? "" : t;
  }
}
