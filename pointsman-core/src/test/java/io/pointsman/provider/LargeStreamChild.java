package io.pointsman.provider;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageRecord;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The child JVM of {@link LargeStreamTest}: serves one lazily generated OpenAI stream from a
 * loopback fixture server in this process and relays it through a real gateway and the OpenAI
 * adapter with its default limits, measuring the heap retained (used after a full collection)
 * as the stream goes by. Prints one {@code KEY value...} line per fact on standard output, for
 * the parent to check.
 *
 * <p>Arguments: the scenario ({@code content}: every frame carries 16 KiB of text;
 * {@code padded}: every frame carries one character of text and 16 KiB of padding in an extra
 * field, as OpenAI's {@code obfuscation} does), the stream's size in MiB, and how many MiB of
 * stream go by between heap measurements.
 */
public final class LargeStreamChild {
  static final String KEY = "pm-large-stream-key-01";
  static final int PAYLOAD = 16 * 1024;

  private LargeStreamChild() {}

  /**
   * Runs the scenario.
   *
   * @param args scenario, stream MiB, MiB between heap measurements
   * @throws Exception when the harness itself fails
   */
  public static void main(String[] args) throws Exception {
    PrintStream out = System.out;
    String scenario = args[0];
    long streamBytes = Long.parseLong(args[1]) << 20;
    long checkEvery = Long.parseLong(args[2]) << 20;
    boolean padded = scenario.equals("padded");
    String x = "x".repeat(PAYLOAD);
    byte[] frame = ("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
        + (padded ? "x" : x) + "\"},\"finish_reason\":null}]"
        + (padded ? ",\"obfuscation\":\"" + x + "\"" : "") + "}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    long frames = streamBytes / frame.length;
    byte[] finish = ("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}"
        + "\n\n").getBytes(StandardCharsets.UTF_8);
    byte[] usage = ("data: {\"id\":\"s\",\"object\":\"chat.completion.chunk\",\"created\":1,"
        + "\"model\":\"m\",\"choices\":[],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":"
        + frames + ",\"total_tokens\":" + (10 + frames) + "}}\n\n")
        .getBytes(StandardCharsets.UTF_8);
    byte[] done = "data: [DONE]\n\n".getBytes(StandardCharsets.UTF_8);
    AtomicLong generated = new AtomicLong();
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    try (HttpFixtureServer server = HttpFixtureServer.start().recording(false)) {
      server.respondWith(request -> FixtureResponse.sse(frames + 3, i -> {
        generated.incrementAndGet();
        return i < frames ? frame : i == frames ? finish : i == frames + 1 ? usage : done;
      }));
      InMemoryAccounting accounting = new InMemoryAccounting();
      WorstCaseLimiter limiter = new WorstCaseLimiter();
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("o1").build());
      OpenAiProvider provider = OpenAiProvider.builder().baseUri(server.uri())
          .credential(Credential.of("sk-test")).timeouts(new HttpTimeouts(
              Duration.ofSeconds(10), Duration.ofSeconds(60), Duration.ofSeconds(60),
              Duration.ofMinutes(10))).build();
      Gateway gateway = Gateway.builder().authenticator(keys)
          .models(ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(200_000)
              .maxOutputTokens(100_000).price(Price.of(1_000_000, 2_000_000)).build()).build())
          .accounting(accounting).limiter(limiter).provider("http", provider)
          .deployment(Deployment.of("m-1", "http", "m")).build();
      ChatRequest request = ChatRequest.builder().model("m").addMessage(Message.user("long"))
          .stream(true).build();

      out.println("FRAME_BYTES " + frame.length);
      out.println("STREAM_FRAMES " + frames);
      long[] relayed = new long[2];
      long framesPerCheck = Math.max(1, checkEvery / frame.length);
      String failure = "-";
      try {
        out.println("HEAP 0 " + retained(memory));
        ChatResult result = gateway.stream(request, CallOptions.of(KEY), chunk -> {
          relayed[0]++;
          String text = chunk.text();
          relayed[1] += text == null ? 0 : text.length();
          if (relayed[0] % framesPerCheck == 0) {
            out.println("HEAP " + relayed[0] * frame.length + " " + retained(memory));
          }
        });
        out.println("RESULT_CHARS " + result.response().firstText().length());
      } catch (ProviderException e) {
        failure = e.billing() + " " + e.rule() + " " + e.status().httpStatus() + " "
            + e.retryable();
        out.println("MESSAGE " + e.getMessage());
      } catch (PointsmanException e) {
        failure = "other " + e.rule() + " " + e.status().httpStatus();
        out.println("MESSAGE " + e.getMessage());
      }
      out.println("FAILURE " + failure);
      out.println("RELAYED_CHUNKS " + relayed[0]);
      out.println("RELAYED_CHARS " + relayed[1]);
      // A cut stream's connection must be closed; a complete one goes back to the pool.
      out.println("CLOSED " + (failure.equals("-") ? "pooled"
          : server.awaitNoOpenConnections(Duration.ofSeconds(30))));
      out.println("GENERATED_FRAMES " + generated.get());
      UsageRecord record = accounting.records().get(0);
      out.println("RECORD " + record.outcome() + " " + record.costMicros() + " "
          + record.costEstimated() + " " + record.rule() + " " + record.attempts());
      out.println("WORST_CASE " + limiter.worstCase.get() + " " + limiter.settled.get());
      out.println("HEAP_END " + retained(memory));
    } catch (OutOfMemoryError e) {
      out.println("OOM " + e.getMessage());
      out.flush();
      System.exit(3);
    }
    out.flush();
  }

  /** The heap in use after a full collection, in bytes. */
  private static long retained(MemoryMXBean memory) {
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /** Holds each call's worst case; records what it was settled at. */
  private static final class WorstCaseLimiter implements Limiter {
    final AtomicLong worstCase = new AtomicLong();
    final AtomicLong settled = new AtomicLong(-1);

    @Override
    public Reservation reserve(Admission admission) {
      long held = admission.worstCaseMicros();
      worstCase.set(held);
      return new Reservation() {
        @Override
        public String id() {
          return "res-1";
        }

        @Override
        public long heldMicros() {
          return held;
        }

        @Override
        public void settle(long actualMicros) {
          settled.set(actualMicros);
        }

        @Override
        public void release() {
          settled.set(0);
        }
      };
    }
  }
}
