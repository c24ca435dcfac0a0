package io.pointsman.jmh.cache;

import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import io.pointsman.cache.semantic.MiniLmEmbedder;
import java.util.concurrent.TimeUnit;
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
 * Embedding one short prompt (9 word pieces) with Pointsman's {@link MiniLmEmbedder} and with
 * langchain4j's {@code AllMiniLmL6V2QuantizedEmbeddingModel}, side by side in one run, same
 * quantized model file. Sample mode, so the JSON carries p50 and p99 per arm.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar EmbeddingBenchmark -wi 2 -w 3s -i 3 -r 3s -f 1 \
 *     -rf json -rff pointsman-jmh/results/cache/embedding.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EmbeddingBenchmark {
  static final String PROMPT = "How do I reverse a list in Python?";

  @Param({"pointsman", "langchain4j"})
  public String arm;

  private MiniLmEmbedder ours;
  private EmbeddingModel theirs;

  @Setup
  public void setup() {
    if (arm.equals("pointsman")) {
      ours = MiniLmEmbedder.builder().build();
    } else {
      theirs = new AllMiniLmL6V2QuantizedEmbeddingModel();
    }
  }

  @TearDown
  public void tearDown() {
    if (ours != null) {
      ours.close();
    }
  }

  @Benchmark
  public float[] embedShortPrompt() {
    return ours != null ? ours.embed(PROMPT) : theirs.embed(PROMPT).content().vector();
  }
}
