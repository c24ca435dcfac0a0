package io.pointsman.examples.server;

import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.HoldSummary;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The values {@code /metrics} shows that are not plain in-memory counters, sampled in the
 * background so a scrape never waits on a component: the journal's gauges every second, the
 * ledger's hold summary (a PostgreSQL query) every few seconds on a thread of its own. Each
 * sample keeps the time it was taken; the scrape shows it next to the value, so a gauge whose
 * source stopped answering is visibly old instead of making the scrape fail. Thread-safe.
 */
final class FacadeGauges implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FacadeGauges.class);

  /**
   * One sampled value.
   *
   * @param value the value
   * @param at when it was sampled
   */
  record Sample(long value, Instant at) {}

  /** Gauges of the journal, sampled in process. */
  static final String BACKLOG = "pointsman_journal_backlog";
  static final String SETTLED = "pointsman_settled_records_total";
  static final String INTERRUPTED = "pointsman_interrupted_calls_total";
  static final String FAILURES = "pointsman_settlement_failures_total";
  static final String RECOVERED = "pointsman_recovered_holds";
  static final String CONFIRMED = "pointsman_budgets_confirmed";
  /** Gauges of the ledger, sampled from PostgreSQL. */
  static final String UNRESOLVED = "pointsman_unresolved_holds";
  static final String HELD = "pointsman_unresolved_held_micros";
  /** Epoch seconds of the oldest unresolved hold (0 when none); its age is derived. */
  static final String OLDEST = "pointsman_unresolved_oldest_held_since";

  private final Map<String, Sample> samples = new ConcurrentHashMap<>();
  private final List<ScheduledExecutorService> threads = new ArrayList<>();
  private final CountDownLatch firstLedgerSample = new CountDownLatch(1);

  FacadeGauges(JournalAccounting journal, Supplier<Integer> recoveredHolds,
      Supplier<Boolean> confirmed, Supplier<HoldSummary> holds, Duration journalEvery,
      Duration ledgerEvery) {
    Runnable sampleJournal = () -> {
      Instant now = Instant.now();
      samples.put(BACKLOG, new Sample(journal.backlog(), now));
      samples.put(SETTLED, new Sample(journal.settledCount(), now));
      samples.put(INTERRUPTED, new Sample(journal.interruptedCount(), now));
      samples.put(FAILURES, new Sample(journal.settlementFailures(), now));
      samples.put(RECOVERED, new Sample(recoveredHolds.get(), now));
      samples.put(CONFIRMED, new Sample(confirmed.get() ? 1 : 0, now));
    };
    sampleJournal.run();
    every("journal", journalEvery, sampleJournal);
    every("ledger", ledgerEvery, () -> {
      HoldSummary h = holds.get();
      if (h == null) {
        return;
      }
      Instant now = Instant.now();
      samples.put(UNRESOLVED, new Sample(h.unresolved(), now));
      samples.put(HELD, new Sample(h.heldMicros(), now));
      samples.put(OLDEST, new Sample(h.oldestHeldSince() == null ? 0
          : h.oldestHeldSince().getEpochSecond(), now));
      firstLedgerSample.countDown();
    });
  }

  /**
   * Waits for the first sample of the ledger's gauges (the journal's are taken at
   * construction).
   *
   * @param max how long to wait at most
   * @return true if it was taken in time
   * @throws InterruptedException if interrupted
   */
  boolean awaitLedgerSample(Duration max) throws InterruptedException {
    return firstLedgerSample.await(max.toMillis(), TimeUnit.MILLISECONDS);
  }

  private void every(String group, Duration interval, Runnable task) {
    ScheduledExecutorService t = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread th = new Thread(r, "pointsman-gauges-" + group);
      th.setDaemon(true);
      return th;
    });
    threads.add(t);
    t.scheduleWithFixedDelay(() -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.debug("{} gauges not refreshed: {}", group, e.toString());
      }
    }, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
  }

  /**
   * Returns the latest sample of a gauge.
   *
   * @param name the gauge
   * @return the sample, or null before the first one
   */
  Sample get(String name) {
    return samples.get(name);
  }

  @Override
  public void close() {
    for (ScheduledExecutorService t : threads) {
      t.shutdownNow();
    }
  }
}
