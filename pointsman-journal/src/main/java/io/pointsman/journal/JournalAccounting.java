package io.pointsman.journal;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable profile of core's {@link Accounting}: every dispatch intent and every usage
 * record is made durable in a {@link SegmentedJournal} before the gateway may send or answer,
 * then handed to a {@link Settlement} (for example PostgreSQL) after acknowledgement, in
 * batches, on background settler threads (one by default, see
 * {@link Builder#settlerThreads(int)}). A record is marked delivered in the journal only after
 * settlement committed it, so the journal reclaims a segment only when everything in it is
 * in the system of record.
 *
 * <p>Record units: the first attempt's intent carries the request intent and is one record (one
 * unit under one force); each later attempt adds one dispatch record; the settled record closes
 * the call. At {@link Builder#open()} recovery hands settlement every settled record it had not
 * confirmed, and every call with an intent but no settled record as an {@link InterruptedCall}
 * (an {@code UNKNOWN} outcome; a later attempt's intent without the request intent is an
 * {@code UNKNOWN} send). Replaying is safe: settlement is idempotent on event id.
 *
 * <p>A journal failure (write, force, full device) poisons the journal: intents can no longer
 * be recorded, so the gateway calls no provider, and the error says to restart the host.
 * Settlement failures never reach callers (unless synchronous settlement is asked for): the
 * batch stays in the journal and is retried with backoff.
 *
 * <pre>{@code
 * JournalAccounting accounting = JournalAccounting.builder(
 *         JournalConfig.builder(Path.of("/var/lib/app/journal")).build(), settlement)
 *     .open();
 * Gateway gateway = Gateway.builder()...accounting(accounting).build();
 * }</pre>
 *
 * <p>Thread-safe.
 */
public final class JournalAccounting implements Accounting {
  private static final Logger LOG = LoggerFactory.getLogger(JournalAccounting.class);
  private static final long[] NONE = new long[0];

  private sealed interface Work permits SettleWork, InterruptWork {
    long[] sequences();
  }

  private record SettleWork(UsageRecord record, long[] sequences) implements Work {}

  private record InterruptWork(InterruptedCall call, long[] sequences) implements Work {}

  private final SegmentedJournal journal;
  private final Settlement settlement;
  private final boolean synchronous;
  private final int maxBatch;
  private final Duration drainTimeout;
  private final RecoveryReport recovery;
  private final Map<String, long[]> openIntents = new ConcurrentHashMap<>();
  private final LinkedBlockingQueue<Work> queue = new LinkedBlockingQueue<>();
  private final AtomicLong inFlight = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();
  private final AtomicLong interrupted = new AtomicLong();
  private final AtomicLong settlementFailures = new AtomicLong();
  private final List<Thread> settlers = new ArrayList<>();
  private volatile boolean closing;
  private volatile boolean stopNow;
  private volatile boolean closed;

  private JournalAccounting(Builder b) {
    this.journal = SegmentedJournal.open(b.config);
    this.settlement = b.settlement;
    this.synchronous = b.synchronous;
    this.maxBatch = b.maxBatch;
    this.drainTimeout = b.drainTimeout;
    try {
      this.recovery = recover(b.clock);
    } catch (RuntimeException e) {
      journal.close();
      throw e;
    }
    for (int i = 0; i < b.settlerThreads; i++) {
      Thread settler = new Thread(this::settleLoop, "pointsman-settler-" + (i + 1));
      settler.setDaemon(true);
      settlers.add(settler);
      settler.start();
    }
  }

  /**
   * Starts a builder.
   *
   * @param config where and how the journal lives
   * @param settlement where durable records are settled after acknowledgement
   * @return the builder
   * @throws NullPointerException if an argument is null
   */
  public static Builder builder(JournalConfig config, Settlement settlement) {
    return new Builder(config, settlement);
  }

  private RecoveryReport recover(Clock clock) {
    final class Event {
      final List<RecoveredRecord> intents = new ArrayList<>();
      RecoveredRecord settledRecord;
    }
    Map<String, Event> events = new LinkedHashMap<>();
    List<RecoveredRecord> records = journal.recovered();
    for (RecoveredRecord r : records) {
      switch (r.type()) {
        case UsageCodec.REQUEST_AND_DISPATCH, UsageCodec.DISPATCH -> events.computeIfAbsent(
            UsageCodec.decodeIntent(r.payload()).eventId(), k -> new Event()).intents.add(r);
        case UsageCodec.SETTLED -> events.computeIfAbsent(
            UsageCodec.decodeRecord(r.payload()).eventId(), k -> new Event()).settledRecord = r;
        default -> throw new JournalException("journal record " + r.sequence()
            + " has type " + r.type() + ", unknown to this version: refusing to start");
      }
    }
    List<UsageRecord> resettled = new ArrayList<>();
    List<InterruptedCall> interruptedCalls = new ArrayList<>();
    List<Long> alreadySettled = new ArrayList<>();
    int unknownSends = 0;
    for (Event e : events.values()) {
      long[] undeliveredIntents = e.intents.stream().filter(r -> !r.delivered())
          .mapToLong(RecoveredRecord::sequence).toArray();
      if (e.settledRecord != null) {
        if (!e.settledRecord.delivered()) {
          UsageRecord record = UsageCodec.decodeRecord(e.settledRecord.payload());
          resettled.add(record);
          queue.add(new SettleWork(record, append(undeliveredIntents,
              e.settledRecord.sequence())));
        } else {
          for (long s : undeliveredIntents) {
            alreadySettled.add(s);
          }
        }
      } else if (undeliveredIntents.length > 0) {
        RecoveredRecord last = e.intents.get(e.intents.size() - 1);
        boolean requestIntent = e.intents.stream()
            .anyMatch(r -> r.type() == UsageCodec.REQUEST_AND_DISPATCH);
        if (!requestIntent) {
          unknownSends++;
        }
        InterruptedCall call = new InterruptedCall(UsageCodec.decodeIntent(last.payload()),
            e.intents.size(), requestIntent, clock.now());
        interruptedCalls.add(call);
        queue.add(new InterruptWork(call, undeliveredIntents));
      }
    }
    if (!alreadySettled.isEmpty()) {
      // Marks lost in a crash after settlement committed: the call is settled, only the
      // intents' marks are missing.
      await(journal.markDelivered(alreadySettled.stream().mapToLong(Long::longValue).toArray()),
          Stages.LEDGER_WRITE, "delivered marks");
    }
    if (!resettled.isEmpty() || !interruptedCalls.isEmpty()) {
      LOG.warn("journal recovery: {} settled records to replay, {} interrupted calls held as"
          + " UNKNOWN ({} without their request intent)", resettled.size(),
          interruptedCalls.size(), unknownSends);
    }
    return new RecoveryReport(resettled, interruptedCalls, unknownSends, records.size());
  }

  @Override
  public void dispatched(DispatchIntent intent) {
    Objects.requireNonNull(intent, "intent");
    checkOpen(Stages.PROVIDER_ATTEMPT);
    byte type = intent.attempt() == 1 ? UsageCodec.REQUEST_AND_DISPATCH : UsageCodec.DISPATCH;
    long sequence = appendDurably(type, UsageCodec.encode(intent), Stages.PROVIDER_ATTEMPT,
        "dispatch intent");
    openIntents.merge(intent.eventId(), new long[] {sequence},
        (a, b) -> append(a, b[0]));
  }

  @Override
  public void settled(UsageRecord record) {
    Objects.requireNonNull(record, "record");
    checkOpen(Stages.LEDGER_WRITE);
    long sequence = appendDurably(UsageCodec.SETTLED, UsageCodec.encode(record),
        Stages.LEDGER_WRITE, "usage record");
    long[] intents = openIntents.remove(record.eventId());
    long[] sequences = append(intents == null ? NONE : intents, sequence);
    if (!synchronous) {
      queue.add(new SettleWork(record, sequences));
      return;
    }
    try {
      settlement.settle(List.of(record));
    } catch (RuntimeException e) {
      settlementFailures.incrementAndGet();
      queue.add(new SettleWork(record, sequences));
      throw PointsmanException.failure(Status.UNAVAILABLE, Stages.LEDGER_WRITE, "the usage"
          + " record is durable in the journal but synchronous settlement failed; it will be"
          + " retried", e);
    }
    settled.incrementAndGet();
    await(journal.markDelivered(sequences), Stages.LEDGER_WRITE, "delivered marks");
  }

  private long appendDurably(byte type, byte[] payload, String stage, String what) {
    CompletableFuture<Long> future;
    try {
      future = journal.append(type, payload);
    } catch (JournalException e) {
      throw unavailable(stage, what, e);
    }
    return await(future, stage, what);
  }

  private static <T> T await(CompletableFuture<T> future, String stage, String what) {
    try {
      // join() is not interruptible: a caller never abandons a durability wait half way.
      return future.join();
    } catch (CompletionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      if (cause instanceof JournalException je) {
        throw unavailable(stage, what, je);
      }
      throw PointsmanException.failure(Status.UNAVAILABLE, stage, "the " + what
          + " could not be made durable", cause);
    }
  }

  private static PointsmanException unavailable(String stage, String what, JournalException e) {
    String hint = e instanceof JournalPoisonedException
        ? "; the journal is poisoned: restart the host" : "";
    return PointsmanException.failure(Status.UNAVAILABLE, stage, "the " + what
        + " could not be made durable: " + e.getMessage() + hint, e);
  }

  private void checkOpen(String stage) {
    if (closing) {
      throw PointsmanException.failure(Status.UNAVAILABLE, stage, "journal accounting is"
          + " closed", null);
    }
  }

  private void settleLoop() {
    List<Work> batch = new ArrayList<>(maxBatch);
    while (true) {
      Work first;
      try {
        first = queue.poll(100, TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        if (stopNow) {
          return;
        }
        continue;
      }
      if (first == null) {
        if (closing && inFlight.get() == 0 && queue.isEmpty()) {
          return;
        }
        continue;
      }
      batch.clear();
      batch.add(first);
      queue.drainTo(batch, maxBatch - 1);
      inFlight.addAndGet(batch.size());
      try {
        if (!deliver(batch)) {
          return;
        }
      } finally {
        inFlight.addAndGet(-batch.size());
      }
    }
  }

  /** Settles one batch until it commits; returns false when the settler must stop. */
  private boolean deliver(List<Work> batch) {
    List<InterruptedCall> calls = new ArrayList<>();
    List<UsageRecord> records = new ArrayList<>();
    long[] sequences = NONE;
    for (Work w : batch) {
      if (w instanceof InterruptWork iw) {
        calls.add(iw.call());
      } else {
        records.add(((SettleWork) w).record());
      }
      sequences = concat(sequences, w.sequences());
    }
    long backoffMillis = 50;
    while (true) {
      try {
        if (!calls.isEmpty()) {
          settlement.interrupted(calls);
        }
        if (!records.isEmpty()) {
          settlement.settle(records);
        }
        break;
      } catch (RuntimeException e) {
        settlementFailures.incrementAndGet();
        if (stopNow) {
          LOG.warn("settlement of {} records did not commit before shutdown; they stay in the"
              + " journal for the next start", batch.size());
          return false;
        }
        LOG.warn("settlement of {} records failed; retrying in {} ms", batch.size(),
            backoffMillis, e);
        try {
          Thread.sleep(backoffMillis);
        } catch (InterruptedException ie) {
          if (stopNow) {
            return false;
          }
        }
        backoffMillis = Math.min(backoffMillis * 2, 5_000);
      }
    }
    interrupted.addAndGet(calls.size());
    settled.addAndGet(records.size());
    try {
      if (sequences.length > 0) {
        journal.markDelivered(sequences).join();
      }
    } catch (RuntimeException e) {
      // The batch is committed; without its marks it is replayed (idempotently) next start.
      LOG.error("delivered marks could not be written; the journal needs a restart", e);
      return false;
    }
    return true;
  }

  /**
   * Returns what recovery found when this accounting opened.
   *
   * @return the report
   */
  public RecoveryReport recovery() {
    return recovery;
  }

  /**
   * Returns how many records and interrupted calls wait for settlement or are being settled.
   *
   * @return the backlog
   */
  public long backlog() {
    return queue.size() + inFlight.get();
  }

  /**
   * Returns how many usage records settlement has committed since this accounting opened.
   *
   * @return the count
   */
  public long settledCount() {
    return settled.get();
  }

  /**
   * Returns how many interrupted calls settlement has committed since this accounting opened.
   *
   * @return the count
   */
  public long interruptedCount() {
    return interrupted.get();
  }

  /**
   * Returns how many settlement attempts failed (and were retried).
   *
   * @return the count
   */
  public long settlementFailures() {
    return settlementFailures.get();
  }

  /**
   * Returns the journal's metrics.
   *
   * @return the metrics
   */
  public JournalMetrics journalMetrics() {
    return journal.metrics();
  }

  /**
   * Waits until the backlog is empty.
   *
   * @param timeout how long to wait at most
   * @return true if the backlog drained in time
   */
  public boolean awaitDrained(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (backlog() > 0) {
      if (System.nanoTime() > deadline || settlers.stream().noneMatch(Thread::isAlive)) {
        return false;
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
    }
    return true;
  }

  /**
   * Stops accepting intents and records, waits up to the drain timeout for settlement to
   * confirm what is queued, then closes the journal. What did not settle stays durable in the
   * journal and is replayed at the next start. Does not close the settlement.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    closing = true;
    try {
      long deadline = System.nanoTime() + drainTimeout.toNanos();
      for (Thread settler : settlers) {
        // join(0) would wait forever: a zero drain timeout means do not wait.
        settler.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
      if (settlers.stream().anyMatch(Thread::isAlive)) {
        stopNow = true;
        for (Thread settler : settlers) {
          settler.interrupt();
        }
        for (Thread settler : settlers) {
          settler.join(5_000);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      journal.close();
    }
  }

  private static long[] append(long[] a, long value) {
    long[] out = Arrays.copyOf(a, a.length + 1);
    out[a.length] = value;
    return out;
  }

  private static long[] concat(long[] a, long[] b) {
    long[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  /** A builder of {@link JournalAccounting}; not thread-safe. */
  public static final class Builder {
    private final JournalConfig config;
    private final Settlement settlement;
    private boolean synchronous;
    private int maxBatch = 500;
    private int settlerThreads = 1;
    private Duration drainTimeout = Duration.ofSeconds(10);
    private Clock clock = Clock.system();

    private Builder(JournalConfig config, Settlement settlement) {
      this.config = Objects.requireNonNull(config, "config");
      this.settlement = Objects.requireNonNull(settlement, "settlement");
    }

    /**
     * Asks for settlement before acknowledgement: {@code settled} returns only after
     * settlement committed the record, and fails the call when it did not (the record stays in
     * the journal and is retried). Default: off.
     *
     * @param value true for synchronous settlement
     * @return this builder
     */
    public Builder synchronousSettlement(boolean value) {
      this.synchronous = value;
      return this;
    }

    /**
     * Sets the most records one settlement batch carries. Default: 500.
     *
     * @param value 1 to 100,000
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder maxBatch(int value) {
      if (value < 1 || value > 100_000) {
        throw new IllegalArgumentException("maxBatch must be between 1 and 100000: " + value);
      }
      this.maxBatch = value;
      return this;
    }

    /**
     * Sets how many threads hand batches to settlement at once. Batches are independent and
     * settlement is idempotent on event id, so several settlers may commit concurrently (on
     * PostgreSQL each uses its own connection and core). Default: 1.
     *
     * @param value 1 to 16
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder settlerThreads(int value) {
      if (value < 1 || value > 16) {
        throw new IllegalArgumentException("settlerThreads must be between 1 and 16: " + value);
      }
      this.settlerThreads = value;
      return this;
    }

    /**
     * Sets how long {@link JournalAccounting#close()} waits for the backlog to settle.
     * Default: 10 seconds.
     *
     * @param value a non-negative duration
     * @return this builder
     */
    public Builder drainTimeout(Duration value) {
      Objects.requireNonNull(value, "drainTimeout");
      if (value.isNegative()) {
        throw new IllegalArgumentException("drainTimeout must not be negative");
      }
      this.drainTimeout = value;
      return this;
    }

    /**
     * Sets the clock that stamps recovered interrupted calls.
     *
     * @param value the clock
     * @return this builder
     */
    public Builder clock(Clock value) {
      this.clock = Objects.requireNonNull(value, "clock");
      return this;
    }

    /**
     * Opens the journal, recovers it, queues what recovery found for settlement, and starts
     * the settler.
     *
     * @return the accounting
     * @throws JournalCorruptedException when recovery finds corruption (nothing is modified)
     * @throws JournalException when the journal cannot be opened
     */
    public JournalAccounting open() {
      return new JournalAccounting(this);
    }
  }
}
