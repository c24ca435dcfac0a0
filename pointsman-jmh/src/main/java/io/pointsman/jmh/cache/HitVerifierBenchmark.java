package io.pointsman.jmh.cache;

import io.pointsman.cache.semantic.AlignmentVerifier;
import io.pointsman.cache.semantic.HitVerifier;
import io.pointsman.cache.semantic.LexicalVerifier;
import io.pointsman.cache.semantic.Verdict;
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
 * One hit verification, the step a semantic lookup runs on the request thread for each of up
 * to five candidates at or above the threshold: the default {@link AlignmentVerifier} against
 * the earlier {@link LexicalVerifier}, on a short paraphrase and on a 4 KiB prompt that differs
 * in its last sentence. {@code fiveCandidates} and {@code fiveCandidatesBound} compare one
 * query with five cached texts as a lookup with five candidates does, calling {@link
 * HitVerifier#verify} for each, and through one {@link HitVerifier#bind} of the query (what
 * {@code SemanticCache} does), which prepares the query once.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar HitVerifierBenchmark -wi 2 -w 2s -i 3 -r 2s -f 1 \
 *     -rf json -rff pointsman-jmh/results/cache/verifier.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class HitVerifierBenchmark {
  @Param({"alignment", "lexical"})
  public String verifier;

  @Param({"short", "4KiB"})
  public String size;

  private HitVerifier rules;
  private String query;
  private String cached;
  private String[] candidates;

  @Setup
  public void setup() {
    rules = verifier.equals("alignment") ? AlignmentVerifier.standard()
        : LexicalVerifier.standard();
    if (size.equals("short")) {
      query = "Hi! Could you tell me how to reverse a list in Python? Thanks!";
      cached = "How do I reverse a list in Python?";
      candidates = new String[] {cached, "How do I sort a list in Python?",
          "How do I reverse a string in Python?", "How do I reverse a list in Java?",
          "How do I reverse a linked list in Python?"};
    } else {
      StringBuilder context = new StringBuilder();
      int i = 0;
      while (context.length() < 4_000) {
        context.append("Service ").append(i++).append(" writes its logs to the shared bucket ")
            .append("and rotates them every night. ");
      }
      query = context + "How do we cut the cost of logging?";
      cached = context + "How do we cut the cost of tracing?";
      candidates = new String[5];
      String[] last = {"tracing?", "metrics?", "storage?", "alerting?", "backups?"};
      for (int k = 0; k < 5; k++) {
        candidates[k] = context + "How do we cut the cost of " + last[k];
      }
    }
  }

  @Benchmark
  public Verdict verify() {
    return rules.verify(query, cached);
  }

  /**
   * Compares the query with five candidates, one verify call each.
   *
   * @return the last verdict
   */
  @Benchmark
  public Verdict fiveCandidates() {
    Verdict v = null;
    for (String c : candidates) {
      v = rules.verify(query, c);
    }
    return v;
  }

  /**
   * Compares the query with five candidates through one binding of the query.
   *
   * @return the last verdict
   */
  @Benchmark
  public Verdict fiveCandidatesBound() {
    HitVerifier.Query bound = rules.bind(query);
    Verdict v = null;
    for (String c : candidates) {
      v = bound.verify(c);
    }
    return v;
  }
}
