package io.pointsman.journal;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Journal;
import io.pointsman.spi.RecoveringAccounting;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The durable profile of core's {@link io.pointsman.spi.Accounting}: every dispatch intent and every usage
 * record is made durable in a {@link SegmentedJournal} before the gateway may send or answer,
 * then handed to a {@link Settlement} (for example PostgreSQL) after acknowledgement, in
 * batches, on background settler threads (one by default, see
 * {@link Builder#settlerThreads(int)}). A record is marked delivered in the journal only after
 * settlement committed it, so the journal reclaims a segment only when everything in it is
 * in the system of record.
 *
 * <p>Record units: the first attempt's intent carries the request intent and is one record (one
 * unit under one force); each later attempt adds one dispatch record; the settled record closes
 * the call (and names its intents' sequence numbers). At {@link Builder#open()} recovery hands
 * settlement every settled record it had not confirmed, and every call with an intent but no
 * settled record as an {@link InterruptedCall} (an {@code UNKNOWN} outcome; a later attempt's
 * intent without the request intent is an {@code UNKNOWN} send). Replaying is safe: settlement
 * is idempotent on event id. Opening never waits for settlement: the process starts and serves
 * while the database is down.
 *
 * <p><b>The journal is the buffer.</b> At most {@link Builder#queueCapacity(int)} records wait in
 * memory. When settlement falls further behind, later records are not kept in memory: the
 * settlers read them back from the journal, by sequence number, once the queue is empty, and go
 * back to the queue when they have caught up. The journal itself is bounded by {@link
 * Builder#maxJournalBytes(long)}: at the limit, new calls are refused with a 503 whose cause is a
 * {@link JournalFullException} (fail closed: the dispatch intent cannot be recorded, so the
 * provider is not called) until settlement catches up.
 *
 * <p><b>Supervised settlers.</b> A settler never stops on a failure, {@link Error}s included:
 * a batch that does not commit, or whose delivered marks cannot be written yet, is retried with
 * bounded exponential backoff ({@link Builder#retryBackoff(Duration, Duration)}). {@link
 * #settlerState()} tells a health check whether settlement is running, since when it is stalled,
 * the backlog, the last error and the last success.
 *
 * <p>A journal failure (write, force, full device) poisons the journal: intents can no longer
 * be recorded, so the gateway calls no provider, and the error says to restart the host. A
 * failed force is never retried. Settlement failures never reach callers (unless synchronous
 * settlement is asked for).
 *
 * <p>A durable gateway opens it itself: {@code Gateway.builder().journal(JournalAccounting
 * .at(dir)).ledger(ledger)} opens the journal over the ledger at build, runs the restart
 * protocol and closes both with the gateway. Opened by hand:
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
public final class JournalAccounting implements RecoveringAccounting {
  /** Default number of records waiting for settlement in memory. */
  public static final int DEFAULT_QUEUE_CAPACITY = 10_000;
  /** Default journal size limit: 4 GiB of segments holding unsettled records. */
  public static final long DEFAULT_MAX_JOURNAL_BYTES = 4L << 30;
  /** Default first retry pause after a settlement failure. */
  public static final Duration DEFAULT_RETRY_INITIAL = Duration.ofMillis(50);
  /** Default longest retry pause after settlement failures. */
  public static final Duration DEFAULT_RETRY_MAX = Duration.ofSeconds(5);

  /** How long a durable record waits for others to share its settlement batch by default. */
  public static final Duration DEFAULT_SETTLE_LINGER = Duration.ofMillis(20);

  private static final Logger LOG = LoggerFactory.getLogger(JournalAccounting.class);
  private static final long[] NONE = new long[0];

  private sealed interface Work permits SettleWork, InterruptWork {
    long[] sequences();
  }

  private record SettleWork(UsageRecord record, long settledSequence, long[] sequences)
      implements Work {}

  private record InterruptWork(InterruptedCall call, long[] sequences) implements Work {}

  private final SegmentedJournal journal;
  private final Settlement settlement;
  private final Clock clock;
  private final boolean synchronous;
  private final int maxBatch;
  private final long settleLingerNanos;
  private final int queueCapacity;
  private final long maxJournalBytes;
  private final long retryInitialMillis;
  private final long retryMaxMillis;
  private final Duration drainTimeout;
  private final RecoveryReport recovery;
  private final Map<String, long[]> openIntents = new ConcurrentHashMap<>();

  // The hand-over to the settlers. Guarded by handoff.
  private final ReentrantLock handoff = new ReentrantLock();
  private final Condition workAvailable = handoff.newCondition();
  private final ArrayDeque<Work> queue = new ArrayDeque<>();
  /** When the oldest work now in the queue was queued (System.nanoTime); valid when non-empty. */
  private long oldestQueuedNanos;
  /** Records from spillFrom on were not queued: the settlers read them from the journal. */
  private boolean overflowing;
  private long spillFrom;
  private long lastSpilled;
  private JournalCursor cursor;
  private long cursorNext;
  private boolean reading;

  private final AtomicLong inFlight = new AtomicLong();
  private final AtomicLong settled = new AtomicLong();
  private final AtomicLong interrupted = new AtomicLong();
  private final AtomicLong settlementFailures = new AtomicLong();
  private final AtomicLong overflowedRecords = new AtomicLong();
  private final AtomicLong refusedCalls = new AtomicLong();
  private final AtomicLong consecutiveFailures = new AtomicLong();
  private volatile Instant stalledSince;
  private volatile Instant lastSuccessAt;
  private volatile Instant lastErrorAt;
  private volatile String lastError;
  private final List<Settler> settlers = new ArrayList<>();
  private volatile boolean closing;
  private volatile boolean stopNow;
  private volatile boolean closed;

  private JournalAccounting(Builder b) {
    long limit = b.maxJournalBytes;
    int segment = b.config.segmentBytes();
    if (limit < 0) {
      limit = Math.max(DEFAULT_MAX_JOURNAL_BYTES, 4L * segment);
    } else if (limit > 0 && limit < 2L * segment) {
      throw new IllegalArgumentException("maxJournalBytes " + limit + " is less than two"
          + " segments of " + segment + " bytes");
    }
    this.maxJournalBytes = limit;
    this.settlement = b.settlement;
    this.clock = b.clock;
    this.synchronous = b.synchronous;
    this.maxBatch = b.maxBatch;
    this.settleLingerNanos = b.settleLinger.toNanos();
    this.queueCapacity = b.queueCapacity;
    this.retryInitialMillis = Math.max(1, b.retryInitial.toMillis());
    this.retryMaxMillis = Math.max(retryInitialMillis, b.retryMax.toMillis());
    this.drainTimeout = b.drainTimeout;
    this.journal = SegmentedJournal.open(b.config);
    try {
      this.recovery = recover(b.clock);
    } catch (RuntimeException e) {
      journal.close();
      throw e;
    }
    // The records were decoded into the report and the queue; the journal need not keep them.
    journal.forgetRecovered();
    for (int i = 0; i < b.settlerThreads; i++) {
      Settler settler = new Settler("pointsman-settler-" + (i + 1));
      settlers.add(settler);
    }
    for (Settler settler : settlers) {
      settler.thread.start();
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

  /**
   * Returns the file journal in a directory (created if missing) with the default
   * configuration, for {@code Gateway.Builder.journal}: the gateway opens it over its ledger
   * at build.
   *
   * @param directory the journal directory; a stable one, never a temporary directory
   * @return the journal to open
   * @throws NullPointerException if directory is null
   */
  public static Journal at(Path directory) {
    Objects.requireNonNull(directory, "directory");
    return journal(directory, b -> b);
  }

  /**
   * Returns the file journal in a directory (created if missing), configured by a function of
   * the builder, for {@code Gateway.Builder.journal}.
   *
   * <pre>{@code
   * Journal journal = JournalAccounting.journal(dir, b -> b.settlerThreads(2));
   * }</pre>
   *
   * @param directory the journal directory
   * @param options sets builder options and returns the builder
   * @return the journal to open
   * @throws NullPointerException if an argument is null
   */
  public static Journal journal(Path directory, UnaryOperator<Builder> options) {
    Objects.requireNonNull(directory, "directory");
    Objects.requireNonNull(options, "options");
    return new Journal() {
      @Override
      public RecoveringAccounting open(Settlement settlement) {
        try {
          Files.createDirectories(directory);
        } catch (IOException e) {
          throw new JournalException("cannot create the journal directory " + directory + ": "
              + e.getMessage(), e);
        }
        return options.apply(builder(JournalConfig.builder(directory).build(), settlement))
            .open();
      }

      @Override
      public String toString() {
        return "JournalAccounting.at(" + directory + ")";
      }
    };
  }

  @Override
  public List<UsageRecord> replayed() {
    return recovery.resettled();
  }

  @Override
  public List<InterruptedCall> interrupted() {
    return recovery.interrupted();
  }

  /**
   * {@inheritDoc}
   *
   * <p>The settlers take their queue in order, so once as many records and interrupted calls
   * as recovery found have committed, all of recovery's have.
   */
  @Override
  public boolean recoveryPending() {
    return settled.get() < recovery.resettled().size()
        || interrupted.get() < recovery.interrupted().size();
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
    List<SettleWork> toSettle = new ArrayList<>();
    int unknownSends = 0;
    for (Event e : events.values()) {
      long[] undeliveredIntents = e.intents.stream().filter(r -> !r.delivered())
          .mapToLong(RecoveredRecord::sequence).toArray();
      if (e.settledRecord != null) {
        if (!e.settledRecord.delivered()) {
          UsageRecord record = UsageCodec.decodeRecord(e.settledRecord.payload());
          resettled.add(record);
          toSettle.add(new SettleWork(record, e.settledRecord.sequence(),
              append(undeliveredIntents, e.settledRecord.sequence())));
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
        // Interrupted calls stay in memory: at most the calls in flight at each crash.
        queued(new InterruptWork(call, undeliveredIntents));
      }
    }
    // The oldest records wait in memory, up to the queue's capacity; the settlers read the
    // rest back from the journal (records the queue holds too are handed over twice, which
    // settlement absorbs).
    toSettle.sort(Comparator.comparingLong(SettleWork::settledSequence));
    for (SettleWork w : toSettle) {
      if (overflowing) {
        lastSpilled = w.settledSequence();
        overflowedRecords.incrementAndGet();
      } else if (queue.size() < queueCapacity) {
        queued(w);
      } else {
        startOverflow(w.settledSequence());
      }
    }
    // What recovery queued is a backlog from before the restart: due at once, not after the
    // settlement linger.
    oldestQueuedNanos = System.nanoTime() - settleLingerNanos;
    if (!alreadySettled.isEmpty()) {
      // Marks lost in a crash after settlement committed: the call is settled, only the
      // intents' marks are missing. Opening does not wait for them to be durable (they may
      // linger for the next append's force); until they are, the intents merely stay in the
      // journal.
      markInBackground(alreadySettled.stream().mapToLong(Long::longValue).toArray(),
          alreadySettled.size());
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
    checkRoom(Stages.PROVIDER_ATTEMPT, "the dispatch intent cannot be recorded; the provider"
        + " was not called");
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
    if (record.attempts() == 0) {
      // A call that reached no provider cost nothing; at the limit its record is refused with
      // it, so refused calls cannot grow a full journal. Records of dispatched calls are always
      // written: at most one per call in flight.
      checkRoom(Stages.LEDGER_WRITE, "the usage record of a call that reached no provider is"
          + " not recorded");
    }
    long[] intents = openIntents.remove(record.eventId());
    long[] intentSequences = intents == null ? NONE : intents;
    long sequence = appendDurably(UsageCodec.SETTLED,
        UsageCodec.encode(record, intentSequences), Stages.LEDGER_WRITE, "usage record");
    SettleWork work = new SettleWork(record, sequence, append(intentSequences, sequence));
    if (!synchronous) {
      offer(work);
      return;
    }
    try {
      settlement.settle(List.of(record));
    } catch (RuntimeException e) {
      settlementFailures.incrementAndGet();
      offer(work);
      throw new io.pointsman.spi.RecordDurableException("the usage record is durable in the"
          + " journal but synchronous settlement failed; it will be retried", e);
    }
    settled.incrementAndGet();
    // The call waits for the commit, not for the delivered marks: they matter only for
    // reclaiming the journal and for sparing the record a second hand-over after a restart
    // (which settlement absorbs), so they are written without waiting and may linger for the
    // next append's force.
    try {
      markInBackground(work.sequences(), 1);
    } catch (JournalPoisonedException | JournalClosedException e) {
      giveUpMarks(e, 1);
    } catch (JournalException e) {
      // Refused for now (the journal's queue stayed full, or this thread was interrupted): the
      // settlers settle the record again, which settlement absorbs, and mark it with retries.
      offer(work);
    }
  }

  private void checkRoom(String stage, String consequence) {
    if (maxJournalBytes == 0) {
      return;
    }
    long held = journal.retainedBytes();
    if (held >= maxJournalBytes) {
      refusedCalls.incrementAndGet();
      throw PointsmanException.failure(Status.UNAVAILABLE, stage, consequence + ": the"
          + " journal is full until settlement catches up", new JournalFullException(held,
              maxJournalBytes));
    }
  }

  /** Hands a durable record to the settlers: queued, or left in the journal to be read back. */
  private void offer(SettleWork work) {
    handoff.lock();
    try {
      if (overflowing) {
        if (work.settledSequence() >= spillFrom) {
          lastSpilled = Math.max(lastSpilled, work.settledSequence());
          overflowedRecords.incrementAndGet();
          return;
        }
        // Appended before the overflow began, so the journal reader starts after it: queued,
        // beyond the capacity by at most the callers in flight.
        queued(work);
      } else if (queue.size() < queueCapacity) {
        queued(work);
      } else {
        startOverflow(work.settledSequence());
      }
      workAvailable.signal();
    } finally {
      handoff.unlock();
    }
  }

  /** Queues work for the settlers; called with the hand-off lock held. */
  private void queued(Work work) {
    if (queue.isEmpty()) {
      oldestQueuedNanos = System.nanoTime();
    }
    queue.add(work);
  }

  /** Called with the hand-off lock held (or before the settlers start). */
  private void startOverflow(long sequence) {
    overflowing = true;
    spillFrom = sequence;
    lastSpilled = sequence;
    cursorNext = sequence;
    overflowedRecords.incrementAndGet();
    LOG.warn("settlement is {} records behind: later records stay in the journal (from"
        + " sequence {}) and are read back from it when the queue is empty", queue.size(),
        sequence);
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

  // ---- settlers -------------------------------------------------------------------------

  /**
   * One settler thread. It holds at most one batch at a time and keeps it until the batch is
   * committed and its delivered marks are handed to the journal, whatever is thrown meanwhile: a
   * failure is recorded and the step retried after a pause, so the thread never ends before the
   * accounting closes. It does not wait for the marks to be durable (the journal may hold them
   * for the next append's force): its throughput never depends on the mark linger.
   */
  private final class Settler implements Runnable {
    final Thread thread;
    private List<Work> pending;
    private boolean committed;
    private long backoffMillis = retryInitialMillis;

    Settler(String name) {
      this.thread = new Thread(this, name);
      thread.setDaemon(true);
    }

    @Override
    public void run() {
      while (true) {
        try {
          if (step()) {
            return;
          }
        } catch (Throwable failure) {
          // Errors included: the batch stays held (it is durable in the journal anyway) and
          // the step is retried; only a close ends the thread.
          try {
            if (stopNow) {
              stoppedWith(failure);
            } else {
              failed(failure);
            }
          } catch (Throwable whileRecording) {
            // For example out of memory while logging: the retry below still happens.
          }
          if (stopNow) {
            return;
          }
          pause(backoffMillis);
          backoffMillis = Math.min(backoffMillis * 2, retryMaxMillis);
        }
      }
    }

    /** Does one unit of work; returns true when the settler must stop. */
    private boolean step() throws IOException {
      if (pending == null) {
        List<Work> next = take();
        if (next == null) {
          return true;
        }
        if (next.isEmpty()) {
          pause(10);
          return stopNow;
        }
        pending = next;
        committed = false;
      }
      if (!committed) {
        commit(pending);
        committed = true;
        succeeded();
        backoffMillis = retryInitialMillis;
      }
      mark(pending);
      inFlight.addAndGet(-pending.size());
      pending = null;
      return false;
    }

    private void stoppedWith(Throwable failure) {
      if (pending != null) {
        LOG.warn("settlement of {} records did not complete before shutdown ({}); they stay in"
            + " the journal for the next start", pending.size(), failure.toString());
      }
    }
  }

  /**
   * Returns the next batch: from the queue, else (while overflowing) read from the journal;
   * empty when there was nothing to read yet; null when the settler must stop.
   */
  private List<Work> take() throws IOException {
    JournalCursor reader;
    handoff.lock();
    try {
      while (true) {
        if (stopNow) {
          return null;
        }
        long lingering = queue.isEmpty() ? 0 : lingerLeft();
        if (lingering > 0) {
          // Records keep arriving: the batch waits up to the linger for more of them, so that
          // one ledger transaction (and one delivered mark) covers many calls.
          try {
            workAvailable.awaitNanos(lingering);
          } catch (InterruptedException e) {
            if (stopNow) {
              return null;
            }
          }
          continue;
        }
        if (!queue.isEmpty()) {
          List<Work> batch = new ArrayList<>(Math.min(maxBatch, queue.size()));
          while (batch.size() < maxBatch && !queue.isEmpty()) {
            batch.add(queue.poll());
          }
          inFlight.addAndGet(batch.size());
          return batch;
        }
        if (overflowing && !reading) {
          reading = true;
          if (cursor == null) {
            cursor = journal.cursor(spillFrom);
          }
          reader = cursor;
          break;
        }
        if (closing && !overflowing && inFlight.get() == 0) {
          return null;
        }
        try {
          workAvailable.await(100, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
          if (stopNow) {
            return null;
          }
        }
      }
    } finally {
      handoff.unlock();
    }
    List<RecoveredRecord> read = NOTHING_READ;
    try {
      read = reader.read(maxBatch, UsageCodec.SETTLED);
    } finally {
      handoff.lock();
      try {
        reading = false;
        cursorNext = reader.next();
        if (read.size() < maxBatch && reader.next() > lastSpilled) {
          // Caught up: every record left in the journal has been read; new records are queued
          // again.
          overflowing = false;
          cursor = null;
          LOG.info("settlement caught up with the records left in the journal");
          closeQuietly(reader);
        }
        inFlight.addAndGet(read.size());
        workAvailable.signalAll();
      } finally {
        handoff.unlock();
      }
    }
    List<Work> batch = new ArrayList<>(read.size());
    for (RecoveredRecord r : read) {
      try {
        UsageCodec.Settled decoded = UsageCodec.decodeSettled(r.payload());
        batch.add(new SettleWork(decoded.record(), r.sequence(),
            append(decoded.intentSequences(), r.sequence())));
      } catch (RuntimeException e) {
        // Never expected of a record that passed its checksum; it stays undelivered, and the
        // next start's recovery refuses it with the same error.
        inFlight.decrementAndGet();
        failed(e);
        LOG.error("journal record {} could not be decoded; it is left for recovery",
            r.sequence(), e);
      }
    }
    return batch;
  }

  private static final List<RecoveredRecord> NOTHING_READ = List.of();

  private static void closeQuietly(JournalCursor reader) {
    try {
      reader.close();
    } catch (IOException e) {
      LOG.debug("closing a journal cursor failed", e);
    }
  }

  /** Commits one batch; throws when it did not commit. */
  private void commit(List<Work> batch) {
    List<InterruptedCall> calls = new ArrayList<>();
    List<UsageRecord> records = new ArrayList<>();
    for (Work w : batch) {
      if (w instanceof InterruptWork iw) {
        calls.add(iw.call());
      } else {
        records.add(((SettleWork) w).record());
      }
    }
    if (!calls.isEmpty()) {
      settlement.interrupted(calls);
    }
    if (!records.isEmpty()) {
      settlement.settle(records);
    }
    interrupted.addAndGet(calls.size());
    settled.addAndGet(records.size());
  }

  /**
   * Hands the delivered marks of a committed batch to the journal, without waiting for them to
   * be durable. Throws (to be retried) when the journal refused them for now, for example
   * because its queue is full; returns without them when the journal is poisoned or closed: the
   * batch is committed and is handed over again, idempotently, at the next start. When the
   * force that was to make them durable fails, the journal is poisoned and they are given up the
   * same way, from the journal's completion: a failed force is never retried, and the poisoned
   * journal refuses later marks at once.
   */
  private void mark(List<Work> batch) {
    long[] sequences = NONE;
    for (Work w : batch) {
      sequences = concat(sequences, w.sequences());
    }
    if (sequences.length == 0) {
      return;
    }
    try {
      markInBackground(sequences, batch.size());
    } catch (JournalPoisonedException | JournalClosedException e) {
      giveUpMarks(e, batch.size());
    }
  }

  /**
   * Enqueues delivered marks and returns at once; a failure of their write or force (the
   * journal is then poisoned) is logged when it happens. Throws what {@link
   * SegmentedJournal#markDelivered(long...)} throws when it refuses them.
   */
  private void markInBackground(long[] sequences, int records) {
    journal.markDelivered(sequences).whenComplete((ignored, failure) -> {
      if (failure != null) {
        giveUpMarks(failure instanceof CompletionException && failure.getCause() != null
            ? failure.getCause() : failure, records);
      }
    });
  }

  /**
   * Logs marks given up: a completed future of the journal fails only when it is poisoned, a
   * call only when it is poisoned or closed. Either way the records are handed over again at the
   * next start, and nothing is retried.
   */
  private static void giveUpMarks(Throwable cause, int records) {
    LOG.error("the delivered marks of {} settled records cannot be written ({}); they are"
        + " handed to settlement again at the next start", records, cause.getMessage());
  }

  private void succeeded() {
    lastSuccessAt = clock.now();
    stalledSince = null;
    consecutiveFailures.set(0);
  }

  private void failed(Throwable failure) {
    settlementFailures.incrementAndGet();
    consecutiveFailures.incrementAndGet();
    Instant now;
    try {
      now = clock.now();
    } catch (RuntimeException e) {
      now = Instant.now();
    }
    if (stalledSince == null) {
      stalledSince = now;
    }
    lastErrorAt = now;
    lastError = failure.getClass().getName() + ": " + failure.getMessage();
    LOG.warn("settlement failed ({} in a row); retrying", consecutiveFailures.get(), failure);
  }

  private void pause(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      // Only close() interrupts a settler, after setting stopNow; the caller checks it.
    }
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
   * While the queue overflows into the journal, the records left there are estimated from
   * journal sequence numbers (which also count intents and marks), at least 1.
   *
   * @return the backlog
   */
  public long backlog() {
    handoff.lock();
    try {
      long spilled = overflowing ? Math.max(1, lastSpilled - cursorNext + 1) : 0;
      return queue.size() + inFlight.get() + spilled;
    } finally {
      handoff.unlock();
    }
  }

  /** The records waiting in memory (tests check the bound). */
  int queuedInMemory() {
    handoff.lock();
    try {
      return queue.size();
    } finally {
      handoff.unlock();
    }
  }

  /**
   * Returns a snapshot of the settlement hand-over for health checks.
   *
   * @return the state; never null
   */
  public SettlerState settlerState() {
    boolean running = !closed && settlers.stream().allMatch(s -> s.thread.isAlive());
    boolean over;
    handoff.lock();
    try {
      over = overflowing;
    } finally {
      handoff.unlock();
    }
    long retained = journal.retainedBytes();
    return new SettlerState(running, stalledSince, backlog(), lastError, lastErrorAt,
        lastSuccessAt, consecutiveFailures.get(), over, journal.isPoisoned(), retained,
        maxJournalBytes, maxJournalBytes > 0 && retained >= maxJournalBytes);
  }

  /**
   * Returns how many usage records settlement has committed since this accounting opened
   * (a record handed over twice, which settlement absorbs, counts twice).
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
   * Returns how many settlement steps failed (and were retried): commits, delivered marks,
   * journal reads.
   *
   * @return the count
   */
  public long settlementFailures() {
    return settlementFailures.get();
  }

  /**
   * Returns how many records were left in the journal, not queued, because the queue was
   * full.
   *
   * @return the count since open
   */
  public long overflowedRecords() {
    return overflowedRecords.get();
  }

  /**
   * Returns how many dispatch intents and records were refused because the journal was at its
   * size limit.
   *
   * @return the count since open
   */
  public long refusedCalls() {
    return refusedCalls.get();
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
  @Override
  public boolean awaitDrained(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (backlog() > 0) {
      if (System.nanoTime() > deadline || settlers.stream().noneMatch(s -> s.thread.isAlive())) {
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
    if (closing) {
      return;
    }
    closing = true;
    handoff.lock();
    try {
      workAvailable.signalAll();
    } finally {
      handoff.unlock();
    }
    try {
      long deadline = System.nanoTime() + drainTimeout.toNanos();
      for (Settler settler : settlers) {
        // join(0) would wait forever: a zero drain timeout means do not wait.
        settler.thread.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
      }
      if (settlers.stream().anyMatch(s -> s.thread.isAlive())) {
        stopNow = true;
        for (Settler settler : settlers) {
          settler.thread.interrupt();
        }
        for (Settler settler : settlers) {
          settler.thread.join(5_000);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closed = true;
      handoff.lock();
      try {
        // The settlers have stopped (or are abandoned after the stop timeout).
        if (cursor != null) {
          closeQuietly(cursor);
          cursor = null;
        }
      } finally {
        handoff.unlock();
      }
      journal.close();
    }
  }

  /**
   * Returns how long the queued work may still wait for more to join its batch, 0 when a batch
   * is due (full, the linger elapsed, or closing). Called with the hand-off lock held.
   */
  private long lingerLeft() {
    if (settleLingerNanos == 0 || closing || stopNow || queue.size() >= maxBatch) {
      return 0;
    }
    return Math.max(0, oldestQueuedNanos + settleLingerNanos - System.nanoTime());
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
    private Duration settleLinger = DEFAULT_SETTLE_LINGER;
    private int settlerThreads = 1;
    private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
    private long maxJournalBytes = -1;
    private Duration retryInitial = DEFAULT_RETRY_INITIAL;
    private Duration retryMax = DEFAULT_RETRY_MAX;
    private Duration drainTimeout = Duration.ofSeconds(10);
    private Clock clock = Clock.system();

    private Builder(JournalConfig config, Settlement settlement) {
      this.config = Objects.requireNonNull(config, "config");
      this.settlement = Objects.requireNonNull(settlement, "settlement");
    }

    /**
     * Asks for settlement before acknowledgement: {@code settled} returns only after
     * settlement committed the record, and fails the call when it did not (the record stays in
     * the journal and is retried). It does not wait for the record's delivered marks to be
     * durable: they only let the journal reclaim the record's segment and spare it a second
     * hand-over after a restart, and the journal may hold them for the next append's force
     * ({@link JournalConfig#markLinger()}). Default: off.
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
     * Sets how long a durable record may wait in the settlement queue for others to join its
     * batch. A batch goes to settlement when it holds {@link #maxBatch(int)} records, when its
     * oldest record has waited this long, or at close. One batch is one settlement transaction
     * and one delivered mark in the journal, so at 500 calls per second the default turns
     * hundreds of ledger commits (each a database log flush on the disk the journal forces on)
     * into about fifty. The linger delays only the ledger rows, never a call: a call returns
     * once its record is durable in the journal. Synchronous settlement does not linger.
     * Default: {@link #DEFAULT_SETTLE_LINGER}; zero settles each record as soon as a settler
     * is free.
     *
     * @param value 0 to 10 seconds
     * @return this builder
     * @throws IllegalArgumentException if negative or above 10 seconds
     * @throws NullPointerException if {@code value} is null
     */
    public Builder settleLinger(Duration value) {
      Objects.requireNonNull(value, "value");
      if (value.isNegative() || value.compareTo(Duration.ofSeconds(10)) > 0) {
        throw new IllegalArgumentException("settleLinger must be between 0 and 10 s: " + value);
      }
      this.settleLinger = value;
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
     * Sets how many records may wait for settlement in memory; beyond that, records stay only
     * in the journal and the settlers read them back from it once the queue is empty. Each
     * queued record costs about half a kilobyte of heap. Default: {@link
     * #DEFAULT_QUEUE_CAPACITY}.
     *
     * @param value 1 to 1,000,000
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder queueCapacity(int value) {
      if (value < 1 || value > 1_000_000) {
        throw new IllegalArgumentException("queueCapacity must be between 1 and 1000000: "
            + value);
      }
      this.queueCapacity = value;
      return this;
    }

    /**
     * Sets the journal size limit: once the segment files holding unsettled records reach it
     * ({@link SegmentedJournal#retainedBytes()}), new dispatch intents, and the usage records of
     * calls that reached no provider, are refused with a 503 caused by {@link
     * JournalFullException}; the provider is not called. Records of calls already dispatched
     * are still written, so the files may exceed the limit by those, plus the preallocated
     * next segment. Default: {@link #DEFAULT_MAX_JOURNAL_BYTES} (or four segments, if more).
     *
     * @param bytes the limit, at least two segments; 0 for no limit
     * @return this builder
     * @throws IllegalArgumentException if negative ({@link #open()} also refuses a limit below
     *     two segments)
     */
    public Builder maxJournalBytes(long bytes) {
      if (bytes < 0) {
        throw new IllegalArgumentException("maxJournalBytes must not be negative: " + bytes);
      }
      this.maxJournalBytes = bytes;
      return this;
    }

    /**
     * Sets the pauses between retries of a failed settlement step: the first pause, doubled
     * after each further failure up to the longest. Default: {@link #DEFAULT_RETRY_INITIAL} to
     * {@link #DEFAULT_RETRY_MAX}.
     *
     * @param initial the first pause, at least 1 ms
     * @param max the longest pause, at least {@code initial}
     * @return this builder
     * @throws IllegalArgumentException if out of range
     */
    public Builder retryBackoff(Duration initial, Duration max) {
      Objects.requireNonNull(initial, "initial");
      Objects.requireNonNull(max, "max");
      if (initial.toMillis() < 1 || max.compareTo(initial) < 0) {
        throw new IllegalArgumentException("retry backoff needs 1 ms <= initial <= max: "
            + initial + ", " + max);
      }
      this.retryInitial = initial;
      this.retryMax = max;
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
     * @throws JournalLockedException when another journal holds the directory
     * @throws IllegalArgumentException when the journal size limit is below two segments
     * @throws JournalException when the journal cannot be opened
     */
    public JournalAccounting open() {
      return new JournalAccounting(this);
    }
  }
}
