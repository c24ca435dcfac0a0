package io.pointsman.journal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.zip.CRC32C;
import org.HdrHistogram.Histogram;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A segmented, checksummed, append-only log whose appends complete only once they are durable.
 *
 * <p>Records go to segment files of a fixed, preallocated size in one directory. A single
 * dedicated I/O thread writes them: every append that arrives while a write and force are in
 * flight joins the next batch, and each batch costs one write and one {@code fdatasync}. Appends
 * wait for no timer: with one caller the journal forces once per append, with many callers the
 * cost per append falls. Only a batch of delivered marks alone waits, for at most {@link
 * JournalConfig#markLinger()}, for the next append to share its force (see {@link
 * #markDelivered(long...)}).
 *
 * <pre>{@code
 * try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(dir).build())) {
 *   for (RecoveredRecord record : journal.recovered()) {
 *     if (!record.delivered()) {
 *       redeliver(record);
 *     }
 *   }
 *   long seq = journal.append((byte) 1, payload).join(); // durable now
 *   journal.markDelivered(seq).join();
 * }
 * }</pre>
 *
 * <p><b>Thread-safety.</b> All methods are safe to call from any number of threads, including
 * virtual threads. Callers never touch a file channel, so interrupting a caller cannot close one
 * and never affects other callers.
 *
 * <p><b>Back-pressure.</b> At most {@link JournalConfig#queueCapacity()} units wait for the I/O
 * thread. An append that finds the queue full blocks until there is room, for at most {@link
 * JournalConfig#enqueueTimeout()}, then throws {@link JournalBackPressureException}. If the caller
 * is interrupted while it blocks it throws {@link JournalInterruptedException}; in both cases
 * nothing was enqueued. An interrupt while waiting on the returned future affects only that wait:
 * the record is still written.
 *
 * <p><b>Failure.</b> Any error writing, forcing, renaming, syncing the directory or deleting
 * poisons the journal: every future of the failing batch and of the queue fails with {@link
 * JournalPoisonedException}, and every later call throws it at once. A failed force is never
 * retried. Only a restart, whose recovery reads what is really durable, clears it.
 *
 * <p><b>Delivered marks</b> are records in the log, made durable like any append, though a
 * batch of marks alone may wait for the next append's force (the mark linger). Recovery applies
 * them, so a record marked before a restart comes back with {@link RecoveredRecord#delivered()}
 * set. A mark counts only once a force covering it has returned; a segment file is deleted (and
 * the directory synced) once it is sealed and every caller record in it and in all older
 * segments is delivered by such a mark; deletion goes oldest first, so a mark is never deleted
 * while the record it covers still exists.
 *
 * <p><b>Exclusive.</b> {@link #open} takes an exclusive lock on the directory (a {@code
 * journal.lock} file holding the holder's process id, host and start time) until {@link
 * #close()}; a second opener, in another process or in this one, fails with {@link
 * JournalLockedException} naming the holder.
 *
 * <p>Futures are completed on the I/O thread. Dependent stages attached without an executor run
 * there too: keep them short and never block in them, or use the {@code ...Async} variants.
 */
public final class SegmentedJournal implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SegmentedJournal.class);
  private static final int MAX_WRITE_BYTES = 4 << 20;
  private static final int MARKS_PER_RECORD = 512;
  private static final int SEAL_BYTES = RecordFormat.RECORD_HEADER_BYTES;
  private static final byte[] EMPTY = new byte[0];
  /** On the preparation thread, dirty zeros are forced every this many bytes. */
  private static final int PREPARATION_FORCE_BYTES = 4 << 20;
  /**
   * The slowest a preparation thread goes: a whole segment over this many nanoseconds, unless
   * the active segment fills faster (see {@link #pace(long)}).
   */
  private static final long PREPARATION_SPREAD_NANOS = 4_000_000_000L;
  /** How full a new active segment gets before its successor's preparation starts. */
  private static final int PREPARATION_START_PERMILLE = 50;
  /** How long after a rotation the successor's preparation starts at the latest. */
  private static final long PREPARATION_DELAY_NANOS = 1_000_000_000L;

  /** Deliberate defects, for tests that prove the crash suite notices them. */
  enum Defect {
    NONE,
    ACKNOWLEDGE_BEFORE_FORCE,
    /** Applies held delivered marks, and reclaims segments, before any force covers them. */
    RECLAIM_BEFORE_MARK_FORCE
  }

  /**
   * Held delivered marks are forced on their own once they reach this many bytes, even before
   * the linger elapses: it bounds the memory they hold and the bytes a caller's write carries.
   */
  private static final int HELD_MARK_BYTES = 1 << 20;

  private final JournalIO io;
  private final Path directory;
  private final int segmentBytes;
  private final int maxPayloadBytes;
  private final int queueCapacity;
  private final long enqueueTimeoutNanos;
  private final long markLingerNanos;
  private final int preallocationChunkBytes;
  private volatile List<RecoveredRecord> recovered;
  private final Defect defect;
  private final Thread ioThread;
  /** The preparation thread; null when segments are prepared on the I/O thread. */
  private final Thread prepareThread;
  /**
   * Guards the prepared segment ({@code prepared*}) and the {@code prepare*} flags when a
   * preparation thread runs; without one they are confined to the I/O thread.
   */
  private final Object slot = new Object();
  private boolean prepareStop;
  /** How full the active segment is, in thousandths, as of the I/O thread's last write. */
  private volatile int activeFillPermille;
  private boolean prepareIdle;
  private Throwable prepareFailure;
  private final JournalIO.DirectoryLock directoryLock;
  /**
   * Segments holding records, by first sequence, for readers on other threads: they use only
   * the final fields (id, path, first sequence). Updated by the owning thread before a segment
   * is written to and before its file is deleted.
   */
  private final ConcurrentSkipListMap<Long, SegmentState> readable = new ConcurrentSkipListMap<>();
  /** One past the last sequence number covered by a force that returned. */
  private volatile long durableEnd;
  private volatile long undeliveredPublished;
  private volatile int retainedSegments;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition notEmpty = lock.newCondition();
  private final Condition notFull = lock.newCondition();
  private final Condition quiescent = lock.newCondition();
  // Guarded by lock.
  private final ArrayDeque<Unit> queue = new ArrayDeque<>();
  private boolean closing;
  private boolean ioWaiting;
  private boolean ioFinished;
  private int fullWaiters;
  private JournalPoisonedException poison;
  /**
   * Delivered marks taken from the queue and not yet written: they wait for a caller append to
   * share its force, until {@link #heldDeadline}. Confined to the I/O thread.
   */
  private final List<Unit> held = new ArrayList<>();
  private int heldBytes;
  private long heldDeadline;
  private volatile int heldPublished;

  // Confined to the I/O thread once it runs (to the opening thread before).
  private final TreeMap<Long, SegmentState> segmentsBySequence = new TreeMap<>();
  private final CRC32C crc = new CRC32C();
  private final SecureRandom saltSource = new SecureRandom();
  private SegmentState active;
  private JournalIO.JournalFile activeFile;
  private long activeSalt;
  private int activeCapacity;
  private int writePosition;
  private long preparedId = -1;
  private JournalIO.JournalFile preparedFile;
  private long preparedSalt;
  private int preparedCapacity;
  private Preparation preparation;
  private long nextSegmentId;
  private long nextSequence;
  private ByteBuffer buffer = ByteBuffer.allocateDirect(64 << 10);
  // Confined to the preparation thread once it runs (to the I/O thread without one).
  private ByteBuffer zeros;
  private long undelivered;

  private final AtomicLong appends = new AtomicLong();
  private final AtomicLong units = new AtomicLong();
  private final AtomicLong forces = new AtomicLong();
  private final AtomicLong markOnlyForces = new AtomicLong();
  private final AtomicLong bytesWritten = new AtomicLong();
  private final AtomicLong segmentsCreated = new AtomicLong();
  private final AtomicLong segmentsDeleted = new AtomicLong();
  private final ReentrantLock histogramLock = new ReentrantLock();
  private final Histogram batchRecords = new Histogram(3);
  private final Histogram forceLatencyNanos = new Histogram(3);

  private SegmentedJournal(JournalConfig config, JournalRecovery.Result recovery, Defect defect,
      JournalIO.DirectoryLock directoryLock) {
    this.directoryLock = directoryLock;
    this.io = config.io();
    this.directory = config.directory();
    this.segmentBytes = config.segmentBytes();
    this.maxPayloadBytes = config.maxPayloadBytes();
    this.queueCapacity = config.queueCapacity();
    this.enqueueTimeoutNanos = config.enqueueTimeout().toNanos();
    this.markLingerNanos = config.markLinger().toNanos();
    this.preallocationChunkBytes = Math.min(config.preallocationChunkBytes(), segmentBytes);
    this.recovered = recovery.records;
    this.defect = defect;
    this.nextSegmentId = recovery.nextSegmentId;
    this.nextSequence = recovery.nextSequence;
    for (SegmentState state : recovery.segments) {
      segmentsBySequence.put(state.firstSequence, state);
      readable.put(state.firstSequence, state);
      undelivered += state.undeliveredCount();
    }
    this.durableEnd = recovery.nextSequence;
    publishCounts();
    if (!recovery.segments.isEmpty()) {
      active = recovery.segments.get(recovery.segments.size() - 1);
      activeFile = recovery.tailFile;
      activeSalt = recovery.tailSalt;
      activeCapacity = recovery.tailCapacity;
      writePosition = recovery.tailWritePosition;
    }
    if (recovery.preparedFile != null) {
      preparedId = recovery.preparedId;
      preparedFile = recovery.preparedFile;
      preparedSalt = recovery.preparedSalt;
      preparedCapacity = recovery.preparedCapacity;
    }
    this.ioThread = config.threadFactory().newThread(this::runIo);
    this.prepareThread = config.backgroundPreparation()
        ? config.preparationThreadFactory().newThread(this::runPreparation)
        : null;
  }

  /**
   * Opens the journal in the configured directory, creating it if needed, and recovers what a
   * previous run left: valid records are exposed by {@link #recovered()}, a torn tail left by a
   * crash is zeroed and forced, leftover preallocation files are deleted. Recovering the same
   * directory again yields the same records.
   *
   * <p>Recovery runs on the calling thread; interrupting it may abort the open with an {@link
   * UncheckedIOException}, which leaves the directory recoverable.
   *
   * @param config the settings
   * @return the open journal, its I/O thread started
   * @throws NullPointerException if {@code config} is null
   * @throws JournalCorruptedException if the files hold damage a crash cannot explain; no file
   *     was modified
   * @throws UncheckedIOException if the directory cannot be read, written or synced
   */
  public static SegmentedJournal open(JournalConfig config) {
    return open(config, Defect.NONE);
  }

  static SegmentedJournal open(JournalConfig config, Defect defect) {
    Objects.requireNonNull(config, "config");
    JournalIO io = config.io();
    Path directory = config.directory();
    JournalRecovery.Result recovery;
    JournalIO.DirectoryLock lock;
    try {
      List<Path> created = io.createDirectories(directory);
      // A new directory's name is durable only once its parent is synced; without that a
      // power loss could take the directory, and every acknowledged record in it, away. The
      // immediate parent is synced even when the directory existed: an earlier run may have
      // created it without.
      LinkedHashSet<Path> parents = new LinkedHashSet<>();
      for (Path made : created) {
        if (made.getParent() != null) {
          parents.add(made.getParent());
        }
      }
      Path parent = directory.toAbsolutePath().getParent();
      if (parent != null) {
        parents.add(parent);
      }
      for (Path p : parents) {
        io.syncDirectory(p);
      }
      // Fails early on platforms where a directory cannot be synced: without it no segment
      // creation or deletion would be durable.
      io.syncDirectory(directory);
    } catch (IOException e) {
      throw new UncheckedIOException("could not create the journal directory " + directory, e);
    }
    try {
      lock = io.lock(directory, holder(directory));
    } catch (IOException e) {
      throw new UncheckedIOException("could not lock the journal directory " + directory, e);
    }
    try {
      recovery = new JournalRecovery(io, directory).recover();
    } catch (IOException | RuntimeException e) {
      release(lock);
      if (e instanceof IOException) {
        throw new UncheckedIOException("could not recover the journal in " + directory,
            (IOException) e);
      }
      throw (RuntimeException) e;
    }
    SegmentedJournal journal = new SegmentedJournal(config, recovery, defect, lock);
    try {
      if (journal.active == null) {
        journal.startFresh();
        journal.publishCounts();
      }
    } catch (IOException | RuntimeException e) {
      journal.closeFiles();
      release(lock);
      if (e instanceof IOException) {
        throw new UncheckedIOException("could not create the first segment in " + directory,
            (IOException) e);
      }
      throw (RuntimeException) e;
    }
    if (recovery.tornBytesZeroed > 0) {
      LOG.info("journal {}: zeroed a torn tail of {} bytes left by a crash", directory,
          recovery.tornBytesZeroed);
    }
    journal.ioThread.start();
    if (journal.prepareThread != null) {
      journal.prepareThread.start();
    }
    return journal;
  }

  /** Describes this process for the lock file: process id, host, process start, lock time. */
  private static String holder(Path directory) {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (IOException | RuntimeException e) {
      host = "unknown";
    }
    Instant started = ProcessHandle.current().info().startInstant().orElse(null);
    return "pid=" + ProcessHandle.current().pid() + " host=" + host + " started="
        + (started == null ? "unknown" : started) + " jvm="
        + ManagementFactory.getRuntimeMXBean().getName() + " locked=" + Instant.now()
        + " directory=" + directory.toAbsolutePath();
  }

  private static void release(JournalIO.DirectoryLock lock) {
    try {
      lock.close();
    } catch (IOException | RuntimeException e) {
      LOG.warn("releasing the journal directory lock failed; it is released when the process"
          + " ends", e);
    }
  }

  private void publishCounts() {
    undeliveredPublished = undelivered;
    retainedSegments = segmentsBySequence.size();
  }

  private void startFresh() throws IOException {
    while (preparedId < 0) {
      prepareStep();
    }
    activatePrepared();
  }

  /**
   * Returns the caller records found valid when the journal was opened, in sequence order, each
   * telling whether it was delivered. Records of segments already deleted are not included.
   *
   * @return an unmodifiable list; empty for a new journal
   */
  public List<RecoveredRecord> recovered() {
    return recovered;
  }

  /** Drops the recovered records once the owner has taken them, so they are not kept. */
  void forgetRecovered() {
    recovered = List.of();
  }

  /**
   * Returns the bytes of the segment files that hold records not all delivered, the active
   * segment included (the preallocated successor is not counted): what settlement being behind
   * costs on disk.
   *
   * @return segments held times the segment size
   */
  public long retainedBytes() {
    return (long) retainedSegments * segmentBytes;
  }

  /**
   * Returns how many caller records are durable and not yet marked delivered, as of the last
   * batch the I/O thread finished.
   *
   * @return the count
   */
  public long undeliveredRecords() {
    return undeliveredPublished;
  }

  /** One past the last sequence number that is durable; readers never look beyond it. */
  long durableEnd() {
    return durableEnd;
  }

  /** The segments readers may read, by first sequence. */
  ConcurrentSkipListMap<Long, SegmentState> readableSegments() {
    return readable;
  }

  JournalIO io() {
    return io;
  }

  /**
   * Opens a cursor that reads durable records from a sequence number on, from the segment
   * files, on the caller's thread (never the I/O thread). Used to re-read records that were not
   * kept in memory.
   */
  JournalCursor cursor(long fromSequence) {
    return new JournalCursor(this, fromSequence);
  }

  /**
   * Returns the directory holding the segments.
   *
   * @return the directory
   */
  public Path directory() {
    return directory;
  }

  /**
   * Appends one record. The future completes with the record's sequence number once a force
   * covering its bytes has returned; it fails with {@link JournalPoisonedException} if that
   * write or force failed. The payload is copied.
   *
   * @param type the caller's record type, 0 to 127
   * @param payload the bytes to store, at most {@link JournalConfig#maxPayloadBytes()}
   * @return a future of the record's sequence number
   * @throws NullPointerException if {@code payload} is null
   * @throws IllegalArgumentException if the type is negative or the payload too large
   * @throws JournalPoisonedException if an earlier I/O failure poisoned the journal
   * @throws JournalClosedException if the journal is closed
   * @throws JournalBackPressureException if the queue stayed full for the enqueue timeout
   * @throws JournalInterruptedException if interrupted while waiting for queue space
   */
  public CompletableFuture<Long> append(byte type, byte[] payload) {
    Objects.requireNonNull(payload, "payload");
    checkType(type);
    checkPayload(payload.length);
    SingleAppend unit = new SingleAppend(type, payload.clone());
    enqueue(unit);
    return unit.future;
  }

  /**
   * Appends several records as one unit: they are written contiguously, covered by one force,
   * and recovery returns either all of them or none. The future completes with their sequence
   * numbers, which are consecutive, in the order given.
   *
   * @param entries the records, at least one; together they must fit in one segment
   * @return a future of the records' sequence numbers
   * @throws NullPointerException if {@code entries} or an element is null
   * @throws IllegalArgumentException if empty or too large for a segment
   * @throws JournalPoisonedException if an earlier I/O failure poisoned the journal
   * @throws JournalClosedException if the journal is closed
   * @throws JournalBackPressureException if the queue stayed full for the enqueue timeout
   * @throws JournalInterruptedException if interrupted while waiting for queue space
   */
  public CompletableFuture<List<Long>> appendAll(List<JournalEntry> entries) {
    Objects.requireNonNull(entries, "entries");
    if (entries.isEmpty()) {
      throw new IllegalArgumentException("a unit needs at least one entry");
    }
    byte[] types = new byte[entries.size()];
    byte[][] payloads = new byte[entries.size()][];
    for (int i = 0; i < types.length; i++) {
      JournalEntry entry = Objects.requireNonNull(entries.get(i), "entry");
      types[i] = entry.type();
      payloads[i] = entry.payloadNoCopy();
      checkPayload(payloads[i].length);
    }
    MultiAppend unit = new MultiAppend(types, payloads);
    if (unit.bytes + SEAL_BYTES + RecordFormat.SEGMENT_HEADER_BYTES > segmentBytes) {
      throw new IllegalArgumentException("a unit of " + unit.bytes + " bytes does not fit in a"
          + " segment of " + segmentBytes + " bytes");
    }
    enqueue(unit);
    return unit.future;
  }

  /**
   * Records that the given records were delivered (settled downstream). The future completes
   * once the mark is durable; after a restart those records are recovered as delivered.
   * Sequence numbers that are unknown, already delivered or already reclaimed are ignored. Pass
   * only sequence numbers of appends whose futures completed.
   *
   * <p>A batch that holds only marks is not forced at once: the I/O thread holds the marks,
   * unwritten, for up to {@link JournalConfig#markLinger()}, and writes them ahead of the next
   * caller append, whose force covers both. If none comes in time, they are written and forced
   * on their own; {@link #close()} forces those still held. So the future may take up to the
   * linger (plus a force) to complete: a caller that needs nothing more than the mark's eventual
   * durability should not wait for it.
   *
   * <p>When every caller record of the oldest sealed segment is delivered, the I/O thread deletes
   * that file and syncs the directory, after the marks are durable.
   *
   * @param sequences the sequence numbers to mark
   * @return a future that completes when the marks are durable
   * @throws NullPointerException if {@code sequences} is null
   * @throws IllegalArgumentException if a sequence number is not positive
   * @throws JournalPoisonedException if an earlier I/O failure poisoned the journal
   * @throws JournalClosedException if the journal is closed
   * @throws JournalBackPressureException if the queue stayed full for the enqueue timeout
   * @throws JournalInterruptedException if interrupted while waiting for queue space
   */
  public CompletableFuture<Void> markDelivered(long... sequences) {
    Objects.requireNonNull(sequences, "sequences");
    for (long sequence : sequences) {
      if (sequence < 1) {
        throw new IllegalArgumentException("sequence numbers start at 1, got " + sequence);
      }
    }
    if (sequences.length == 0) {
      return CompletableFuture.completedFuture(null);
    }
    int perRecord = Math.min(MARKS_PER_RECORD, (segmentBytes - RecordFormat.SEGMENT_HEADER_BYTES
        - SEAL_BYTES - RecordFormat.RECORD_HEADER_BYTES) / Long.BYTES);
    List<CompletableFuture<Void>> parts = new ArrayList<>();
    for (int from = 0; from < sequences.length; from += perRecord) {
      Marks unit = new Marks(Arrays.copyOfRange(sequences, from,
          Math.min(sequences.length, from + perRecord)));
      enqueue(unit);
      parts.add(unit.future);
    }
    return parts.size() == 1
        ? parts.get(0)
        : CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0]));
  }

  /**
   * Returns whether an I/O failure poisoned the journal.
   *
   * @return {@code true} once poisoned; it stays poisoned until the process restarts
   */
  public boolean isPoisoned() {
    lock.lock();
    try {
      return poison != null;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns a snapshot of the journal's counters, histograms and queue depth.
   *
   * @return the metrics; never null
   */
  public JournalMetrics metrics() {
    int depth;
    lock.lock();
    try {
      depth = queue.size();
    } finally {
      lock.unlock();
    }
    histogramLock.lock();
    try {
      return new JournalMetrics(appends.get(), units.get(), forces.get(), markOnlyForces.get(),
          bytesWritten.get(), segmentsCreated.get(), segmentsDeleted.get(), depth,
          heldPublished, batchRecords.copy(), forceLatencyNanos.copy(), retainedBytes(),
          undeliveredRecords());
    } finally {
      histogramLock.unlock();
    }
  }

  /**
   * Stops accepting appends, writes and forces everything already queued (delivered marks held
   * for the linger included), stops the I/O thread and closes the files. Idempotent. Waits for the I/O thread even if the caller is interrupted
   * (the interrupt status is kept). Called from a future's callback on the I/O thread it only
   * requests the stop.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      closing = true;
      notEmpty.signal();
    } finally {
      lock.unlock();
    }
    if (Thread.currentThread() == ioThread) {
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        ioThread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    release(directoryLock);
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Blocks until the I/O thread is idle: nothing queued and no preallocation pending, or the
   * thread has stopped. Delivered marks it holds for the linger do not keep it busy. Tests use
   * it to make the order of I/O operations deterministic.
   */
  void awaitQuiescent() throws InterruptedException {
    lock.lock();
    try {
      while (!ioFinished && !(ioWaiting && queue.isEmpty())) {
        quiescent.await();
      }
    } finally {
      lock.unlock();
    }
    if (prepareThread != null) {
      synchronized (slot) {
        while (!prepareIdle && !prepareStop && prepareFailure == null) {
          slot.wait();
        }
      }
    }
  }

  static void checkType(byte type) {
    if (type < 0) {
      throw new IllegalArgumentException("record types are 0 to 127; negative types are"
          + " reserved by the journal, got " + type);
    }
  }

  private void checkPayload(int length) {
    if (length > maxPayloadBytes) {
      throw new IllegalArgumentException("payload of " + length + " bytes exceeds maxPayloadBytes "
          + maxPayloadBytes);
    }
  }

  private void enqueue(Unit unit) {
    lock.lock();
    try {
      checkUsable();
      if (queue.size() >= queueCapacity) {
        long remaining = enqueueTimeoutNanos;
        fullWaiters++;
        try {
          while (queue.size() >= queueCapacity) {
            if (remaining <= 0) {
              throw new JournalBackPressureException("the journal queue stayed full ("
                  + queueCapacity + " units) for " + TimeUnit.NANOSECONDS.toMillis(
                      enqueueTimeoutNanos) + " ms: the disk cannot keep up");
            }
            try {
              remaining = notFull.awaitNanos(remaining);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              throw new JournalInterruptedException(e);
            }
            checkUsable();
          }
        } finally {
          fullWaiters--;
        }
      }
      queue.add(unit);
      if (ioWaiting) {
        notEmpty.signal();
      }
    } finally {
      lock.unlock();
    }
  }

  private void checkUsable() {
    if (poison != null) {
      throw new JournalPoisonedException("an earlier journal write or force failed ("
          + poison.getCause() + ")", poison.getCause());
    }
    if (closing) {
      throw new JournalClosedException();
    }
  }

  // ---- I/O thread ------------------------------------------------------------------------

  private void runIo() {
    try {
      while (true) {
        List<Unit> batch = takeBatch();
        if (batch == null) {
          break;
        }
        try {
          if (!batch.isEmpty()) {
            writeBatch(batch);
          }
          if (prepareThread == null && preparedId < 0) {
            prepareStep();
          }
          if (defect == Defect.RECLAIM_BEFORE_MARK_FORCE && !held.isEmpty()) {
            applyMarks(held);
            reclaim();
            publishCounts();
          }
        } catch (Throwable failure) {
          poison(failure, batch);
          break;
        }
      }
    } finally {
      stopPreparation();
      closeFiles();
      lock.lock();
      boolean stopping;
      Throwable heldFailure;
      try {
        // Marks still held were never written: the journal was poisoned while they waited (a
        // close writes and forces them first).
        heldFailure = poison != null ? poison : new JournalClosedException();
        stopping = closing;
        ioFinished = true;
        quiescent.signalAll();
        notFull.signalAll();
      } finally {
        lock.unlock();
      }
      for (Unit unit : held) {
        unit.fail(heldFailure);
      }
      held.clear();
      heldBytes = 0;
      heldPublished = 0;
      if (stopping) {
        // Asked to stop (close() from a future's callback does not wait to release it). A
        // poisoned journal keeps the lock until close().
        release(directoryLock);
      }
    }
  }

  /**
   * Returns the next batch, an empty list if there is preallocation to do, null to stop.
   *
   * <p>A batch of delivered marks alone is not returned while the linger runs: the marks are
   * held, unwritten, and go ahead of the first caller unit that arrives, in its batch; when the
   * linger elapses first, when they reach {@link #HELD_MARK_BYTES}, or when the journal closes,
   * they are returned on their own.
   */
  private List<Unit> takeBatch() {
    lock.lock();
    try {
      while (true) {
        if (queue.isEmpty()) {
          if (poison != null) {
            return null;
          }
          if (closing) {
            return held.isEmpty() ? null : releaseHeld();
          }
          if (prepareThread == null && preparedId < 0) {
            return List.of();
          }
          long lingerNanos = 0;
          if (!held.isEmpty()) {
            lingerNanos = heldDeadline - System.nanoTime();
            if (lingerNanos <= 0) {
              return releaseHeld();
            }
          }
          ioWaiting = true;
          quiescent.signalAll();
          if (held.isEmpty()) {
            notEmpty.awaitUninterruptibly();
          } else {
            try {
              notEmpty.awaitNanos(lingerNanos);
            } catch (InterruptedException e) {
              // Nobody interrupts the I/O thread; the loop waits again for what is left.
            }
          }
          ioWaiting = false;
          continue;
        }
        boolean due = !held.isEmpty() && heldDeadline - System.nanoTime() <= 0;
        List<Unit> batch = new ArrayList<>(held.size() + Math.min(queue.size(), 1024));
        batch.addAll(held);
        int bytes = heldBytes;
        boolean callers = false;
        int taken = 0;
        while (!queue.isEmpty() && (taken == 0 || bytes + queue.peek().bytes <= MAX_WRITE_BYTES)) {
          Unit unit = queue.poll();
          batch.add(unit);
          bytes += unit.bytes;
          callers |= !(unit instanceof Marks);
          taken++;
        }
        if (fullWaiters > 0) {
          notFull.signalAll();
        }
        if (callers || closing || due || markLingerNanos == 0 || bytes >= HELD_MARK_BYTES) {
          held.clear();
          heldBytes = 0;
          heldPublished = 0;
          return batch;
        }
        // Marks alone: held for a caller's force. The deadline is the oldest held mark's.
        if (held.isEmpty()) {
          heldDeadline = System.nanoTime() + markLingerNanos;
        }
        held.clear();
        held.addAll(batch);
        heldBytes = bytes;
        heldPublished = held.size();
        if (defect == Defect.RECLAIM_BEFORE_MARK_FORCE) {
          return List.of();
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Hands the held marks over as a batch of their own. Called with the lock held. */
  private List<Unit> releaseHeld() {
    List<Unit> batch = new ArrayList<>(held);
    held.clear();
    heldBytes = 0;
    heldPublished = 0;
    return batch;
  }

  private void writeBatch(List<Unit> batch) throws IOException {
    buffer.clear();
    int writeStart = writePosition;
    long writeFirst = nextSequence;
    int writeRecords = 0;
    boolean marks = false;
    boolean rotated = false;
    boolean marksOnly = true;
    for (Unit unit : batch) {
      marksOnly &= unit instanceof Marks;
    }
    for (Unit unit : batch) {
      if (writeStart + buffer.position() + unit.bytes + SEAL_BYTES > activeCapacity) {
        // The successor must be durable under its final name before the seal is: recovery
        // reads a sealed last segment as a lost successor.
        awaitPrepared();
        RecordFormat.encode(buffer, crc, activeSalt, active.id, RecordFormat.TYPE_SEAL, (byte) 0,
            Math.toIntExact(nextSequence - writeFirst), nextSequence++, EMPTY);
        write(writeStart);
        force(writeRecords, marksOnly);
        durableEnd = nextSequence;
        activatePrepared();
        rotated = true;
        buffer.clear();
        writeStart = writePosition;
        writeFirst = nextSequence;
        writeRecords = 0;
      }
      ensureBuffer(unit.bytes + SEAL_BYTES);
      unit.firstSequence = nextSequence;
      int last = unit.types.length - 1;
      for (int i = 0; i <= last; i++) {
        byte type = unit.types[i];
        RecordFormat.encode(buffer, crc, activeSalt, active.id, type,
            i == last ? 0 : RecordFormat.FLAG_UNIT_CONTINUES,
            Math.toIntExact(nextSequence - writeFirst), nextSequence, unit.payloads[i]);
        if (type >= 0) {
          active.addUndelivered(nextSequence);
          writeRecords++;
          undelivered++;
        }
        nextSequence++;
      }
      marks |= unit instanceof Marks;
    }
    write(writeStart);
    if (defect == Defect.ACKNOWLEDGE_BEFORE_FORCE) {
      complete(batch);
      force(writeRecords, marksOnly);
      durableEnd = nextSequence;
    } else {
      force(writeRecords, marksOnly);
      // Published before the futures complete: whoever learns of a record from its future
      // finds it below the durable end.
      durableEnd = nextSequence;
      complete(batch);
    }
    if (marks) {
      applyMarks(batch);
    }
    if (marks || rotated) {
      // A rotation can seal a segment whose records were all delivered while it was active.
      reclaim();
    }
    publishCounts();
  }

  private void complete(List<Unit> batch) {
    long records = 0;
    for (Unit unit : batch) {
      if (!(unit instanceof Marks)) {
        records += unit.types.length;
      }
    }
    appends.addAndGet(records);
    units.addAndGet(batch.size());
    for (Unit unit : batch) {
      unit.complete();
    }
  }

  private void write(int position) throws IOException {
    buffer.flip();
    int length = buffer.remaining();
    activeFile.write(position, buffer);
    writePosition = position + length;
    bytesWritten.addAndGet(length);
    if (prepareThread != null) {
      activeFillPermille = (int) (1000L * writePosition / activeCapacity);
    }
  }

  /** Forces the active segment; {@code marksOnly} when the batch holds no caller unit. */
  private void force(int records, boolean marksOnly) throws IOException {
    long start = System.nanoTime();
    activeFile.force(false);
    long elapsed = System.nanoTime() - start;
    forces.incrementAndGet();
    if (marksOnly) {
      markOnlyForces.incrementAndGet();
    }
    histogramLock.lock();
    try {
      batchRecords.recordValue(records);
      forceLatencyNanos.recordValue(elapsed);
    } finally {
      histogramLock.unlock();
    }
  }

  private void ensureBuffer(int more) {
    if (buffer.remaining() < more) {
      ByteBuffer larger = ByteBuffer.allocateDirect(
          Math.max(buffer.capacity() * 2, buffer.position() + more));
      buffer.flip();
      larger.put(buffer);
      buffer = larger;
    }
  }

  private void applyMarks(List<Unit> batch) {
    for (Unit unit : batch) {
      if (unit instanceof Marks) {
        for (long sequence : ((Marks) unit).sequences) {
          Map.Entry<Long, SegmentState> owner = segmentsBySequence.floorEntry(sequence);
          if (owner != null && owner.getValue().markDelivered(sequence)) {
            undelivered--;
          }
        }
      }
    }
  }

  /**
   * Deletes fully delivered segments, oldest first, one directory sync each: if a later
   * deletion became durable before an earlier one, a surviving segment could lose the marks
   * that cover its records.
   */
  private void reclaim() throws IOException {
    while (segmentsBySequence.size() > 1) {
      SegmentState oldest = segmentsBySequence.firstEntry().getValue();
      if (oldest == active || oldest.undeliveredCount() > 0) {
        return;
      }
      // Readers stop finding it before it goes; one that already opened it reads on (every
      // record in it is delivered).
      readable.remove(oldest.firstSequence);
      io.delete(oldest.path);
      io.syncDirectory(directory);
      segmentsBySequence.pollFirstEntry();
      segmentsDeleted.incrementAndGet();
    }
  }

  private void activatePrepared() throws IOException {
    awaitPrepared();
    long id;
    JournalIO.JournalFile file;
    long salt;
    int capacity;
    synchronized (slot) {
      id = preparedId;
      file = preparedFile;
      salt = preparedSalt;
      capacity = preparedCapacity;
      preparedId = -1;
      preparedFile = null;
      // The preparation thread starts on the successor's successor at once.
      slot.notifyAll();
    }
    if (activeFile != null) {
      activeFile.close();
    }
    active = new SegmentState(id, directory.resolve(RecordFormat.segmentFileName(id)),
        nextSequence);
    segmentsBySequence.put(nextSequence, active);
    readable.put(nextSequence, active);
    activeFile = file;
    activeSalt = salt;
    activeCapacity = capacity;
    writePosition = RecordFormat.SEGMENT_HEADER_BYTES;
    activeFillPermille = 0;
  }

  /**
   * Returns once the next segment is prepared. Without a preparation thread the caller prepares
   * it; with one the caller waits for it, and a failure of that thread fails the caller.
   */
  private void awaitPrepared() throws IOException {
    if (prepareThread == null || prepareThread.getState() == Thread.State.NEW) {
      // Inline, or still opening: the preparation thread starts after the first segment.
      while (preparedId < 0) {
        prepareStep();
      }
      return;
    }
    synchronized (slot) {
      boolean interrupted = false;
      while (preparedId < 0) {
        if (prepareFailure != null) {
          throw new IOException("preparing the next segment failed: " + prepareFailure,
              prepareFailure);
        }
        if (prepareStop) {
          throw new IOException("the journal's preparation thread stopped");
        }
        try {
          slot.wait();
        } catch (InterruptedException e) {
          interrupted = true;
        }
      }
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The preparation thread: keeps one prepared segment ready, one step at a time. */
  private void runPreparation() {
    try {
      while (true) {
        synchronized (slot) {
          while (!prepareStop && preparedId >= 0) {
            prepareIdle = true;
            slot.notifyAll();
            try {
              slot.wait();
            } catch (InterruptedException e) {
              // Nobody should interrupt it; stopping is asked through prepareStop.
              Thread.currentThread().interrupt();
              prepareStop = true;
            }
          }
          if (prepareStop) {
            return;
          }
          prepareIdle = false;
        }
        long started = System.nanoTime();
        do {
          if (!pace(started)) {
            return;
          }
          prepareStep();
        } while (preparation != null);
      }
    } catch (Throwable failure) {
      synchronized (slot) {
        prepareFailure = failure;
        slot.notifyAll();
      }
      poison(failure, List.of());
    } finally {
      synchronized (slot) {
        prepareIdle = true;
        slot.notifyAll();
      }
    }
  }

  /**
   * Waits until the preparation may take its next step, and returns false if asked to stop.
   * Zero-filling a segment in one burst floods the device queue that the I/O thread's forces
   * wait in, and the appends right after a rotation would pay for it. So the preparation of a
   * successor starts only once the new active segment is {@link #PREPARATION_START_PERMILLE}
   * thousandths full or {@link #PREPARATION_DELAY_NANOS} after the rotation, and then keeps
   * ahead of twice the active segment's fill beyond that start (it is done well before the
   * active segment is full) and of a floor that finishes it {@link #PREPARATION_SPREAD_NANOS}
   * after the delay. A full active segment lets it run unpaced.
   */
  private boolean pace(long started) {
    while (true) {
      synchronized (slot) {
        if (prepareStop) {
          return false;
        }
        Preparation p = preparation;
        if (p != null && p.written >= segmentBytes) {
          return true;
        }
        double done = p == null ? 0 : (double) p.written / segmentBytes;
        double byFill = 2 * (activeFillPermille - PREPARATION_START_PERMILLE) / 1000.0;
        double byTime = (double) (System.nanoTime() - started - PREPARATION_DELAY_NANOS)
            / PREPARATION_SPREAD_NANOS;
        if (done < Math.max(byFill, byTime)) {
          return true;
        }
        try {
          slot.wait(2);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          prepareStop = true;
          return false;
        }
      }
    }
  }

  /** Stops the preparation thread, if any, and waits for it: its files are closed after. */
  private void stopPreparation() {
    if (prepareThread == null) {
      return;
    }
    synchronized (slot) {
      prepareStop = true;
      slot.notifyAll();
    }
    if (Thread.currentThread() == prepareThread || prepareThread.getState() == Thread.State.NEW) {
      return;
    }
    boolean interrupted = false;
    while (true) {
      try {
        prepareThread.join();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** In-progress preallocation of the next segment. */
  private static final class Preparation {
    final long id;
    final long salt;
    final Path temporary;
    final JournalIO.JournalFile file;
    int written;
    boolean forced;
    boolean renamed;

    Preparation(long id, long salt, Path temporary, JournalIO.JournalFile file) {
      this.id = id;
      this.salt = salt;
      this.temporary = temporary;
      this.file = file;
    }
  }

  /**
   * Performs one I/O operation of preparing the next segment: create a temporary file, write
   * zeros a chunk at a time (writing, not {@code setLength}, so that no block is left
   * unallocated), force it, rename it into place, sync the directory. The rename comes after the
   * force, so a segment file visible under its final name always has a durable header.
   */
  private void prepareStep() throws IOException {
    Preparation p = preparation;
    if (p == null) {
      long id = nextSegmentId++;
      Path temporary = directory.resolve(RecordFormat.preparationFileName(id));
      preparation = new Preparation(id, saltSource.nextLong(), temporary, io.create(temporary));
      return;
    }
    if (p.written < segmentBytes) {
      int chunk = Math.min(preallocationChunkBytes, segmentBytes - p.written);
      ByteBuffer bytes;
      if (p.written == 0) {
        bytes = ByteBuffer.allocate(chunk);
        RecordFormat.writeSegmentHeader(bytes, p.id, p.salt);
        bytes.clear();
      } else {
        if (zeros == null) {
          zeros = ByteBuffer.allocateDirect(preallocationChunkBytes);
        }
        bytes = zeros.duplicate().clear().limit(chunk);
      }
      p.file.write(p.written, bytes);
      p.written += chunk;
      if (prepareThread != null && Thread.currentThread() == prepareThread
          && p.written < segmentBytes && p.written % PREPARATION_FORCE_BYTES < chunk) {
        // Bounds the dirty zeros, so that the final force is short and never floods the
        // device queue that the I/O thread's forces share.
        p.file.force(false);
      }
      return;
    }
    if (!p.forced) {
      p.file.force(true);
      p.forced = true;
      return;
    }
    Path target = directory.resolve(RecordFormat.segmentFileName(p.id));
    if (!p.renamed) {
      io.rename(p.temporary, target);
      p.renamed = true;
      return;
    }
    io.syncDirectory(directory);
    preparation = null;
    synchronized (slot) {
      preparedId = p.id;
      preparedFile = p.file;
      preparedSalt = p.salt;
      preparedCapacity = segmentBytes;
      slot.notifyAll();
    }
    segmentsCreated.incrementAndGet();
  }

  private void poison(Throwable failure, List<Unit> batch) {
    JournalPoisonedException poisoned =
        new JournalPoisonedException("journal I/O failed in " + directory + ": " + failure, failure);
    List<Unit> failed = new ArrayList<>(batch);
    boolean first;
    lock.lock();
    try {
      // The first failure names the poison; a later one (the I/O thread finding the
      // preparation thread's failure) fails its batch with it.
      first = poison == null;
      if (first) {
        poison = poisoned;
      } else {
        poisoned = poison;
      }
      failed.addAll(queue);
      queue.clear();
      notFull.signalAll();
      // Wakes an idle I/O thread, which stops on a poisoned journal.
      notEmpty.signal();
    } finally {
      lock.unlock();
    }
    if (first) {
      LOG.error("journal {} is poisoned and refuses all further appends; restart the process",
          directory, failure);
    }
    for (Unit unit : failed) {
      unit.fail(poisoned);
    }
  }

  private void closeFiles() {
    closeQuietly(activeFile);
    closeQuietly(preparedFile);
    if (preparation != null) {
      closeQuietly(preparation.file);
    }
    activeFile = null;
    preparedFile = null;
  }

  private static void closeQuietly(JournalIO.JournalFile file) {
    if (file == null) {
      return;
    }
    try {
      file.close();
    } catch (IOException e) {
      // Closing never loses data here: every byte that matters was forced or will be
      // recovered from disk, so the failure is only worth a log line.
      LOG.warn("closing a journal file failed", e);
    }
  }

  // ---- units -----------------------------------------------------------------------------

  /** Records that are written contiguously, covered by one force, and completed together. */
  private abstract static class Unit {
    final byte[] types;
    final byte[][] payloads;
    final int bytes;
    long firstSequence;

    Unit(byte[] types, byte[][] payloads) {
      this.types = types;
      this.payloads = payloads;
      int total = 0;
      for (byte[] payload : payloads) {
        total += RecordFormat.recordBytes(payload.length);
      }
      this.bytes = total;
    }

    abstract void complete();

    abstract void fail(Throwable failure);
  }

  private static final class SingleAppend extends Unit {
    final CompletableFuture<Long> future = new CompletableFuture<>();

    SingleAppend(byte type, byte[] payload) {
      super(new byte[] {type}, new byte[][] {payload});
    }

    @Override
    void complete() {
      future.complete(firstSequence);
    }

    @Override
    void fail(Throwable failure) {
      future.completeExceptionally(failure);
    }
  }

  private static final class MultiAppend extends Unit {
    final CompletableFuture<List<Long>> future = new CompletableFuture<>();

    MultiAppend(byte[] types, byte[][] payloads) {
      super(types, payloads);
    }

    @Override
    void complete() {
      Long[] sequences = new Long[types.length];
      for (int i = 0; i < sequences.length; i++) {
        sequences[i] = firstSequence + i;
      }
      future.complete(List.of(sequences));
    }

    @Override
    void fail(Throwable failure) {
      future.completeExceptionally(failure);
    }
  }

  private static final class Marks extends Unit {
    final CompletableFuture<Void> future = new CompletableFuture<>();
    final long[] sequences;

    Marks(long[] sequences) {
      super(new byte[] {RecordFormat.TYPE_DELIVERED}, new byte[][] {encode(sequences)});
      this.sequences = sequences;
    }

    private static byte[] encode(long[] sequences) {
      ByteBuffer bytes = ByteBuffer.allocate(sequences.length * Long.BYTES);
      for (long sequence : sequences) {
        bytes.putLong(sequence);
      }
      return bytes.array();
    }

    @Override
    void complete() {
      future.complete(null);
    }

    @Override
    void fail(Throwable failure) {
      future.completeExceptionally(failure);
    }
  }
}
