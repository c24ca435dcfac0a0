package io.pointsman.jmh.cache;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import io.pointsman.CacheControl;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.cache.semantic.MiniLmEmbedder;
import io.pointsman.cache.semantic.SemanticCache;
import io.pointsman.jmh.Prompts;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Embeddings per second with concurrent callers (run once per {@code -t}: 1, 2 and 8), a new
 * text every call, three arms over the same quantized model file in one run:
 * {@code batched} (a {@link SemanticCache} lookup: the caller waits while the cache's
 * embedding thread embeds every waiting text in one run, up to 8; deadline and queue set out of
 * reach so every call is embedded), {@code direct} ({@link MiniLmEmbedder#embed} on the
 * caller's thread, the callers sharing one session) and {@code langchain4j}
 * ({@code AllMiniLmL6V2QuantizedEmbeddingModel.embed} on the caller's thread).
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * for t in 1 2 8; do java -jar pointsman-jmh/target/benchmarks.jar EmbeddingThroughputBenchmark \
 *     -t $t -wi 1 -w 3s -i 2 -r 4s -f 1 -rf json \
 *     -rff pointsman-jmh/results/cache/embedding-throughput-t$t.json; done
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class EmbeddingThroughputBenchmark {
  private static final ChatResponse ANSWER = Json.readResponse(("{\"id\":\"c\",\"object\":"
      + "\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
      + "\"message\":{\"role\":\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
      .getBytes(StandardCharsets.UTF_8));
  private static final Identity IDENTITY = new Identity("key", "user", "team", "org", Set.of(),
      Grant.all(), Grant.all(), Grant.all());
  private static final ResolvedModel MODEL = new ResolvedModel(ModelSpec.builder("m").build(),
      100, false, 100);

  @Param({"batched", "direct", "langchain4j"})
  public String arm;

  @Param({"150", "4096"})
  public int bytes;

  private final AtomicLong next = new AtomicLong();
  private String prompt;
  private MiniLmEmbedder ours;
  private SemanticCache cache;
  private EmbeddingModel theirs;

  @Setup
  public void setup() throws InterruptedException {
    prompt = Prompts.ofBytes(bytes);
    if (arm.equals("langchain4j")) {
      theirs = new AllMiniLmL6V2QuantizedEmbeddingModel();
      return;
    }
    ours = MiniLmEmbedder.builder().build();
    if (arm.equals("batched")) {
      cache = SemanticCache.builder(ours).lookupDeadline(Duration.ofMinutes(1))
          .embeddingQueueCapacity(1_000).build();
      cache.store(query("seed"), ANSWER); // a scope to search, so that lookups embed
      cache.awaitStores(Duration.ofMinutes(1));
    }
  }

  private static CacheQuery query(String text) {
    return new CacheQuery(IDENTITY, MODEL, ChatRequest.builder().model("m").temperature(0.0)
        .addMessage(Message.user(text)).build(), CacheControl.DEFAULT);
  }

  @TearDown
  public void tearDown() {
    if (cache != null) {
      cache.close();
    }
    if (ours != null) {
      ours.close();
    }
  }

  private String text() {
    return next.incrementAndGet() + " " + prompt;
  }

  @Benchmark
  public Object embed() {
    return switch (arm) {
      case "batched" -> {
        CacheLookup found = cache.lookup(query(text()));
        if (found.status().outcome() == io.pointsman.CacheOutcome.SKIPPED) {
          throw new IllegalStateException("skipped: " + found.status());
        }
        yield found;
      }
      case "direct" -> ours.embed(text());
      default -> theirs.embed(text()).content().vector();
    };
  }
}
