package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Power loss after every single I/O step of a small workload, enumerated rather than sampled.
 * The workload is serial and waits for the I/O thread to go idle after every call, so step k is
 * the same operation in every run. It opens a fresh journal, fills several segments, marks the
 * records of the oldest ones delivered so that they are deleted, and keeps appending.
 */
class EveryStepCrashTest {
  private static final int VARIANTS = 6;

  @Test
  void everyAcknowledgedAppendSurvivesPowerLossAfterEveryIoStep() throws Exception {
    CrashSimulatingJournalIO reference = new CrashSimulatingJournalIO().tracing();
    Outcome uncrashed = runWorkload(reference);
    int steps = (int) reference.operations();
    CrashSimulatingJournalIO replay = new CrashSimulatingJournalIO().tracing();
    runWorkload(replay);
    assertThat(replay.trace()).as("the workload issues the same I/O steps on every run")
        .isEqualTo(reference.trace());
    assertThat(uncrashed.metrics.segmentsCreated()).as("the workload rotates segments")
        .isGreaterThanOrEqualTo(3);
    assertThat(uncrashed.metrics.segmentsDeleted()).as("the workload reclaims a segment")
        .isGreaterThanOrEqualTo(1);

    List<String> failures = new ArrayList<>();
    int checks = 0;
    for (int step = 0; step <= steps; step++) {
      for (int variant = 0; variant < VARIANTS; variant++) {
        String failure = crashAfter(step, variant, reference.trace());
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

  private static SegmentedJournal open(CrashSimulatingJournalIO io) {
    return SegmentedJournal.open(JournalConfig.builder(CrashScenario.DIRECTORY)
        .io(io)
        .segmentBytes(1024)
        .preallocationChunkBytes(512)
        // Steps in one fixed order: the preparation runs on the I/O thread.
        .backgroundPreparation(false)
        .build());
  }

  /** Runs the workload until it completes or the simulated machine stops. */
  private static Outcome runWorkload(CrashSimulatingJournalIO io) throws InterruptedException {
    Outcome outcome = new Outcome();
    Random random = new Random(7);
    SegmentedJournal journal;
    try {
      journal = open(io);
    } catch (RuntimeException crashedDuringOpen) {
      return outcome;
    }
    try {
      journal.awaitQuiescent();
      for (int i = 0; i < 24; i++) {
        CompletableFuture<?> future;
        long[] marks = null;
        if (i == 12 || i == 20) {
          marks = outcome.model.pickForMark(random, 12);
          future = journal.markDelivered(marks);
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
      }
    } catch (JournalException | java.util.concurrent.ExecutionException stopped) {
      // The simulated power loss poisoned the journal; what was acknowledged is in the model.
    } finally {
      io.crashNow();
      journal.close();
      outcome.metrics = journal.metrics();
    }
    return outcome;
  }

  private static String crashAfter(int step, int variant, List<String> trace)
      throws InterruptedException {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().crashAfter(step);
    Outcome outcome = runWorkload(io);
    Random random = new Random(step * 7919L + variant);
    CrashSimulatingJournalIO.Image image = io.crashImage(random, variant % 4);
    String where = "crash after step " + step + " ("
        + (step == 0 ? "before any I/O" : trace.get(step - 1)) + "), image variant " + variant;
    CrashSimulatingJournalIO recoveredIo = CrashSimulatingJournalIO.fromImage(image);
    List<RecoveredRecord> records;
    long recoverySteps;
    try {
      SegmentedJournal journal = open(recoveredIo);
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
          recoveredIo.crashImage(random)));
      again.close();
      if (!again.recovered().equals(records)) {
        return where + ": recovering twice changed the records";
      }
      if (variant == 2) {
        for (int recoveryStep = 0; recoveryStep <= recoverySteps; recoveryStep++) {
          CrashSimulatingJournalIO interrupted =
              CrashSimulatingJournalIO.fromImage(image).crashAfter(recoveryStep);
          try {
            open(interrupted).close();
          } catch (RuntimeException expected) {
            // Power lost during recovery; the next recovery must not care.
          }
          interrupted.crashNow();
          for (int v = 0; v < 4; v++) {
            SegmentedJournal third = open(CrashSimulatingJournalIO.fromImage(
                interrupted.crashImage(random, v)));
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
