package io.pointsman.jmh.provider;

import java.io.PrintStream;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import org.HdrHistogram.Histogram;

/**
 * Adapter overhead measured with the arms interleaved: in one JVM, each round makes one raw
 * {@code HttpClient} call and one adapter call to the same loopback fixture, in a random order
 * per round, so both arms see the same machine load at the same moments. JMH runs each arm of
 * {@link AdapterOverheadBenchmark} in its own fork, one after another, and on a shared two-core
 * machine the load can change between forks by more than the difference sought; interleaving
 * removes that term. The arms are the benchmark's own methods on its own setup.
 *
 * <p>Prints, per prompt size and kind (plain, stream), the p50 / p90 / p99 of both arms and the
 * p50 difference. Run: {@code java -cp pointsman-jmh/target/benchmarks.jar
 * io.pointsman.jmh.provider.AdapterInterleaved [rounds] | tee
 * pointsman-jmh/results/provider/adapter-interleaved-run1.txt}
 */
public final class AdapterInterleaved {
  private static final int WARMUP_ROUNDS = 5_000;

  private AdapterInterleaved() {}

  /**
   * Runs the measurement.
   *
   * @param args optional: measured rounds per size and kind (default 10,000)
   * @throws Exception if the fixture cannot be set up
   */
  public static void main(String[] args) throws Exception {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10_000;
    PrintStream out = System.out;
    out.printf(Locale.ROOT, "adapter overhead, arms interleaved in random order per round;"
        + " %d warm-up and %d measured rounds per row; %s, %d cores%n", WARMUP_ROUNDS, rounds,
        System.getProperty("java.vm.version"), Runtime.getRuntime().availableProcessors());
    out.printf(Locale.ROOT, "%-6s %7s | %9s %9s %9s | %9s %9s %9s | %10s%n", "kind", "prompt",
        "raw p50", "p90", "p99", "adapt p50", "p90", "p99", "added p50");
    SplittableRandom random = new SplittableRandom(42);
    for (int size : new int[] {150, 4096, 32768}) {
      AdapterOverheadBenchmark b = new AdapterOverheadBenchmark();
      b.promptBytes = size;
      b.setUp();
      try {
        row(out, "plain", size, rounds, random, b::rawSend, b::adapterSend);
        row(out, "stream", size, rounds, random, b::rawStream, b::adapterStream);
      } finally {
        b.tearDown();
      }
    }
  }

  private static void row(PrintStream out, String kind, int size, int rounds,
      SplittableRandom random, Callable<?> raw, Callable<?> adapter) throws Exception {
    Histogram rawH = new Histogram(3);
    Histogram adaptH = new Histogram(3);
    for (int i = 0; i < WARMUP_ROUNDS + rounds; i++) {
      boolean rawFirst = random.nextBoolean();
      long a = time(rawFirst ? raw : adapter);
      long b = time(rawFirst ? adapter : raw);
      if (i >= WARMUP_ROUNDS) {
        rawH.recordValue(rawFirst ? a : b);
        adaptH.recordValue(rawFirst ? b : a);
      }
    }
    out.printf(Locale.ROOT, "%-6s %7d | %9.1f %9.1f %9.1f | %9.1f %9.1f %9.1f | %10.1f%n", kind,
        size, us(rawH, 50), us(rawH, 90), us(rawH, 99), us(adaptH, 50), us(adaptH, 90),
        us(adaptH, 99), us(adaptH, 50) - us(rawH, 50));
  }

  private static long time(Callable<?> call) throws Exception {
    long t = System.nanoTime();
    Object result = call.call();
    long elapsed = System.nanoTime() - t;
    if (result == null) {
      throw new IllegalStateException("an arm returned nothing");
    }
    return elapsed;
  }

  private static double us(Histogram h, double percentile) {
    return h.getValueAtPercentile(percentile) / 1e3;
  }
}
