package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Power loss after every single I/O step of a small workload, enumerated rather than sampled.
 * The workload is serial and waits for the I/O thread to go idle after every call, so step k is
 * the same operation in every run. It opens a fresh journal, fills several segments, marks the
 * records of the oldest ones delivered so that they are deleted, and keeps appending. It runs
 * twice: with no mark linger (each batch of marks forced on its own, the workload waiting for
 * it) and with an hour's linger (the marks held until the next append's write and force carry
 * them; the workload does not wait for them), so that a power loss also falls between the write
 * of held marks and the force they share with an append.
 */
class EveryStepCrashTest {
  private static final int VARIANTS = 6;

  @ParameterizedTest(name = "mark linger {0}")
  @ValueSource(booleans = {false, true})
  void everyAcknowledgedAppendSurvivesPowerLossAfterEveryIoStep(boolean linger) throws Exception {
    CrashSimulatingJournalIO reference = new CrashSimulatingJournalIO().tracing();
    Outcome uncrashed = runWorkload(reference, linger);
    int steps = (int) reference.operations();
    CrashSimulatingJournalIO replay = new CrashSimulatingJournalIO().tracing();
    runWorkload(replay, linger);
    assertThat(replay.trace()).as("the workload issues the same I/O steps on every run")
        .isEqualTo(reference.trace());
    assertThat(uncrashed.metrics.segmentsCreated()).as("the workload rotates segments")
        .isGreaterThanOrEqualTo(3);
    assertThat(uncrashed.metrics.segmentsDeleted()).as("the workload reclaims a segment")
        .isGreaterThanOrEqualTo(1);
    assertThat(uncrashed.metrics.markOnlyForces())
        .as(linger ? "the marks shared the appends' forces" : "each batch of marks forced alone")
        .isEqualTo(linger ? 0 : 2);

    List<String> failures = new ArrayList<>();
    int checks = 0;
    for (int step = 0; step <= steps; step++) {
      for (int variant = 0; variant < VARIANTS; variant++) {
        String failure = crashAfter(step, variant, reference.trace(), linger);
        checks++;
        if (failure != null) {
          failures.add(failure);
        }
      }
    }
    System.out.printf("every-step crash: %d steps, %d crash images checked%n", steps + 1, checks);
    assertThat(failures).as("crash points whose recovery broke an invariant").isEmpty();
  }

  private static final class Outcome {
    final JournalModel model = new JournalModel();
    JournalMetrics metrics;
  }

  /**
   * The enumeration has teeth for the mark linger: a journal that applies held marks (and so
   * deletes a fully marked segment) before a force covers them loses records at some crash
   * point, the one between the append's write that carries the marks and its force.
   */
  @Test
  void theEnumerationCatchesAJournalThatReclaimsBeforeTheMarksAreForced() throws Exception {
    CrashSimulatingJournalIO reference = new CrashSimulatingJournalIO().tracing();
    runWorkload(reference, true, SegmentedJournal.Defect.RECLAIM_BEFORE_MARK_FORCE);
    int steps = (int) reference.operations();
    String caught = null;
    for (int step = 0; step <= steps && caught == null; step++) {
      for (int variant = 0; variant < VARIANTS && caught == null; variant++) {
        caught = crashAfter(step, variant, reference.trace(), true,
            SegmentedJournal.Defect.RECLAIM_BEFORE_MARK_FORCE);
      }
    }
    System.out.println("RECLAIM_BEFORE_MARK_FORCE caught: " + caught);
    assertThat(caught).as("a crash point where the early reclamation loses records").isNotNull()
        .contains("was not recovered");
  }

  private static SegmentedJournal open(CrashSimulatingJournalIO io, boolean linger) {
    return open(io, linger, SegmentedJournal.Defect.NONE);
  }

  private static SegmentedJournal open(CrashSimulatingJournalIO io, boolean linger,
      SegmentedJournal.Defect defect) {
    return SegmentedJournal.open(JournalConfig.builder(CrashScenario.DIRECTORY)
        .io(io)
        .segmentBytes(1024)
        .preallocationChunkBytes(512)
        .markLinger(linger ? Duration.ofHours(1) : Duration.ZERO)
        // Steps in one fixed order: the preparation runs on the I/O thread.
        .backgroundPreparation(false)
        .build(), defect);
  }

  /** Runs the workload until it completes or the simulated machine stops. */
  private static Outcome runWorkload(CrashSimulatingJournalIO io, boolean linger)
      throws InterruptedException {
    return runWorkload(io, linger, SegmentedJournal.Defect.NONE);
  }

