package io.pointsman.examples.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole-gateway deterministic simulation (see {@link Simulation} and docs/simulation.md).
 * The normal build runs 1,000 seeds; the long mode runs {@code -Dpointsman.sim.seeds=100000}.
 *
 * <pre>
 * mvn -B -ntp -pl pointsman-examples -am test -Dtest=SimulationTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false                         # 1,000 seeds
 * ... -Dpointsman.sim.seeds=100000                                    # long mode
 * ... -Dpointsman.sim.seed=123                                        # replay one seed, traced
 * ... -Dpointsman.sim.seedBase=5000                                   # start elsewhere
 * ... -Dpointsman.sim.faults=UNKNOWN_OUTCOME,RESTART                  # only these fault classes
 * ... -Dpointsman.sim.singleChoice=true                               # no n &gt; 1 requests
 * ... -Dpointsman.sim.report=/path/to/report.txt                      # write the summary
 * </pre>
 */
class SimulationTest {

  @Test
  void everySeedKeepsTheAccountingInvariants(@TempDir Path root) throws IOException {
    String one = System.getProperty("pointsman.sim.seed");
    long first = one != null ? Long.parseLong(one) : Long.getLong("pointsman.sim.seedBase", 0);
    long count = one != null ? 1 : Long.getLong("pointsman.sim.seeds", 1_000);
    Set<Fault> faults = Fault.parse(System.getProperty("pointsman.sim.faults"));
    Simulation.Options options = new Simulation.Options(Mutant.NONE, faults,
        !Boolean.getBoolean("pointsman.sim.singleChoice"),
        one != null || Boolean.getBoolean("pointsman.sim.trace"));
    Path where = journalRoot(root);
    Summary summary = new Summary();
    long started = System.nanoTime();
    for (long seed = first; seed < first + count; seed++) {
      summary.add(Simulation.run(seed, options, where));
    }
    String report = summary.render(first, (System.nanoTime() - started) / 1e9);
    System.out.println(report);
    String file = System.getProperty("pointsman.sim.report");
    if (file != null) {
      Files.writeString(Path.of(file), report);
    }
    assertThat(summary.failedSeeds())
        .as("seeds that broke an invariant; first violations:%n%s%n%s",
            summary.first().stream().map(v -> v + "\n  replay: " + Summary.REPLAY + v.seed())
                .collect(Collectors.joining("\n")), report)
        .isZero();
  }

  /**
   * Where the seeds' journals live: {@code -Dpointsman.sim.dir}, else a memory file system
   * when the machine has one (the journal's fsyncs are then cheap; what a power loss does to
   * them is the journal's own crash simulation's subject, not this one's), else the test's
   * temporary directory.
   */
  static Path journalRoot(Path fallback) throws IOException {
    String dir = System.getProperty("pointsman.sim.dir");
    if (dir != null) {
      return Files.createDirectories(Path.of(dir));
    }
    Path shm = Path.of("/dev/shm");
    if (Files.isDirectory(shm) && Files.isWritable(shm)) {
      return Files.createTempDirectory(shm, "pointsman-sim-");
    }
    return fallback;
  }
}
