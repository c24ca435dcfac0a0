package io.pointsman.jmh.pipeline;

import io.pointsman.jmh.report.PairedArms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.openjdk.jmh.runner.RunnerException;

/**
 * What a per-call listener that does nothing costs on the pipeline: the JMH arms
 * {@code gatewayProviderNoStore} (no listener, A) and {@code gatewayProviderNoStoreNoOpListener}
 * (a {@code CallListener} told every event, B) of {@link GatewayPipelineBenchmark} at 150 B and
 * 4 KiB, compared by {@link PairedArms} in forks ordered A B B A.
 *
 * <p>Run, with nothing else running:
 * {@code java -cp pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.pipeline.ListenerOverhead
 * [rounds] [output.txt]}
 */
public final class ListenerOverhead {

  private ListenerOverhead() {}

  /**
   * Runs the rounds and prints (and optionally writes) the table.
   *
   * @param args optional: rounds per size (default 4), and a file to write the table to
   * @throws RunnerException if JMH fails
   * @throws IOException if the output file cannot be written
   */
  public static void main(String[] args) throws RunnerException, IOException {
    int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 4;
    String text = PairedArms.run(GatewayPipelineBenchmark.class.getName(),
        "gatewayProviderNoStore", "gatewayProviderNoStoreNoOpListener", "promptBytes",
        new String[] {"150", "4096"}, rounds);
    System.out.print(text);
    if (args.length > 1) {
      Files.writeString(Path.of(args[1]), text, StandardCharsets.UTF_8);
    }
  }
}
