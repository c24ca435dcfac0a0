package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Seeded power-loss simulation. The normal build runs 1,000 seeds; {@code -Djournal.seeds=N}
 * runs N (the long mode uses 100,000), {@code -Djournal.seedBase=B} starts at B, and {@code
 * -Djournal.seed=S} replays one seed alone.
 *
 * <pre>
 * mvn -B -pl pointsman-journal test -Dtest=CrashSimulationTest -Djournal.seeds=100000
 * mvn -B -pl pointsman-journal test -Dtest=CrashSimulationTest -Djournal.seed=4242
 * </pre>
 */
class CrashSimulationTest {

  @Test
  void everyAcknowledgedAppendSurvivesRandomPowerLossAndRecoveryIsRepeatable() {
    String single = System.getProperty("journal.seed");
    long base = Long.getLong("journal.seedBase", 0);
    long count = single != null ? 1 : Long.getLong("journal.seeds", 1_000);
    long first = single != null ? Long.parseLong(single) : base;
    List<String> failures = new ArrayList<>();
    long started = System.nanoTime();
    for (long seed = first; seed < first + count; seed++) {
      String failure = CrashScenario.run(seed, CrashScenario.Mutant.NONE);
      if (failure != null) {
        failures.add(failure);
        if (failures.size() >= 10) {
          break;
        }
      }
    }
    System.out.printf("crash simulation: %d seeds from %d in %.1f s, %d failures%n", count, first,
        (System.nanoTime() - started) / 1e9, failures.size());
    assertThat(failures).as("seeds whose recovered state broke an invariant").isEmpty();
  }
}
