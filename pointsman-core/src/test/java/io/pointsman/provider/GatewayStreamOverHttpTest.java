package io.pointsman.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.Status;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Streams through a real gateway over loopback HTTP with the OpenAI adapter: a stream that breaks
 * off mid-way, and a reader that stops reading while other calls share the gateway and the
 * adapter's HTTP client.
 */
class GatewayStreamOverHttpTest {
  private static final String KEY = "pm-stream-key-0001";
  /** Generous bounds that only keep a broken build from hanging; nothing is timed. */
  private static final long WAIT_SECONDS = 60;

  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final InMemoryAccounting accounting = new InMemoryAccounting();
  private final RecordingLimiter limiter = new RecordingLimiter();
  private final ModelCatalog catalog = ModelCatalog.builder()
      .model(ModelSpec.builder("m").contextWindow(8192).maxOutputTokens(256)
          .price(Price.of(1_000_000, 2_000_000)).build())
      .build();

  @AfterEach
  void stop() {
    server.close();
  }

  private Gateway gateway(HttpTimeouts timeouts) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
    OpenAiProvider provider = OpenAiProvider.builder().baseUri(server.uri())
        .credential(Credential.of("sk-test")).timeouts(timeouts).build();
    return Gateway.builder().authenticator(keys).models(catalog).accounting(accounting)
        .limiter(limiter).provider("http", provider)
        .deployment(Deployment.of("m-1", "http", "m")).build();
  }

  private static ChatRequest ask(String text, boolean stream) {
    ChatRequest.Builder b = ChatRequest.builder().model("m").addMessage(Message.user(text))
        .maxTokens(50);
    return stream ? b.stream(true).build() : b.build();
  }

  private static String delta(String text) {
    return "data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" + text
        + "\"},\"finish_reason\":null}]}\n\n";
  }

  /** A complete stream of {@code words} content chunks, a finish chunk, usage and [DONE]. */
  private static List<String> stream(int words, String word) {
    List<String> frames = new ArrayList<>();
    for (int i = 0; i < words; i++) {
      frames.add(delta(word + i + " "));
    }
    frames.add("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
        + "\n\n");
    frames.add("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
        + words + ",\"total_tokens\":" + (10 + words) + "}}\n\n");
    frames.add("data: [DONE]\n\n");
    return frames;
  }

  private static String completion(String text) {
    return "{\"id\":\"c\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\","
        + "\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"" + text
        + "\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":10,"
        + "\"completion_tokens\":5,\"total_tokens\":15}}";
  }

  @Test
  void streamResetMidWayFailsAsUnknownChargedItsWorstCaseWithTheReservationSettledOnce() {
    // A reset may discard bytes the client has not read yet (a reset right after the third
    // frame sometimes overtook all three, and the gateway then rightly retried: nothing had
    // reached the caller). Frames 150 ms apart let the first three be read before the fourth
    // frame and the reset are sent; the fourth may be lost with the reset.
    server.enqueue(FixtureResponse.sse(stream(20, "w")).frameDelay(Duration.ofMillis(150))
        .cutAfter(4));
    Gateway gateway = gateway(Fixtures.SHORT);
    List<ChatChunk> seen = new ArrayList<>();

    ProviderException failure = Fixtures.failureOf(
        () -> gateway.stream(ask("hello", true), CallOptions.of(KEY), seen::add));

    assertBrokenStreamAccounted(failure, seen, 3, 4);
  }

  @Test
  void streamGoingSilentMidWayFailsAsUnknownChargedItsWorstCaseWithTheReservationSettledOnce() {
    server.enqueue(FixtureResponse.sse(stream(20, "w")).hangAfter(3));
    // A short between-chunk timeout ends the silence; the total bound stays generous.
    Gateway gateway = gateway(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofMillis(300), Duration.ofSeconds(WAIT_SECONDS)));
    List<ChatChunk> seen = new ArrayList<>();

    ProviderException failure = Fixtures.failureOf(
        () -> gateway.stream(ask("hello", true), CallOptions.of(KEY), seen::add));

    assertBrokenStreamAccounted(failure, seen, 3, 3);
  }

  private void assertBrokenStreamAccounted(ProviderException failure, List<ChatChunk> seen,
      int minChunks, int maxChunks) {
    assertThat(failure).as("a typed provider failure").isNotNull();
    assertThat(failure.billing()).isEqualTo(ProviderException.Billing.UNKNOWN);
    assertThat(ProviderErrorKind.of(failure)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(failure.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(seen).as("content chunks that reached the caller before the break")
        .hasSizeBetween(minChunks, maxChunks);

    assertThat(accounting.intents()).as("output reached the caller: no retry").hasSize(1);
    assertThat(accounting.records()).hasSize(1);
    UsageRecord record = accounting.records().get(0);
    assertThat(record.outcome()).isEqualTo(UsageOutcome.UNKNOWN);
    assertThat(record.httpStatus()).isEqualTo(504);
    assertThat(record.attempts()).isEqualTo(1);
    assertThat(record.costEstimated()).isTrue();
    // Unknown outcome: charged the worst case the reservation held (input bound x input price
    // + output cap x output price), never zero.
    assertThat(record.costMicros()).isPositive().isEqualTo(limiter.worstCase.get());
    assertThat(record.heldMicros()).isEqualTo(limiter.worstCase.get());

    assertThat(limiter.reserved.get()).isEqualTo(1);
    RecordingReservation r = limiter.reservations.get(record.reservationId());
    assertThat(r).as("the record names the reservation taken").isNotNull();
    assertThat(r.settles).containsExactly(record.costMicros());
    assertThat(r.releases.get()).isZero();
  }

  @Test
  void aBlockedStreamReaderDoesNotStallOtherPlainAndStreamedCalls() throws Exception {
    // The slow call's stream is large (about 2 MiB in 4,000 frames) so that most of it is
    // still unsent, held back by flow control, while its reader is blocked.
    String slowWord = "x".repeat(480);
    server.respondWith(req -> {
      String body = req.bodyText();
      if (body.contains("slow-reader")) {
        return FixtureResponse.sse(stream(4000, slowWord));
      }
      if (body.contains("\"stream\":true")) {
        return FixtureResponse.sse(stream(20, "fast"));
      }
      return FixtureResponse.json(200, completion("plain"));
    });
    Gateway gateway = gateway(new HttpTimeouts(Duration.ofSeconds(2),
        Duration.ofSeconds(WAIT_SECONDS), Duration.ofSeconds(WAIT_SECONDS),
        Duration.ofSeconds(2 * WAIT_SECONDS)));
    CountDownLatch slowBlocked = new CountDownLatch(1);
    CountDownLatch releaseSlow = new CountDownLatch(1);
    AtomicInteger slowChunks = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(13);
    try {
      Future<ChatResult> slow = threads.submit(() -> gateway.stream(ask("slow-reader", true),
          CallOptions.of(KEY), chunk -> {
            if (slowChunks.incrementAndGet() == 1) {
              slowBlocked.countDown();
              try {
                if (!releaseSlow.await(2 * WAIT_SECONDS, TimeUnit.SECONDS)) {
                  throw new IllegalStateException("the slow reader was never released");
                }
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
              }
            }
          }));
      assertThat(slowBlocked.await(WAIT_SECONDS, TimeUnit.SECONDS))
          .as("the slow stream delivered its first chunk").isTrue();

      List<Future<ChatResult>> plain = new ArrayList<>();
      List<Future<ChatResult>> streamed = new ArrayList<>();
      List<List<ChatChunk>> streamedChunks = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        plain.add(threads.submit(() -> gateway.chat(ask("plain", false),
            CallOptions.of(KEY))));
      }
      for (int i = 0; i < 4; i++) {
        List<ChatChunk> chunks = new CopyOnWriteArrayList<>();
        streamedChunks.add(chunks);
        streamed.add(threads.submit(() -> gateway.stream(ask("fast", true),
            CallOptions.of(KEY), chunks::add)));
      }
      for (Future<ChatResult> f : plain) {
        ChatResult r = f.get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(UsageOutcome.SUCCESS);
        assertThat(r.response().firstText()).isEqualTo("plain");
      }
      for (int i = 0; i < streamed.size(); i++) {
        ChatResult r = streamed.get(i).get(WAIT_SECONDS, TimeUnit.SECONDS);
        assertThat(r.outcome()).isEqualTo(UsageOutcome.SUCCESS);
        assertThat(r.usage().completionTokens()).isEqualTo(20);
        assertThat(r.response().firstText()).startsWith("fast0 fast1 ").endsWith("fast19 ");
        assertThat(streamedChunks.get(i)).hasSizeGreaterThanOrEqualTo(20);
      }

      // Every other call finished while the slow reader was still blocked on its first chunk.
      assertThat(slow.isDone()).isFalse();
      assertThat(slowChunks.get()).isEqualTo(1);
      assertThat(accounting.records()).hasSize(12)
          .allSatisfy(r -> assertThat(r.outcome()).isEqualTo(UsageOutcome.SUCCESS));

      releaseSlow.countDown();
      ChatResult slowResult = slow.get(2 * WAIT_SECONDS, TimeUnit.SECONDS);
      assertThat(slowResult.outcome()).isEqualTo(UsageOutcome.SUCCESS);
      assertThat(slowResult.usage().completionTokens()).isEqualTo(4000);
      assertThat(slowChunks.get()).isGreaterThanOrEqualTo(4000);
      assertThat(accounting.records()).hasSize(13);
      assertThat(limiter.reserved.get()).isEqualTo(13);
      assertThat(limiter.reservations.values())
          .allSatisfy(r -> {
            assertThat(r.settles).hasSize(1);
            assertThat(r.releases.get()).isZero();
          });
    } finally {
      releaseSlow.countDown();
      threads.shutdownNow();
      assertThat(threads.awaitTermination(WAIT_SECONDS, TimeUnit.SECONDS)).isTrue();
    }
  }

  /** Holds each call's worst case and records how each reservation ended. */
  private static final class RecordingLimiter implements Limiter {
    final AtomicInteger reserved = new AtomicInteger();
    final AtomicLong worstCase = new AtomicLong();
    final Map<String, RecordingReservation> reservations = new ConcurrentHashMap<>();

    @Override
    public Reservation reserve(Admission admission) {
      RecordingReservation r = new RecordingReservation("res-" + reserved.incrementAndGet(),
          admission.worstCaseMicros());
      worstCase.set(admission.worstCaseMicros());
      reservations.put(r.id, r);
      return r;
    }
  }

  private static final class RecordingReservation implements Reservation {
    final String id;
    final long held;
    final List<Long> settles = new CopyOnWriteArrayList<>();
    final AtomicInteger releases = new AtomicInteger();

    RecordingReservation(String id, long held) {
      this.id = id;
      this.held = held;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public long heldMicros() {
      return held;
    }

    @Override
    public void settle(long actualMicros) {
      settles.add(actualMicros);
    }

    @Override
    public void release() {
      releases.incrementAndGet();
    }
  }
}
