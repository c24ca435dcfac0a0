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
 * ... -Dpointsman.sim.violations=/path/to/all.txt                      # list every violation
 * </pre>
 */
class SimulationTest {
  /** How often a run with a report file writes its summary so far. */
  private static final long CHECKPOINT = 5_000;

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
    try {
      runSeeds(one, first, count, options, where);
    } finally {
      removeIfCreated(where, root);
    }
  }

  private static void runSeeds(String one, long first, long count, Simulation.Options options,
      Path where) throws IOException {
    Summary summary = new Summary();
    long started = System.nanoTime();
    String listFile = System.getProperty("pointsman.sim.violations");
    StringBuilder all = new StringBuilder();
    String file = System.getProperty("pointsman.sim.report");
    for (long seed = first; seed < first + count; seed++) {
      Simulation.Result r = Simulation.run(seed, options, where);
      summary.add(r);
      if (listFile != null) {
        r.violations().forEach(v -> all.append(v).append('\n'));
      }
      long done = seed - first + 1;
      if (file != null && done % CHECKPOINT == 0 && done < count) {
        // A long run that has to be stopped still leaves its summary so far.
        Files.writeString(Path.of(file), "partial: " + done + " of " + count + " seeds\n"
            + summary.render(first, (System.nanoTime() - started) / 1e9));
      }
    }
    if (listFile != null) {
      Files.writeString(Path.of(listFile), all);
    }
    String report = summary.render(first, (System.nanoTime() - started) / 1e9);
    System.out.println(report);
    if (file != null) {
      Files.writeString(Path.of(file), report);
    }
    assertThat(summary.failedSeeds())
        .as("seeds that broke an invariant; first violations:%n%s%n%s",
            summary.first().stream().map(v -> v + "\n  replay: " + Summary.replay(v.seed()))
                .collect(Collectors.joining("\n")), report)
        .isZero();
  }

  /**
   * A seed replays exactly: two runs of the same seeds break the same invariants at the same
   * steps and do the same work.
   */
  @Test
  void aSeedReplaysExactly(@TempDir Path root) throws IOException {
    Path where = journalRoot(root);
    try {
      for (long seed = 0; seed < 40; seed++) {
        Simulation.Result a = Simulation.run(seed, Simulation.Options.standard(), where);
        Simulation.Result b = Simulation.run(seed, Simulation.Options.standard(), where);
        assertThat(fingerprint(b)).as("seed %d replayed", seed).isEqualTo(fingerprint(a));
      }
    } finally {
      removeIfCreated(where, root);
    }
  }

  private static String fingerprint(Simulation.Result r) {
    StringBuilder b = new StringBuilder(r.profile().toString());
    b.append(" calls ").append(r.stats().calls).append(" sends ").append(r.stats().sends)
        .append(" restarts ").append(r.stats().restarts).append(' ')
        .append(r.stats().outcomes).append(' ').append(r.stats().tags);
    // Event ids are random UUIDs; everything else about a violation must repeat.
    r.violations().forEach(v -> b.append('\n').append(v.step()).append(' ')
        .append(v.invariant()).append(' ').append(v.tags()).append(' ')
        .append(v.detail().replaceAll("[0-9a-f]{8}-[0-9a-f-]{27}", "<id>")));
    return b.toString();
  }

  static void removeIfCreated(Path where, Path fallback) throws IOException {
    if (where.equals(fallback) || System.getProperty("pointsman.sim.dir") != null) {
      return;
    }
    try (var files = Files.walk(where)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
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
