package io.pointsman.examples.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Proves the simulation has teeth: for each deliberately broken accounting seam (a wrapper
 * limiter or accounting in test code, see {@link Mutant}), some seed on which the real
 * components keep every invariant must report a violation when the mutant is in place. The
 * seeds run without injected faults and without n &gt; 1 requests, so that the baseline holds
 * on the current code whatever the fault classes still find.
 *
 * <p>{@link Mutant#EXTEND_WITHOUT_HOLD} needs a retry after an unknown outcome to call
 * {@code Reservation.extend}, so its seeds run with the one fault class that makes one
 * ({@link Fault#UNKNOWN_OUTCOME}); the baseline must hold on those seeds too.
 */
class SimulationMutantTest {
  private static final int MAX_SEEDS = 200;

  @ParameterizedTest
  @EnumSource(value = Mutant.class, names = {"RELEASE_INSTEAD_OF_SETTLE", "LEAK_HOLD_ON_RELEASE",
      "EXTEND_WITHOUT_HOLD", "DROP_FAILED_RECORD", "SKIP_DISPATCH_INTENT", "UNDERCHARGE_RECORD"})
  void theSimulationCatchesTheMutant(Mutant mutant, @TempDir Path temp) throws IOException {
    Path root = SimulationTest.journalRoot(temp);
    try {
      catchMutant(mutant, root);
    } finally {
      SimulationTest.removeIfCreated(root, temp);
    }
  }

  private static void catchMutant(Mutant mutant, Path root) {
    EnumSet<Fault> faults = mutant == Mutant.EXTEND_WITHOUT_HOLD
        ? EnumSet.of(Fault.UNKNOWN_OUTCOME) : EnumSet.noneOf(Fault.class);
    Simulation.Options real = new Simulation.Options(Mutant.NONE, faults, false, false);
    Simulation.Options broken = new Simulation.Options(mutant, faults, false, false);
    Simulation.Violation caught = null;
    int baselinesPassed = 0;
    for (long seed = 0; seed < MAX_SEEDS && caught == null; seed++) {
      if (!Simulation.run(seed, real, root).violations().isEmpty()) {
        continue;
      }
      baselinesPassed++;
      Simulation.Result r = Simulation.run(seed, broken, root);
      if (!r.violations().isEmpty()) {
        caught = r.violations().get(0);
      }
    }
    System.out.println(mutant + " caught: " + caught);
    assertThat(baselinesPassed).as("seeds the real components pass").isPositive();
    assertThat(caught).as("a violation with mutant %s within %d seeds", mutant, MAX_SEEDS)
        .isNotNull();
  }
}
