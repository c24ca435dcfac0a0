package io.pointsman.jmh.cache;

import io.pointsman.CacheControl;
import io.pointsman.cache.InMemoryExactCache;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.Grant;
import io.pointsman.spi.Identity;
import io.pointsman.spi.ResolvedModel;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Exact-hit lookup: the Caffeine L1 ({@code caffeineHit}, key hashing included), core's
 * in-memory default ({@code coreHit}), the canonical key alone ({@code keyOnly}) and a baseline
 * that returns the query. Prompt sizes 150 B, 4 KiB and 32 KiB; 1,000 entries held.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar ExactCacheBenchmark -wi 2 -w 2s -i 3 -r 2s -f 1 \
 *     -rf json -rff pointsman-jmh/results/cache/exact.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class ExactCacheBenchmark {
  @Param({"150", "4096", "32768"})
  public int promptBytes;

  private CaffeineExactCache caffeine;
  private InMemoryExactCache core;
  private CacheQuery query;

  @Setup
  public void setup() {
    caffeine = CaffeineExactCache.builder().maximumSize(10_000).build();
    core = InMemoryExactCache.ofDefaults(io.pointsman.Clock.system());
    ChatResponse response = Json.readResponse(("{\"id\":\"c\",\"object\":\"chat.completion\","
        + "\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"message\":{\"role\":"
        + "\"assistant\",\"content\":\"ok\"},\"finish_reason\":\"stop\"}]}")
        .getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < 1_000; i++) {
      CacheQuery q = query(prompt(promptBytes, i));
      caffeine.store(q, response);
      core.store(q, response);
    }
    query = query(prompt(promptBytes, 500));
  }

  private static String prompt(int bytes, int salt) {
    StringBuilder sb = new StringBuilder("Question " + salt + ": ");
    while (sb.length() < bytes) {
      sb.append("explain the cache key of a canonical request ");
    }
    return sb.substring(0, bytes);
  }

  private static CacheQuery query(String prompt) {
    Identity id = new Identity("k", "u", "team", "org", Set.of(), Grant.all(), Grant.all(),
        Grant.all());
    ChatRequest request = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.user(prompt)).temperature(0.0).build();
    return new CacheQuery(id, new ResolvedModel(ModelSpec.builder("gpt-4o-mini").build(), 10,
        false, 10), request, CacheControl.DEFAULT);
  }

  @Benchmark
  public CacheQuery baseline() {
    return query;
  }

  @Benchmark
  public ByteBuffer keyOnly() {
    return InMemoryExactCache.key(query);
  }

  @Benchmark
  public CacheLookup caffeineHit() {
    return caffeine.lookup(query);
  }

  @Benchmark
  public CacheLookup coreHit() {
    return core.lookup(query);
  }
}
