package io.pointsman.jmh.provider;

import io.pointsman.provider.SseParser;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * SSE parse throughput: {@link SseParser} over a whole recorded-shape stream per operation,
 * fed in slices of {@code sliceBytes} (16 KiB is what {@code java.net.http} typically hands
 * over; 256 B splits most frames, lines and some UTF-8 characters across pieces).
 *
 * <p>Streams ({@code provider}): {@code openai} is a Chat Completions stream with
 * {@code include_usage} (role chunk, one content chunk per token of about 4 bytes, finish chunk,
 * usage chunk, {@code [DONE]}), field for field as the API sends it; {@code anthropic} is a
 * Messages stream ({@code event:} lines, {@code message_start} with usage, {@code
 * content_block_start}, a {@code ping}, one {@code text_delta} per token, {@code
 * content_block_stop}, {@code message_delta} with usage, {@code message_stop}). {@code
 * contentBytes} is the assistant text the stream carries (150 B, 4 KiB, 32 KiB); the text mixes
 * ASCII with some multi-byte characters.
 *
 * <p>Secondary metrics {@code bytes} and {@code events} are rates per second (JMH auxiliary
 * counters): body bytes parsed per second and events dispatched per second. {@code
 * baselineScanNewlines} only counts line feeds over the same slices: the floor of any
 * line-oriented parser. The parse alone is measured; decoding each event's JSON is not.
 *
 * <p>Run: (from the repository root) {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java
 * -jar pointsman-jmh/target/benchmarks.jar SseParseBenchmark -wi 2 -i 3 -r 1s -f 1 -rf json
 * -rff pointsman-jmh/results/provider/sse-parse.json | tee
 * pointsman-jmh/results/provider/sse-parse.txt}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-Xms512m", "-Xmx512m"})
public class SseParseBenchmark {

  @Param({"openai", "anthropic"})
  public String provider;

  @Param({"150", "4096", "32768"})
  public int contentBytes;

  @Param({"256", "16384"})
  public int sliceBytes;

  private byte[] body;
  private int eventCount;

  /** Per-thread counters that JMH reports as rates. */
  @State(Scope.Thread)
  @AuxCounters(AuxCounters.Type.OPERATIONS)
  public static class Rates {
    /** Body bytes parsed. */
    public long bytes;
    /** Events dispatched. */
    public long events;

    /** Clears the counters before each iteration. */
    @Setup(Level.Iteration)
    public void clear() {
      bytes = 0;
      events = 0;
    }
  }

  @Setup(Level.Trial)
  public void setUp() {
    String[] tokens = tokens(contentBytes);
    String s = provider.equals("openai") ? openAi(tokens) : anthropic(tokens);
    body = s.getBytes(StandardCharsets.UTF_8);
    int[] n = new int[1];
    SseParser counting = new SseParser(e -> n[0]++);
    counting.feed(body, 0, body.length);
    counting.finish();
    eventCount = n[0];
    if (eventCount < tokens.length) {
      throw new IllegalStateException("stream did not parse: " + eventCount + " events");
    }
  }

  /**
   * Parses one whole stream.
   *
   * @param bh sinks every event
   * @param rates counts bytes and events
   */
  @Benchmark
  public void parse(Blackhole bh, Rates rates) {
    SseParser parser = new SseParser(bh::consume);
    for (int off = 0; off < body.length; off += sliceBytes) {
      parser.feed(body, off, Math.min(sliceBytes, body.length - off));
    }
    parser.finish();
    rates.bytes += body.length;
    rates.events += eventCount;
  }

  /**
   * Counts line feeds over the same slices.
   *
   * @param rates counts bytes
   * @return the count
   */
  @Benchmark
  public int baselineScanNewlines(Rates rates) {
    int lines = 0;
    byte[] b = body;
    for (int off = 0; off < b.length; off += sliceBytes) {
      int end = Math.min(off + sliceBytes, b.length);
      for (int i = off; i < end; i++) {
        if (b[i] == '\n') {
          lines++;
        }
      }
    }
    rates.bytes += b.length;
    return lines;
  }

  /** Splits text of about {@code bytes} UTF-8 bytes into tokens of about 4 bytes. */
  static String[] tokens(int bytes) {
    String text = "The quick brown fox jumps over the lazy dog; naïve café prices rose 5 € "
        + "while the Zürich office shipped 42 new features. ";
    StringBuilder all = new StringBuilder();
    while (all.toString().getBytes(StandardCharsets.UTF_8).length < bytes) {
      all.append(text);
    }
    java.util.List<String> out = new java.util.ArrayList<>();
    int total = 0;
    int i = 0;
    while (total < bytes && i < all.length()) {
      int end = Math.min(all.length(), i + 4);
      String t = all.substring(i, end);
      out.add(t);
      total += t.getBytes(StandardCharsets.UTF_8).length;
      i = end;
    }
    return out.toArray(new String[0]);
  }

  static String json(String s) {
    return s.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  static String openAi(String[] tokens) {
    String head = "data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":"
        + "\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","
        + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_eb9dce56a8\",\"choices\":"
        + "[{\"index\":0,\"delta\":";
    StringBuilder b = new StringBuilder();
    b.append(head).append("{\"role\":\"assistant\",\"content\":\"\",\"refusal\":null},"
        + "\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n");
    for (String t : tokens) {
      b.append(head).append("{\"content\":\"").append(json(t))
          .append("\"},\"logprobs\":null,\"finish_reason\":null}],\"usage\":null}\n\n");
    }
    b.append(head).append("{},\"logprobs\":null,\"finish_reason\":\"stop\"}],\"usage\":null}"
        + "\n\n");
    b.append("data: {\"id\":\"chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG\",\"object\":"
        + "\"chat.completion.chunk\",\"created\":1741570283,\"model\":\"gpt-4o-2024-08-06\","
        + "\"service_tier\":\"default\",\"system_fingerprint\":\"fp_eb9dce56a8\",\"choices\":[],"
        + "\"usage\":{\"prompt_tokens\":19,\"completion_tokens\":").append(tokens.length)
        .append(",\"total_tokens\":").append(19 + tokens.length).append(",\"prompt_tokens_"
            + "details\":{\"cached_tokens\":0,\"audio_tokens\":0},\"completion_tokens_details\":"
            + "{\"reasoning_tokens\":0,\"audio_tokens\":0,\"accepted_prediction_tokens\":0,"
            + "\"rejected_prediction_tokens\":0}}}\n\n");
    b.append("data: [DONE]\n\n");
    return b.toString();
  }

  static String anthropic(String[] tokens) {
    StringBuilder b = new StringBuilder();
    b.append("event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"
        + "\"msg_01XFDUDYJgAACzvnptvVoYEL\",\"type\":\"message\",\"role\":\"assistant\","
        + "\"model\":\"claude-sonnet-4-20250514\",\"content\":[],\"stop_reason\":null,"
        + "\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,\"cache_creation_input_tokens\""
        + ":0,\"cache_read_input_tokens\":0,\"output_tokens\":1,\"service_tier\":\"standard\"}}}"
        + "\n\n");
    b.append("event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,"
        + "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n");
    b.append("event: ping\ndata: {\"type\": \"ping\"}\n\n");
    for (String t : tokens) {
      b.append("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
          + "\"delta\":{\"type\":\"text_delta\",\"text\":\"").append(json(t)).append("\"}}\n\n");
    }
    b.append("event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}"
        + "\n\n");
    b.append("event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\""
        + ":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":")
        .append(tokens.length).append("}}\n\n");
    b.append("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
    return b.toString();
  }
}
