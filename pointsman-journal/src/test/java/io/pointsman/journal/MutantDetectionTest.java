package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Proves the crash simulation has teeth: for each deliberately broken journal, some seed of the
 * same scenario the real journal passes must report a violated invariant.
 */
class MutantDetectionTest {
  private static final int MAX_SEEDS = 2_000;

  @ParameterizedTest
  @EnumSource(value = CrashScenario.Mutant.class, names = {"SKIP_FORCE", "SKIP_DIRECTORY_SYNC",
      "ACKNOWLEDGE_BEFORE_FORCE"})
  void crashSimulationDetectsTheMutant(CrashScenario.Mutant mutant) {
    String detection = null;
    for (long seed = 0; seed < MAX_SEEDS && detection == null; seed++) {
      detection = CrashScenario.run(seed, mutant);
    }
    System.out.println(mutant + " detected: " + detection);
    assertThat(detection)
        .as("a journal with mutant %s must break an invariant within %d seeds", mutant, MAX_SEEDS)
        .isNotNull()
        .contains("mutant " + mutant);
  }
}
