package io.pointsman.examples.outage;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.journal.JournalFullException;
import io.pointsman.journal.SettlerState;
import io.pointsman.testing.FixtureProvider;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * PostgreSQL goes down under load: the gateway keeps serving from the journal, the heap stays
 * bounded (only a bounded queue is in memory, the rest is read back from the journal), the
 * journal stays within its size limit (beyond it new calls get a 503 and no provider call),
 * and once the database is back everything the journal accepted is settled exactly once.
 *
 * <p>The outage lasts 25 seconds in the normal build, with a 16 MiB journal limit; {@code -Dpointsman.outage.minutes=N} (or
 * {@code -Dpointsman.outage.seconds=N}) makes it longer, {@code -Dpointsman.outage.threads},
 * {@code -Dpointsman.outage.journalMiB} set the load and the journal limit, and {@code
 * -Dpointsman.outage.report=FILE} writes the figures to a file as well.
 */
class DatabaseOutageTest {
  private static final int SEGMENT_BYTES = 1 << 20;
  private static final int QUEUE = 2_000;
  private static final long MIB = 1 << 20;
  private static final long REFUSED_BACKOFF_MILLIS = 200;

  static {
    // The gateway logs every usage record it could not make durable with its stack trace; a
    // full journal refuses many. Effective when this class is the first to use the gateway in
    // its JVM (the long run); the normal build keeps the lines.
    System.setProperty("org.slf4j.simpleLogger.log.io.pointsman.Gateway", "off");
  }

  @TempDir Path dir;

  private static Duration outageDuration() {
    Integer minutes = Integer.getInteger("pointsman.outage.minutes");
    if (minutes != null) {
      return Duration.ofMinutes(minutes);
    }
    return Duration.ofSeconds(Integer.getInteger("pointsman.outage.seconds", 25));
  }

  /** Callers that run until stopped and count what happened. */
  private static final class Load {
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicLong next = new AtomicLong();
    final AtomicLong ok = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    final AtomicReference<String> firstOther = new AtomicReference<>();
    final List<Thread> threads = new ArrayList<>();

    Load(Gateway gateway, int threadCount, long offset) {
      next.set(offset);
      for (int t = 0; t < threadCount; t++) {
        Thread thread = new Thread(() -> {
          while (!stop.get()) {
            try {
              gateway.chat(OutageRig.request(next.incrementAndGet()),
                  CallOptions.of(OutageRig.KEY));
              ok.incrementAndGet();
            } catch (PointsmanException e) {
              if (rootCause(e) instanceof JournalFullException) {
                refused.incrementAndGet();
                // A client backs off after a 503, as it would honour Retry-After.
                pause(REFUSED_BACKOFF_MILLIS);
              } else {
                other.incrementAndGet();
                firstOther.compareAndSet(null, e.getMessage());
              }
            }
          }
        }, "outage-caller-" + t);
        threads.add(thread);
        thread.start();
      }
    }

    long calls() {
      return ok.get() + refused.get() + other.get();
    }

    void stopAndJoin() throws InterruptedException {
      stop.set(true);
      for (Thread t : threads) {
        t.join();
      }
    }
  }

