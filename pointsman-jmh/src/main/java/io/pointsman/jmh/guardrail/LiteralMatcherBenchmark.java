package io.pointsman.jmh.guardrail;

import io.pointsman.guardrail.LiteralMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
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
 * The blocked-pattern literal matcher (Aho–Corasick, case-insensitive, whole words) over 4 KiB
 * of prose with 10 and with 10,000 literals: two-to-four word phrases whose first word comes from
 * the text's own vocabulary (so the automaton walks into them at most words) and whose other
 * words are made-up codenames, plus one phrase that occurs about every 200 words. Goal: the
 * 10,000-literal figure within 2× of the 10-literal one. The {@code baseline} reads every
 * character once, the floor any scan pays.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -jar pointsman-jmh/target/benchmarks.jar LiteralMatcherBenchmark -wi 2 -i 3 -r 1s -f 1 \
 *     -rf json -rff pointsman-jmh/results/guardrail/literal-matcher.json
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class LiteralMatcherBenchmark {
  private static final String[] VOCABULARY = {
    "the", "build", "token", "request", "summary", "project", "release", "customer", "invoice",
    "meeting", "error", "status", "report", "server", "policy", "weekly", "budget", "review",
    "draft", "launch", "north", "blue", "delta", "orion", "falcon", "harbor", "quartz", "cedar",
    "ember", "atlas", "nova", "vertex", "prism", "summit", "lumen", "cobalt", "zephyr", "onyx",
    "willow", "granite"
  };

  private static final String[] SYLLABLES = {
    "ka", "ro", "mi", "tel", "van", "dor", "ix", "la", "pet", "zu", "ner", "sol", "qua", "bri"
  };

  @Param({"10", "10000"})
  public int literals;

  private LiteralMatcher matcher;
  private String text;

  /** Builds the matcher and the text once per trial. */
  @Setup
  public void setUp() {
    Random random = new Random(11);
    List<String> phrases = new ArrayList<>();
    phrases.add("project falcon launch");
    while (phrases.size() < literals) {
      int words = 2 + random.nextInt(3);
      StringBuilder p = new StringBuilder();
      p.append(VOCABULARY[random.nextInt(VOCABULARY.length)]);
      for (int i = 1; i < words; i++) {
        p.append(' ');
        for (int k = 0; k < 2 + random.nextInt(3); k++) {
          p.append(SYLLABLES[random.nextInt(SYLLABLES.length)]);
        }
      }
      phrases.add(p.toString());
    }
    matcher = LiteralMatcher.builder().caseInsensitive(true).wholeWords(true).addAll(phrases)
        .build();
    StringBuilder sb = new StringBuilder();
    while (sb.length() < 4096) {
      sb.append(VOCABULARY[random.nextInt(VOCABULARY.length)]).append(' ');
      if (random.nextInt(200) == 0) {
        sb.append("Project Falcon launch ");
      }
    }
    text = sb.substring(0, 4096);
  }

  /**
   * Counts every match.
   *
   * @return the number of matches
   */
  @Benchmark
  public int find() {
    int[] count = {0};
    matcher.find(text, (literal, start, end) -> {
      count[0]++;
      return true;
    });
    return count[0];
  }

  /**
   * Reads every character once.
   *
   * @return a value depending on every character
   */
  @Benchmark
  public int baseline() {
    int sum = 0;
    for (int i = 0; i < text.length(); i++) {
      sum += text.charAt(i);
    }
    return sum;
  }
}
