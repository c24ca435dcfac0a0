package io.pointsman.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * One seeded run of the crash simulation: two generations of appends, delivered marks and a
 * power loss at a random I/O step, each followed by recovery and the invariant checks:
 *
 * <ol>
 *   <li>every append reported durable is recovered byte for byte (unless a durable mark let
 *       its segment be reclaimed), every durable mark is recovered;
 *   <li>nothing that was never appended or never marked is accepted; units are all or nothing;
 *   <li>recovering twice, or losing power during recovery and recovering again, gives the same
 *       records.
 * </ol>
 *
 * <p>The seed fixes the workload, the crash step and every crash-image choice. In serial mode
 * (each append waits for its future) a seed replays exactly; in concurrent mode the thread
 * interleaving may differ between replays. The seed also picks the mark linger: none, 2 ms (the
 * waited-for marks are forced on their own when it elapses), or an hour (marks are held until an
 * append's force or the close, and the workload does not wait for them), so that power losses
 * fall between the write of held marks and the force they share with an append.
 */
final class CrashScenario {
  static final Path DIRECTORY = Path.of("/journal");

  /** Deliberate defects the suite must detect. */
  enum Mutant {
    NONE,
    SKIP_FORCE,
    SKIP_DIRECTORY_SYNC,
    ACKNOWLEDGE_BEFORE_FORCE
  }

  private static final Duration[] LINGERS = {Duration.ZERO, Duration.ofMillis(2),
      Duration.ofHours(1)};

  private final long seed;
  private final Mutant mutant;
  private final Random random;
  private final JournalModel model = new JournalModel();
  private final int segmentBytes;
  private final boolean background;
  private final int chunkBytes;
  private final int maxPayload;
  private final boolean concurrent;
  private final Duration linger;
  /** Whether the workload waits for delivered marks (not when they linger for an hour). */
  private final boolean waitForMarks;
  private String stage = "start";

  private CrashScenario(long seed, Mutant mutant) {
    this.seed = seed;
    this.mutant = mutant;
    this.random = new Random(seed);
    this.segmentBytes = 1024 << random.nextInt(3);
    this.background = (seed & 1) == 0;
    this.chunkBytes = 512 << random.nextInt(2);
    this.maxPayload = 8 + random.nextInt(200);
    this.concurrent = random.nextInt(3) == 0;
    // From the seed, not the random stream: the other choices stay what they were per seed.
    this.linger = LINGERS[(int) Math.floorMod(seed >> 1, (long) LINGERS.length)];
    this.waitForMarks = linger.compareTo(Duration.ofSeconds(1)) < 0;
  }

  /**
   * Runs the scenario for a seed.
   *
   * @return null if every invariant held, else a description naming the seed
   */
  static String run(long seed, Mutant mutant) {
    CrashScenario scenario = new CrashScenario(seed, mutant);
    try {
      String violation = scenario.run();
      return violation == null ? null : scenario.describe(violation);
    } catch (Throwable e) {
      return scenario.describe("unexpected " + e);
    }
  }

  private final List<CrashSimulatingJournalIO> traces = new ArrayList<>();

  private String describe(String violation) {
    if (Boolean.getBoolean("journal.trace")) {
      for (CrashSimulatingJournalIO io : traces) {
        System.out.println("---- io");
        io.trace().forEach(System.out::println);
      }
    }
    return "seed " + seed + " (" + (concurrent ? "concurrent" : "serial") + ", segment "
        + segmentBytes + " bytes, mark linger " + linger + ", mutant " + mutant + ", at "
        + stage + "): " + violation
        + " -- replay with -Djournal.seed=" + seed;
  }

  private String run() throws Exception {
    CrashSimulatingJournalIO io = newIO(new CrashSimulatingJournalIO());
    SegmentedJournal journal = open(io);
    for (int generation = 1; generation <= 2; generation++) {
      stage = "generation " + generation + " workload";
      long budget = 8 + random.nextInt(120);
      io.crashAfter(io.operations() + random.nextInt((int) budget));
      workload(journal);
      io.crashNow();
      journal.close();
      collectAcknowledgements();
      CrashSimulatingJournalIO.Image image = io.crashImage(random);

      stage = "generation " + generation + " recovery";
      CrashSimulatingJournalIO first = newIO(CrashSimulatingJournalIO.fromImage(image));
      long before = first.operations();
      SegmentedJournal recoveredOnce;
      try {
        recoveredOnce = open(first);
      } catch (JournalException e) {
        return "recovery failed: " + e.getMessage();
      }
      long recoveryOperations = first.operations() - before;
      List<RecoveredRecord> records = recoveredOnce.recovered();
      String violation = model.violation(records);
      if (violation != null) {
        return violation;
      }
      recoveredOnce.close();

      stage = "generation " + generation + " second recovery";
      io = newIO(CrashSimulatingJournalIO.fromImage(first.crashImage(random)));
      journal = open(io);
      if (!journal.recovered().equals(records)) {
        return "recovering twice changed the records: " + records + " then "
            + journal.recovered();
      }

      stage = "generation " + generation + " crash during recovery";
      CrashSimulatingJournalIO interrupted = newIO(CrashSimulatingJournalIO.fromImage(image));
      interrupted.crashAfter(random.nextInt((int) recoveryOperations + 4));
      try {
        open(interrupted).close();
      } catch (RuntimeException expected) {
        // The power loss may hit recovery itself; what matters is the next recovery.
      }
      interrupted.crashNow();
      CrashSimulatingJournalIO after = newIO(CrashSimulatingJournalIO.fromImage(
          interrupted.crashImage(random)));
      SegmentedJournal third;
      try {
        third = open(after);
      } catch (JournalException e) {
        return "recovery after a crash during recovery failed: " + e.getMessage();
      }
      if (!third.recovered().equals(records)) {
        return "a crash during recovery changed the records: " + records + " then "
            + third.recovered();
      }
      third.close();
      model.adopt(records);
    }
    journal.close();
    return null;
  }

  private CrashSimulatingJournalIO newIO(CrashSimulatingJournalIO io) {
    if (Boolean.getBoolean("journal.trace")) {
      io.tracing();
      traces.add(io);
    }
    io.ignoreForce(mutant == Mutant.SKIP_FORCE);
    io.ignoreDirectorySync(mutant == Mutant.SKIP_DIRECTORY_SYNC);
    return io;
  }

  private SegmentedJournal open(CrashSimulatingJournalIO io) {
    JournalConfig config = JournalConfig.builder(DIRECTORY)
        .io(io)
        .segmentBytes(segmentBytes)
        .preallocationChunkBytes(chunkBytes)
        .queueCapacity(64)
        // Half the seeds prepare segments on their own thread, half on the I/O thread.
        .backgroundPreparation(background)
        .markLinger(linger)
        .build();
    return SegmentedJournal.open(config, mutant == Mutant.ACKNOWLEDGE_BEFORE_FORCE
        ? SegmentedJournal.Defect.ACKNOWLEDGE_BEFORE_FORCE
        : SegmentedJournal.Defect.NONE);
  }

  private final List<JournalModel.Append> submitted = new ArrayList<>();
  private final List<long[]> marks = new ArrayList<>();
  private final List<CompletableFuture<Void>> markFutures = new ArrayList<>();

  private void workload(SegmentedJournal journal) throws InterruptedException {
    int actions = 3 + random.nextInt(40);
    if (!concurrent) {
      for (int i = 0; i < actions; i++) {
        if (!act(journal, random, true)) {
          return;
        }
      }
      return;
    }
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 3; t++) {
      Random threadRandom = new Random(random.nextLong());
      int share = actions / 3 + 1;
      threads.add(new Thread(() -> {
        for (int i = 0; i < share; i++) {
          if (!act(journal, threadRandom, threadRandom.nextInt(4) == 0)) {
            return;
          }
        }
      }));
    }
    threads.forEach(Thread::start);
    for (Thread thread : threads) {
      thread.join();
    }
  }

  /** Performs one action; returns false once the journal refuses work. */
  private boolean act(SegmentedJournal journal, Random random, boolean wait) {
    int choice = random.nextInt(100);
    try {
      CompletableFuture<?> future;
      if (choice < 15) {
        long[] sequences = model.pickForMark(random, 1 + random.nextInt(3));
        if (sequences.length == 0) {
          return true;
        }
        CompletableFuture<Void> mark = journal.markDelivered(sequences);
        synchronized (this) {
          marks.add(sequences);
          markFutures.add(mark);
        }
        // A held mark completes only with a later append's force: never waited for here.
        future = waitForMarks ? mark : null;
      } else if (choice < 35) {
        List<JournalModel.Append> unit = model.newUnit(random, 2 + random.nextInt(2), maxPayload);
        List<JournalEntry> entries = new ArrayList<>();
        for (JournalModel.Append append : unit) {
          entries.add(JournalEntry.of(append.type, append.payload));
        }
        CompletableFuture<List<Long>> all = journal.appendAll(entries);
        for (int i = 0; i < unit.size(); i++) {
          int index = i;
          unit.get(i).future = all.thenApply(sequences -> sequences.get(index));
        }
        synchronized (this) {
          submitted.addAll(unit);
        }
        future = all;
      } else {
        JournalModel.Append append = model.newUnit(random, 1, maxPayload).get(0);
        append.future = journal.append(append.type, append.payload);
        synchronized (this) {
          submitted.add(append);
        }
        future = append.future;
      }
      if (wait && future != null) {
        future.get();
        collectAcknowledgements();
      }
      return true;
    } catch (JournalException | ExecutionException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Moves completed futures into the model: completed normally means durable. */
  private synchronized void collectAcknowledgements() {
    for (JournalModel.Append append : submitted) {
      if (append.future != null && append.future.isDone()
          && !append.future.isCompletedExceptionally() && !append.durable) {
        model.acknowledged(append, append.future.join());
      }
    }
    for (int i = 0; i < marks.size(); i++) {
      CompletableFuture<Void> future = markFutures.get(i);
      if (future.isDone() && !future.isCompletedExceptionally()) {
        model.markAcknowledged(marks.get(i));
      }
    }
  }
}
