package io.pointsman.jmh.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Two arms of one JMH benchmark class compared in separate forks, in rounds ordered A B B A, so
 * that a slow drift of a shared machine's load reaches both arms alike (a single JMH run puts
 * every fork of one arm before the other's). Prints each fork's score and, per value of the
 * size parameter, both medians, their ratio and difference, and each pair's ratio.
 *
 * <p>Run: {@code java -cp pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.report.PairedArms
 * CLASS ARM_A ARM_B PARAM SIZES ROUNDS [output.txt]}, for example {@code
 * io.pointsman.jmh.integrations.SpringAiAdapterBenchmark bareGatewayNoStore springAiCallNoStore
 * promptBytes 150,4096 3 pointsman-jmh/results/integrations/spring-ai.txt}.
 */
public final class PairedArms {

  private PairedArms() {}

  /**
   * Runs the comparison.
   *
   * @param args the benchmark class, arm A, arm B, the size parameter's name, its values
   *     (comma-separated), rounds per value, and optionally a file to write the table to
   * @throws RunnerException if JMH fails
   * @throws IOException if the output cannot be written
   */
  public static void main(String[] args) throws RunnerException, IOException {
    if (args.length < 6) {
      throw new IllegalArgumentException(
          "usage: PairedArms CLASS ARM_A ARM_B PARAM SIZES ROUNDS [output.txt]");
    }
    String text = run(args[0], args[1], args[2], args[3], args[4].split(","),
        Integer.parseInt(args[5]));
    System.out.print(text);
    if (args.length > 6) {
      Files.writeString(Path.of(args[6]), text, StandardCharsets.UTF_8);
    }
  }

  /**
   * Runs the rounds and returns the table.
   *
   * @param benchmark the benchmark class's name
   * @param armA the first arm (the baseline)
   * @param armB the second arm
   * @param param the size parameter's name
   * @param sizes its values
   * @param rounds rounds per value, each A B B A
   * @return the table
   * @throws RunnerException if JMH fails
   */
  public static String run(String benchmark, String armA, String armB, String param,
      String[] sizes, int rounds) throws RunnerException {
    StringBuilder text = new StringBuilder();
    text.append(String.format(Locale.ROOT,
        "%s: %s (A) against %s (B), JMH avgt, 1 fork per arm, 4 x 1 s warm-up, 5 x 1 s"
            + " measured, rounds ordered A B B A; %s, %d cores%n", simple(benchmark), armA,
        armB, System.getProperty("java.vm.version"),
        Runtime.getRuntime().availableProcessors()));
    for (String size : sizes) {
      List<Double> a = new ArrayList<>();
      List<Double> b = new ArrayList<>();
      List<Double> ratios = new ArrayList<>();
      for (int r = 0; r < rounds; r++) {
        double a1 = score(benchmark, armA, param, size);
        double b1 = score(benchmark, armB, param, size);
        double b2 = score(benchmark, armB, param, size);
        double a2 = score(benchmark, armA, param, size);
        a.add(a1);
        a.add(a2);
        b.add(b1);
        b.add(b2);
        ratios.add(b1 / a1);
        ratios.add(b2 / a2);
        text.append(String.format(Locale.ROOT,
            "%s %6s round %d: A %.3f, B %.3f, B %.3f, A %.3f us/op%n", param, size, r + 1, a1,
            b1, b2, a2));
      }
      text.append(String.format(Locale.ROOT,
          "%s %6s: median A %.3f us/op, median B %.3f us/op, B - A %.3f us, B / A %.4f;"
              + " pair ratios %.4f to %.4f (median %.4f, %d pairs)%n",
          param, size, median(a), median(b), median(b) - median(a), median(b) / median(a),
          ratios.stream().mapToDouble(Double::doubleValue).min().orElseThrow(),
          ratios.stream().mapToDouble(Double::doubleValue).max().orElseThrow(),
          median(ratios), ratios.size()));
    }
    return text.toString();
  }

  private static String simple(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }

  private static double score(String benchmark, String arm, String param, String size)
      throws RunnerException {
    Options options = new OptionsBuilder()
        .include(benchmark.replace(".", "\\.") + "\\." + arm + "$")
        .param(param, size)
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
}