  private static void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Throwable rootCause(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  private static long directoryBytes(Path journal) throws IOException {
    try (Stream<Path> files = Files.list(journal)) {
      long total = 0;
      for (Path f : (Iterable<Path>) files::iterator) {
        try {
          total += Files.size(f);
        } catch (NoSuchFileException renamedOrReclaimed) {
          // A preallocated segment renamed into place, or a reclaimed one: counted elsewhere.
        }
      }
      return total;
    }
  }

  @Test
  void anOutageUnderLoadKeepsHeapAndJournalBoundedAndSettlesEverythingExactlyOnce()
      throws Exception {
    Duration outage = outageDuration();
    int threads = Integer.getInteger("pointsman.outage.threads", 8);
    long limit = Long.getLong("pointsman.outage.journalMiB", 16) * MIB;
    List<String> report = new ArrayList<>();
    report.add("database outage under load: " + outage.toSeconds() + " s outage, " + threads
        + " caller threads (each pausing " + REFUSED_BACKOFF_MILLIS + " ms after a 503),"
        + " journal limit " + limit / MIB + " MiB, segments "
        + SEGMENT_BYTES / MIB + " MiB, in-memory queue " + QUEUE + " records, max heap "
        + Runtime.getRuntime().maxMemory() / MIB + " MiB, " + Runtime.version() + ", "
        + Runtime.getRuntime().availableProcessors() + " cores, started " + Instant.now());
    Path journalDir = dir.resolve("journal");
    FixtureProvider fixture = FixtureProvider.builder().build();
    try (OutageRig rig = new OutageRig(dir.resolve("pg"))) {
      JournalConfig config = JournalConfig.builder(journalDir).segmentBytes(SEGMENT_BYTES)
          .build();
      try (JournalAccounting accounting = JournalAccounting.builder(config, rig.settlement)
          .queueCapacity(QUEUE).maxJournalBytes(limit)
          .retryBackoff(Duration.ofMillis(10), Duration.ofMillis(500))
          .drainTimeout(Duration.ofSeconds(30)).open()) {
        OutageRig.Counting counting = new OutageRig.Counting(accounting);
        Gateway gateway = OutageRig.gateway(counting, fixture);

        // Warm up with the database up, so that the heap baseline includes loaded classes,
        // connection code and JIT-compiled paths.
        Load warmUp = new Load(gateway, threads, 0);
        Thread.sleep(3_000);
        warmUp.stopAndJoin();
        assertThat(accounting.awaitDrained(Duration.ofSeconds(60))).isTrue();
        long heapBefore = OutageRig.usedHeapAfterGc();
        report.add(String.format("warm-up with the database up: %,d calls (%,d ok)",
            warmUp.calls(), warmUp.ok.get()));

        rig.stopDatabase();
        Load load = new Load(gateway, threads, 10_000_000L);
        long start = System.nanoTime();
        long end = start + outage.toNanos();
        long heapMax = 0;
        long heapFirst = -1;
        long retainedMax = 0;
        long directoryMax = 0;
        long nextHeapSample = start + TimeUnit.SECONDS.toNanos(5);
        List<String> samples = new ArrayList<>();
        while (System.nanoTime() < end) {
          Thread.sleep(250);
          retainedMax = Math.max(retainedMax, accounting.journalMetrics().retainedBytes());
          directoryMax = Math.max(directoryMax, directoryBytes(journalDir));
          if (System.nanoTime() >= nextHeapSample) {
            long heap = OutageRig.usedHeapAfterGc();
            if (heapFirst < 0) {
              heapFirst = heap;
            }
            heapMax = Math.max(heapMax, heap);
            nextHeapSample += TimeUnit.SECONDS.toNanos(Math.max(5, outage.toSeconds() / 20));
            samples.add(String.format("  t=%4d s  calls %,9d  ok %,9d  refused %,9d  heap %6.1f"
                + " MiB  journal %6.1f MiB", TimeUnit.NANOSECONDS.toSeconds(
                    System.nanoTime() - start), load.calls(), load.ok.get(), load.refused.get(),
                heap / (double) MIB, directoryBytes(journalDir) / (double) MIB));
          }
        }
        load.stopAndJoin();
        SettlerState during = accounting.settlerState();
        long heapEndOfOutage = OutageRig.usedHeapAfterGc();
        heapMax = Math.max(heapMax, heapEndOfOutage);
        report.add(String.format("outage: %,d calls in %d s (%,.0f calls/s): %,d ok, %,d"
            + " refused with 503 (journal full), %,d other errors%s", load.calls(),
            outage.toSeconds(), load.calls() / (double) outage.toSeconds(), load.ok.get(),
            load.refused.get(), load.other.get(), load.firstOther.get() == null ? ""
                : " (first: " + load.firstOther.get() + ")"));
        report.addAll(samples);
        report.add("settler state at the end of the outage: " + during);

        long restart = System.nanoTime();
        rig.startDatabase();
        assertThat(accounting.awaitDrained(Duration.ofMinutes(15)))
            .as("everything settles once the database is back").isTrue();
        double catchUpSeconds = (System.nanoTime() - restart) / 1e9;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (accounting.journalMetrics().retainedBytes() > SEGMENT_BYTES
            && System.nanoTime() < deadline) {
          Thread.sleep(20);
        }
        long retainedAfter = accounting.journalMetrics().retainedBytes();
        long heapAfter = OutageRig.usedHeapAfterGc();
        long[] rows = rig.ledgerRows();
        SettlerState after = accounting.settlerState();

        report.add(String.format("heap after GC: before the outage %.1f MiB, first sample"
            + " during %.1f MiB, max during %.1f MiB, after catching up %.1f MiB",
            heapBefore / (double) MIB, heapFirst / (double) MIB, heapMax / (double) MIB,
            heapAfter / (double) MIB));
        report.add(String.format("journal: max %.1f MiB of segments held (limit %d MiB), max"
            + " %.1f MiB of files in the directory, %.1f MiB held after catching up",
            retainedMax / (double) MIB, limit / MIB, directoryMax / (double) MIB,
            retainedAfter / (double) MIB));
        report.add(String.format("catch-up: database started and %,d records settled in %.1f s"
            + " (includes the server start); records read back from the journal: %,d",
            rows[0], catchUpSeconds, accounting.overflowedRecords()));
        report.add(String.format("ledger: %,d rows, %,d distinct event ids, %,d answered 200,"
            + " %,d dispatched; accounting accepted %,d records; provider sends %,d", rows[0],
            rows[1], rows[2], rows[3], counting.recorded.get(), fixture.sends()));
        report.add("settler state after catching up: " + after);
        report.forEach(System.out::println);
        String file = System.getProperty("pointsman.outage.report");
        if (file != null) {
          Files.write(Path.of(file), report, StandardCharsets.UTF_8);
        }

        assertThat(load.ok.get()).as("calls were served during the outage").isPositive();
        assertThat(load.refused.get()).as("the journal reached its limit").isPositive();
        assertThat(load.other.get()).as("no other failure: %s", load.firstOther.get()).isZero();
        assertThat(during.stalled()).isTrue();
        assertThat(heapMax - heapBefore).as("heap growth during the outage")
            .isLessThan(8 * MIB);
        assertThat(retainedMax).as("segments held").isLessThanOrEqualTo(limit + SEGMENT_BYTES);
        assertThat(directoryMax).as("journal files")
            .isLessThanOrEqualTo(limit + 3L * SEGMENT_BYTES);
        assertThat(rows[1]).as("one row per event id").isEqualTo(rows[0]);
        assertThat(rows[0]).as("every record the journal accepted is in the ledger, once")
            .isEqualTo(counting.recorded.get());
        assertThat(rows[2]).as("every answered call is in the ledger")
            .isEqualTo(warmUp.ok.get() + load.ok.get());
        assertThat(rows[3]).as("every provider call is in the ledger")
            .isEqualTo(fixture.sends());
        assertThat(retainedAfter).as("settled segments are reclaimed")
            .isLessThanOrEqualTo(SEGMENT_BYTES);
        assertThat(after.condition()).isEqualTo(SettlerState.Condition.OK);
      }
    }
  }
}
