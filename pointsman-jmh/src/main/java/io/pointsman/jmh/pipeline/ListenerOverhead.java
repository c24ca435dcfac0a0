package io.pointsman.jmh.pipeline;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * What a per-call listener that does nothing costs on the pipeline: the JMH arms
 * {@code gatewayProviderNoStore} (no listener) and {@code gatewayProviderNoStoreNoOpListener}
 * (a {@code CallListener} told every event) of {@link GatewayPipelineBenchmark}, each in its
 * own fork, in rounds ordered A B B A, so that a slow drift of the machine's load reaches both
 * arms alike. A single JMH run puts all forks of one arm before the other's, and on a shared
 * two-core machine the load can move by more than the 5% sought between them.
 *
 * <p>Prints each fork's score and, per prompt size, the ratio of the arms' medians and of each
 * round's pair (listener / none). Run, with nothing else running:
 * {@code java -cp pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.pipeline.ListenerOverhead
 * [rounds] [output.txt]}
 */
public final class ListenerOverhead {
  private static final String NONE = "gatewayProviderNoStore";
  private static final String LISTENER = "gatewayProviderNoStoreNoOpListener";

  private ListenerOverhead() {}

  /**
   * Runs the rounds and prints (and optionally writes) the table.
   *
   * @param args optional: rounds per size (default 4; each round is A B B A, four forks), and
   *     a file to write the table to
   * @throws RunnerException if JMH fails
   * @throws IOException if the output file cannot be written
   */
  public static void main(String[] args) throws RunnerException, IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT,
        "no-op listener overhead on GatewayPipelineBenchmark (JMH avgt, 1 fork per arm, 4 x 1 s"
            + " warm-up, 5 x 1 s measured), rounds ordered A B B A; %s, %d cores%n",
        System.getProperty("java.vm.version"), Runtime.getRuntime().availableProcessors()));
    for (int size : new int[] {150, 4096}) {
      List<Double> none = new ArrayList<>();
      List<Double> listener = new ArrayList<>();
      List<Double> pairRatios = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        double a1 = score(NONE, size);
        double b1 = score(LISTENER, size);
        double b2 = score(LISTENER, size);
        double a2 = score(NONE, size);
        none.add(a1);
        none.add(a2);
        listener.add(b1);
        listener.add(b2);
        pairRatios.add(b1 / a1);
        pairRatios.add(b2 / a2);
        text.append(String.format(Locale.ROOT,
            "size %5d round %d: none %.3f, listener %.3f, listener %.3f, none %.3f us/op%n",
            size, r + 1, a1, b1, b2, a2));
      }
      text.append(String.format(Locale.ROOT,
          "size %5d: median none %.3f us/op, median listener %.3f us/op, ratio of medians %.4f;"
              + " median pair ratio %.4f (min %.4f, max %.4f, %d pairs)%n",
          size, median(none), median(listener), median(listener) / median(none),
          median(pairRatios), min(pairRatios), max(pairRatios), pairRatios.size()));
    }
    PrintStream out = System.out;
    out.print(text);
    if (args.length > 1) {
      Files.writeString(Path.of(args[1]), text, StandardCharsets.UTF_8);
    }
  }

  private static double score(String arm, int size) throws RunnerException {
    Options options = new OptionsBuilder()
        .include(GatewayPipelineBenchmark.class.getName() + "\\." + arm + "$")
        .param("promptBytes", Integer.toString(size))
        .forks(1)
        .warmupIterations(4)
        .warmupTime(TimeValue.seconds(1))
        .measurementIterations(5)
        .measurementTime(TimeValue.seconds(1))
        .shouldFailOnError(true)
        .build();
    RunResult result = new Runner(options).runSingle();
    return result.getPrimaryResult().getScore();
  }

  private static double median(List<Double> values) {
    double[] v = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
  }

  private static double min(List<Double> values) {
    return Arrays.stream(values.stream().mapToDouble(Double::doubleValue).toArray()).min()
        .orElseThrow();
  }

  private static double max(List<Double> values) {
    return Arrays.stream(values.stream().mapToDouble(Double::doubleValue).toArray()).max()
        .orElseThrow();
  }
}