  private static Outcome runWorkload(CrashSimulatingJournalIO io, boolean linger,
      SegmentedJournal.Defect defect) throws InterruptedException {
    Outcome outcome = new Outcome();
    Random random = new Random(7);
    SegmentedJournal journal;
    try {
      journal = open(io, linger, defect);
    } catch (RuntimeException crashedDuringOpen) {
      return outcome;
    }
    List<long[]> heldMarks = new ArrayList<>();
    List<CompletableFuture<Void>> heldFutures = new ArrayList<>();
    try {
      journal.awaitQuiescent();
      for (int i = 0; i < 24; i++) {
        CompletableFuture<?> future;
        long[] marks = null;
        if (i == 12 || i == 20) {
          marks = outcome.model.pickForMark(random, 12);
          CompletableFuture<Void> mark = journal.markDelivered(marks);
          future = mark;
          if (linger) {
            // Held until the next append: acknowledged once its future completes.
            heldMarks.add(marks);
            heldFutures.add(mark);
            future = null;
          }
        } else if (i % 5 == 4) {
          List<JournalModel.Append> unit = outcome.model.newUnit(random, 2, 120);
          List<JournalEntry> entries = new ArrayList<>();
          unit.forEach(a -> entries.add(JournalEntry.of(a.type, a.payload)));
          List<Long> sequences = journal.appendAll(entries).get();
          for (int r = 0; r < unit.size(); r++) {
            outcome.model.acknowledged(unit.get(r), sequences.get(r));
          }
          future = null;
        } else {
          JournalModel.Append append = outcome.model.newUnit(random, 1, 150).get(0);
          outcome.model.acknowledged(append, journal.append(append.type, append.payload).get());
          future = null;
        }
        if (future != null) {
          future.get();
          outcome.model.markAcknowledged(marks);
        }
        journal.awaitQuiescent();
        acknowledgeCompleted(outcome.model, heldMarks, heldFutures);
      }
    } catch (JournalException | java.util.concurrent.ExecutionException stopped) {
      // The simulated power loss poisoned the journal; what was acknowledged is in the model.
    } finally {
      acknowledgeCompleted(outcome.model, heldMarks, heldFutures);
      io.crashNow();
      journal.close();
      outcome.metrics = journal.metrics();
    }
    return outcome;
  }

  private static void acknowledgeCompleted(JournalModel model, List<long[]> marks,
      List<CompletableFuture<Void>> futures) {
    for (int m = marks.size() - 1; m >= 0; m--) {
      CompletableFuture<Void> future = futures.get(m);
      if (future.isDone()) {
        if (!future.isCompletedExceptionally()) {
          model.markAcknowledged(marks.get(m));
        }
        marks.remove(m);
        futures.remove(m);
      }
    }
  }

  private static String crashAfter(int step, int variant, List<String> trace, boolean linger)
      throws InterruptedException {
    return crashAfter(step, variant, trace, linger, SegmentedJournal.Defect.NONE);
  }

  private static String crashAfter(int step, int variant, List<String> trace, boolean linger,
      SegmentedJournal.Defect defect) throws InterruptedException {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().crashAfter(step);
    Outcome outcome = runWorkload(io, linger, defect);
    Random random = new Random(step * 7919L + variant);
    CrashSimulatingJournalIO.Image image = io.crashImage(random, variant % 4);
    String where = "crash after step " + step + " ("
        + (step == 0 ? "before any I/O" : trace.get(step - 1)) + "), image variant " + variant;
    CrashSimulatingJournalIO recoveredIo = CrashSimulatingJournalIO.fromImage(image);
    List<RecoveredRecord> records;
    long recoverySteps;
    try {
      SegmentedJournal journal = open(recoveredIo, linger);
      recoverySteps = recoveredIo.operations();
      records = journal.recovered();
      journal.close();
    } catch (RuntimeException e) {
      return where + ": recovery failed: " + e;
    }
    String violation = outcome.model.violation(records);
    if (violation != null) {
      return where + ": " + violation;
    }
    try {
      SegmentedJournal again = open(CrashSimulatingJournalIO.fromImage(
          recoveredIo.crashImage(random)), linger);
      again.close();
      if (!again.recovered().equals(records)) {
        return where + ": recovering twice changed the records";
      }
      if (variant == 2) {
        for (int recoveryStep = 0; recoveryStep <= recoverySteps; recoveryStep++) {
          CrashSimulatingJournalIO interrupted =
              CrashSimulatingJournalIO.fromImage(image).crashAfter(recoveryStep);
          try {
            open(interrupted, linger).close();
          } catch (RuntimeException expected) {
            // Power lost during recovery; the next recovery must not care.
          }
          interrupted.crashNow();
          for (int v = 0; v < 4; v++) {
            SegmentedJournal third = open(CrashSimulatingJournalIO.fromImage(
                interrupted.crashImage(random, v)), linger);
            third.close();
            if (!third.recovered().equals(records)) {
              return where + ": a crash after recovery step " + recoveryStep
                  + " changed the records";
            }
          }
        }
      }
    } catch (RuntimeException e) {
      return where + ": second recovery failed: " + e;
    }
    return null;
  }
}
