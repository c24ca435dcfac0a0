package io.pointsman.jmh.harness;

import io.pointsman.CacheControl;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.cache.semantic.MiniLmEmbedder;
import io.pointsman.cache.semantic.SemanticCache;
import io.pointsman.jmh.Prompts;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * The semantic layer alone, open loop: at a fixed arrival rate, a new question every call is
 * looked up in a {@link SemanticCache} with the default deadline, queue and batch (one scope,
 * seeded with 100 entries, so every lookup embeds and searches), and stored afterwards as the
 * gateway stores a provider's answer. Latency is from the scheduled start to the lookup's
 * answer: the time the semantic layer adds to a miss. Reports p50, p99 and the share of lookups
 * skipped for overload and for the deadline.
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -cp
 * pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.harness.SemanticLoad
 * --out=pointsman-jmh/results/cache/semantic-load.csv} (options: {@code --rates=50,500
 * --sizes=150,4096 --warmup=2 --measure=6 --threads=N}, N the embedder's intra-op threads, default
 * the embedder's).
 */
public final class SemanticLoad {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));
  private static final Identity IDENTITY = new Identity("key", "user", "team", "org", Set.of(),
      Grant.all(), Grant.all(), Grant.all());
  private static final ResolvedModel MODEL = new ResolvedModel(ModelSpec.builder("m").build(),
      100, false, 100);

  private static final Set<String> OPTIONS = Set.of("out", "rates", "sizes", "warmup", "measure",
      "threads");

  private SemanticLoad() {}

  private static CacheQuery query(String text) {
    return new CacheQuery(IDENTITY, MODEL, ChatRequest.builder().model("m").temperature(0.0)
        .addMessage(Message.user(text)).build(), CacheControl.DEFAULT);
  }

  /**
   * Runs every rate and size and writes one CSV row per run.
   *
   * @param args {@code --out=FILE} and the options above
   * @throws Exception if a run fails
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> opts = io.pointsman.jmh.Options.parse(args);
    for (String key : opts.keySet()) {
      if (!OPTIONS.contains(key)) {
        throw new IllegalArgumentException("unknown option --" + key);
      }
    }
    Path out = Path.of(opts.getOrDefault("out", "semantic-load.csv"));
    List<Integer> rates = ints(opts.getOrDefault("rates", "50,500"));
    List<Integer> sizes = ints(opts.getOrDefault("sizes", "150,4096"));
    double warmup = Double.parseDouble(opts.getOrDefault("warmup", "2"));
    double measure = Double.parseDouble(opts.getOrDefault("measure", "6"));
    int threads = Integer.parseInt(opts.getOrDefault("threads", "0"));
    List<String> rows = new ArrayList<>();
    rows.add("rate,bytes,lookups,p50_ms,p99_ms,max_ms,skipped_overload,skipped_deadline,"
        + "skipped_share,embedder_runs,texts_embedded,load_average");
    MiniLmEmbedder.Builder b = MiniLmEmbedder.builder();
    if (threads > 0) {
      b.intraOpThreads(threads);
    }
    try (MiniLmEmbedder embedder = b.build()) {
      for (int size : sizes) {
        for (int rate : rates) {
          rows.add(run(embedder, rate, size, warmup, measure));
          System.out.println(rows.get(rows.size() - 1));
          write(out, rows);
        }
      }
    }
  }

  private static String run(MiniLmEmbedder embedder, int rate, int size, double warmup,
      double measure) throws Exception {
    String prompt = Prompts.ofBytes(size);
    AtomicLong next = new AtomicLong();
    try (SemanticCache cache = SemanticCache.builder(embedder).build()) {
      for (int i = 0; i < 100; i++) {
        cache.store(query("seed " + i + " " + prompt), ANSWER);
      }
      cache.awaitStores(Duration.ofMinutes(5));
      OpenLoop.Request call = (scheduled, firstByte) -> {
        CacheQuery q = query("question " + next.incrementAndGet() + ": " + prompt);
        cache.lookup(q);
        firstByte.recordValue(Math.max(0, System.nanoTime() - scheduled));
        cache.store(q, ANSWER);
      };
      OpenLoop.run(rate, warmup, call);
      long lookups0 = cache.lookups();
      long overload0 = cache.skippedForOverload();
      long deadline0 = cache.skippedForDeadline();
      long runs0 = cache.embedderRuns();
      long texts0 = cache.textsEmbedded();
      OpenLoop.Result r = OpenLoop.run(rate, measure, call);
      long lookups = cache.lookups() - lookups0;
      long overload = cache.skippedForOverload() - overload0;
      long deadline = cache.skippedForDeadline() - deadline0;
      long runs = cache.embedderRuns() - runs0;
      long texts = cache.textsEmbedded() - texts0;
      cache.awaitStores(Duration.ofMinutes(5));
      Histogram h = r.firstByte();
      return String.format(Locale.ROOT, "%d,%d,%d,%.3f,%.3f,%.3f,%d,%d,%.4f,%d,%d,%s", rate,
          size, lookups, h.getValueAtPercentile(50) / 1e6, h.getValueAtPercentile(99) / 1e6,
          h.getMaxValue() / 1e6, overload, deadline,
          lookups == 0 ? 0.0 : (double) (overload + deadline) / lookups, runs, texts,
          loadAverage());
    }
  }

  private static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
  }

  private static List<Integer> ints(String v) {
    List<Integer> out = new ArrayList<>();
    for (String s : v.split(",")) {
      out.add(Integer.parseInt(s.trim()));
    }
    return out;
  }

  private static void write(Path out, List<String> rows) throws IOException {
    Path parent = out.toAbsolutePath().getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Files.write(out, rows);
  }
}
