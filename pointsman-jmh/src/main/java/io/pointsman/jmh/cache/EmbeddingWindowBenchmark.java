package io.pointsman.jmh.cache;

import io.pointsman.cache.semantic.MiniLmEmbedder;
import io.pointsman.jmh.Prompts;
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
 * What one embedding of a long prompt costs as the token window grows: a 4 KiB prompt (far
 * longer than any window, so every call runs the full window) embedded by {@link MiniLmEmbedder}
 * with 32 to 256 tokens and 1 or 2 intra-op threads. It says how large a window fits in the
 * semantic layer's lookup deadline on a given machine.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar EmbeddingWindowBenchmark -wi 2 -w 2s -i 3 -r 2s \
 *     -f 1 -rf json -rff pointsman-jmh/results/cache/embedding-window.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class EmbeddingWindowBenchmark {
  @Param({"32", "64", "128", "256"})
  public int window;

  @Param({"1", "2"})
  public int threads;

  private MiniLmEmbedder embedder;
  private String prompt;
  private long n;

  @Setup
  public void setup() {
    embedder = MiniLmEmbedder.builder().window(window).intraOpThreads(threads).build();
    prompt = Prompts.ofBytes(4096);
  }

  @TearDown
  public void tearDown() {
    embedder.close();
  }

  @Benchmark
  public float[] embedLongPrompt() {
    // A new leading word each call, as new questions are.
    return embedder.embed("q" + (n++) + " " + prompt);
  }
}
