package io.pointsman.journal;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * Settings for a {@link SegmentedJournal}. Immutable and thread-safe; built with {@link
 * #builder(Path)}.
 *
 * <pre>{@code
 * JournalConfig config = JournalConfig.builder(Path.of("/var/lib/app/journal"))
 *     .segmentBytes(64 << 20)
 *     .build();
 * try (SegmentedJournal journal = SegmentedJournal.open(config)) {
 *   long seq = journal.append((byte) 1, bytes).join();
 * }
 * }</pre>
 */
public final class JournalConfig {
  /** Default segment size: 64 MiB. */
  public static final int DEFAULT_SEGMENT_BYTES = 64 << 20;
  /** Default largest payload: 1 MiB. */
  public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1 << 20;
  /** Default queue capacity, in units waiting to be written. */
  public static final int DEFAULT_QUEUE_CAPACITY = 16_384;
  /** Default preallocation step: 1 MiB of zeros per I/O-thread step. */
  public static final int DEFAULT_PREALLOCATION_CHUNK_BYTES = 1 << 20;
  /** Default time an append waits for queue space before failing. */
  public static final Duration DEFAULT_ENQUEUE_TIMEOUT = Duration.ofSeconds(30);
  /**
   * Default time a batch of delivered marks alone waits for a caller append to share its force:
   * 50 ms (see {@link Builder#markLinger(Duration)}).
   */
  public static final Duration DEFAULT_MARK_LINGER = Duration.ofMillis(50);
  /** The longest mark linger a builder accepts: one hour. */
  public static final Duration MAX_MARK_LINGER = Duration.ofHours(1);

  private final Path directory;
  private final JournalIO io;
  private final int segmentBytes;
  private final int maxPayloadBytes;
  private final int queueCapacity;
  private final int preallocationChunkBytes;
  private final Duration enqueueTimeout;
  private final Duration markLinger;
  private final ThreadFactory threadFactory;
  private final boolean backgroundPreparation;
  private final ThreadFactory preparationThreadFactory;

  private JournalConfig(Builder builder) {
    this.directory = builder.directory;
    this.io = builder.io == null ? JournalIO.files() : builder.io;
    this.segmentBytes = builder.segmentBytes == 0 ? DEFAULT_SEGMENT_BYTES : builder.segmentBytes;
    this.maxPayloadBytes = builder.maxPayloadBytes == 0
        ? Math.min(DEFAULT_MAX_PAYLOAD_BYTES, largestPayloadFor(segmentBytes))
        : builder.maxPayloadBytes;
    this.queueCapacity = builder.queueCapacity == 0 ? DEFAULT_QUEUE_CAPACITY : builder.queueCapacity;
    this.preallocationChunkBytes = builder.preallocationChunkBytes == 0
        ? DEFAULT_PREALLOCATION_CHUNK_BYTES
        : builder.preallocationChunkBytes;
    this.enqueueTimeout =
        builder.enqueueTimeout == null ? DEFAULT_ENQUEUE_TIMEOUT : builder.enqueueTimeout;
    this.markLinger = builder.markLinger == null ? DEFAULT_MARK_LINGER : builder.markLinger;
    this.threadFactory = builder.threadFactory == null
        ? task -> {
          Thread thread = new Thread(task, "pointsman-journal-io");
          thread.setDaemon(true);
          return thread;
        }
        : builder.threadFactory;
    this.backgroundPreparation = builder.backgroundPreparation == null
        || builder.backgroundPreparation;
    this.preparationThreadFactory = builder.threadFactory == null
        ? task -> {
          Thread thread = new Thread(task, "pointsman-journal-prepare");
          thread.setDaemon(true);
          return thread;
        }
        : builder.threadFactory;
  }

  /**
   * Starts a builder for a journal stored in {@code directory}.
   *
   * @param directory the directory holding the segment files; created if missing
   * @return a new builder
   * @throws NullPointerException if {@code directory} is null
   */
  public static Builder builder(Path directory) {
    return new Builder(Objects.requireNonNull(directory, "directory"));
  }

  static int largestPayloadFor(int segmentBytes) {
    return segmentBytes - RecordFormat.SEGMENT_HEADER_BYTES - 2 * RecordFormat.RECORD_HEADER_BYTES;
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
   * Returns the file-system seam.
   *
   * @return the I/O implementation
   */
  public JournalIO io() {
    return io;
  }

  /**
   * Returns the size every segment file is preallocated to.
   *
   * @return bytes per segment
   */
  public int segmentBytes() {
    return segmentBytes;
  }

  /**
   * Returns the largest payload a single record may carry.
   *
   * @return bytes
   */
  public int maxPayloadBytes() {
    return maxPayloadBytes;
  }

  /**
   * Returns how many units may wait for the I/O thread before appends wait.
   *
   * @return the queue capacity
   */
  public int queueCapacity() {
    return queueCapacity;
  }

  /**
   * Returns how many zero bytes the I/O thread writes per preallocation step.
   *
   * @return bytes per step
   */
  public int preallocationChunkBytes() {
    return preallocationChunkBytes;
  }

  /**
   * Returns how long an append waits for queue space.
   *
   * @return the timeout
   */
  public Duration enqueueTimeout() {
    return enqueueTimeout;
  }

  /**
   * Returns how long a batch of delivered marks alone is held for a caller append whose force
   * covers it too, before it is forced on its own.
   *
   * @return the linger; {@link Duration#ZERO} forces every such batch at once
   */
  public Duration markLinger() {
    return markLinger;
  }

  /**
   * Returns the factory that creates the journal's single I/O thread.
   *
   * @return the thread factory
   */
  public ThreadFactory threadFactory() {
    return threadFactory;
  }

  /**
   * Returns whether the next segment is prepared (zero-filled, forced, renamed into place) on a
   * thread of its own, beside the I/O thread, rather than between the I/O thread's batches.
   *
   * @return true unless {@link Builder#backgroundPreparation(boolean)} turned it off
   */
  public boolean backgroundPreparation() {
    return backgroundPreparation;
  }

  /** The factory of the preparation thread: the configured one, else a named daemon thread. */
  ThreadFactory preparationThreadFactory() {
    return preparationThreadFactory;
  }

  @Override
  public String toString() {
    return "JournalConfig[directory=" + directory + ", segmentBytes=" + segmentBytes
        + ", maxPayloadBytes=" + maxPayloadBytes + ", queueCapacity=" + queueCapacity
        + ", markLinger=" + markLinger + "]";
  }

  /**
   * Builds a {@link JournalConfig}. Setters fail fast; each may be called once. Not thread-safe.
   */
  public static final class Builder {
    private final Path directory;
    private JournalIO io;
    private int segmentBytes;
    private int maxPayloadBytes;
    private int queueCapacity;
    private int preallocationChunkBytes;
    private Duration enqueueTimeout;
    private Duration markLinger;
    private ThreadFactory threadFactory;
    private Boolean backgroundPreparation;

    private Builder(Path directory) {
      this.directory = directory;
    }

    /**
     * Sets the file-system seam; defaults to {@link JournalIO#files()}.
     *
     * @param io the implementation
     * @return this builder
     * @throws NullPointerException if {@code io} is null
     * @throws IllegalStateException if already set
     */
    public Builder io(JournalIO io) {
      Objects.requireNonNull(io, "io");
      requireUnset(this.io == null, "io", this.io);
      this.io = io;
      return this;
    }

    /**
     * Sets the segment size; defaults to {@link #DEFAULT_SEGMENT_BYTES}. Every segment file is
     * preallocated to this size with zeros.
     *
     * @param bytes at least 1024
     * @return this builder
     * @throws IllegalArgumentException if smaller than 1024
     * @throws IllegalStateException if already set
     */
    public Builder segmentBytes(int bytes) {
      if (bytes < 1024) {
        throw new IllegalArgumentException("segmentBytes must be at least 1024, was " + bytes);
      }
      requireUnset(segmentBytes == 0, "segmentBytes", segmentBytes);
      this.segmentBytes = bytes;
      return this;
    }

    /**
     * Sets the largest payload of one record; defaults to 1 MiB or what fits in a segment.
     *
     * @param bytes at least 1
     * @return this builder
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder maxPayloadBytes(int bytes) {
      if (bytes < 1) {
        throw new IllegalArgumentException("maxPayloadBytes must be positive, was " + bytes);
      }
      requireUnset(maxPayloadBytes == 0, "maxPayloadBytes", maxPayloadBytes);
      this.maxPayloadBytes = bytes;
      return this;
    }

    /**
     * Sets how many units may wait for the I/O thread; defaults to {@link
     * #DEFAULT_QUEUE_CAPACITY}. When the queue is full, appends wait (back-pressure).
     *
     * @param units at least 1
     * @return this builder
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder queueCapacity(int units) {
      if (units < 1) {
        throw new IllegalArgumentException("queueCapacity must be positive, was " + units);
      }
      requireUnset(queueCapacity == 0, "queueCapacity", queueCapacity);
      this.queueCapacity = units;
      return this;
    }

    /**
     * Sets how many zero bytes one preallocation step writes; defaults to {@link
     * #DEFAULT_PREALLOCATION_CHUNK_BYTES}. Smaller steps delay a waiting batch less.
     *
     * @param bytes at least 512
     * @return this builder
     * @throws IllegalArgumentException if smaller than 512
     * @throws IllegalStateException if already set
     */
    public Builder preallocationChunkBytes(int bytes) {
      if (bytes < 512) {
        throw new IllegalArgumentException(
            "preallocationChunkBytes must be at least 512, was " + bytes);
      }
      requireUnset(preallocationChunkBytes == 0, "preallocationChunkBytes", preallocationChunkBytes);
      this.preallocationChunkBytes = bytes;
      return this;
    }

    /**
     * Sets how long an append waits for queue space before it throws {@link
     * JournalBackPressureException}; defaults to {@link #DEFAULT_ENQUEUE_TIMEOUT}.
     *
     * @param timeout zero or positive
     * @return this builder
     * @throws NullPointerException if {@code timeout} is null
     * @throws IllegalArgumentException if negative
     * @throws IllegalStateException if already set
     */
    public Builder enqueueTimeout(Duration timeout) {
      Objects.requireNonNull(timeout, "timeout");
      if (timeout.isNegative()) {
        throw new IllegalArgumentException("enqueueTimeout must not be negative, was " + timeout);
      }
      requireUnset(enqueueTimeout == null, "enqueueTimeout", enqueueTimeout);
      this.enqueueTimeout = timeout;
      return this;
    }

    /**
     * Sets how long a batch that holds only delivered marks waits for a caller append; defaults
     * to {@link #DEFAULT_MARK_LINGER}.
     *
     * <p>A delivered mark needs to be durable only before the segment holding the records it
     * covers may be deleted, and to spare those records a second hand-over after a restart
     * (which the system of record absorbs, being idempotent). So the I/O thread does not force
     * a batch of marks alone at once: it holds the marks, unwritten, and writes them ahead of
     * the next caller append, whose one force covers both; a caller never waits longer for
     * this (its batch carries the marks' few bytes more, and has the force it would have had).
     * When no caller append comes within the linger, the marks are written and forced on their
     * own, as every such batch was before; {@link SegmentedJournal#close()} forces those still
     * held. Marks are applied, and segments reclaimed, only after the force that covers them, so
     * a segment is never deleted before the marks of all its records are durable.
     *
     * <p>A longer linger saves more forces at low rates and delays reclamation, and the future
     * of {@link SegmentedJournal#markDelivered(long...)}, by at most as much. The default, 50
     * ms, is five mean gaps between appends at 100 appends per second (50 gateway calls per
     * second, two records each): with appends arriving at random, fewer than one batch of marks
     * in a hundred waits that long without one. {@link Duration#ZERO} forces every batch of
     * marks at once, as before the linger existed.
     *
     * @param linger zero or positive, at most {@link #MAX_MARK_LINGER}
     * @return this builder
     * @throws NullPointerException if {@code linger} is null
     * @throws IllegalArgumentException if negative or longer than {@link #MAX_MARK_LINGER}
     * @throws IllegalStateException if already set
     */
    public Builder markLinger(Duration linger) {
      Objects.requireNonNull(linger, "linger");
      if (linger.isNegative() || linger.compareTo(MAX_MARK_LINGER) > 0) {
        throw new IllegalArgumentException("markLinger must be between zero and "
            + MAX_MARK_LINGER + ", was " + linger);
      }
      requireUnset(markLinger == null, "markLinger", markLinger);
      this.markLinger = linger;
      return this;
    }

    /**
     * Sets the factory for the journal's I/O thread; defaults to a daemon thread named {@code
     * pointsman-journal-io}. The thread must not be interrupted by anyone.
     *
     * @param factory the factory
     * @return this builder
     * @throws NullPointerException if {@code factory} is null
     * @throws IllegalStateException if already set
     */
    public Builder threadFactory(ThreadFactory factory) {
      Objects.requireNonNull(factory, "factory");
      requireUnset(threadFactory == null, "threadFactory", threadFactory);
      this.threadFactory = factory;
      return this;
    }

    /**
     * Sets whether the next segment is prepared on a thread of its own; defaults to true.
     *
     * <p>Preparing a segment writes {@link #segmentBytes(int)} of zeros and forces them. On its
     * own thread that work never sits between a caller and its force: the I/O thread only waits
     * for it if a segment fills before its successor is ready. With false, the I/O thread
     * prepares one {@link #preallocationChunkBytes(int)} step after each batch, and every
     * caller whose append arrives meanwhile waits for that step; the I/O steps then come in one
     * fixed order, which the crash enumeration tests rely on. The preparation thread comes from
     * {@link #threadFactory(ThreadFactory)} when one is set, else it is a daemon thread named
     * {@code pointsman-journal-prepare}.
     *
     * @param background true for a preparation thread, false to prepare on the I/O thread
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder backgroundPreparation(boolean background) {
      requireUnset(backgroundPreparation == null, "backgroundPreparation", backgroundPreparation);
      this.backgroundPreparation = background;
      return this;
    }

    /**
     * Builds the configuration.
     *
     * @return the immutable configuration
     * @throws IllegalArgumentException if the largest payload does not fit in a segment
     */
    public JournalConfig build() {
      int segment = segmentBytes == 0 ? DEFAULT_SEGMENT_BYTES : segmentBytes;
      if (maxPayloadBytes > largestPayloadFor(segment)) {
        throw new IllegalArgumentException("maxPayloadBytes " + maxPayloadBytes
            + " does not fit in a segment of " + segment + " bytes: raise segmentBytes to at least "
            + (maxPayloadBytes + RecordFormat.SEGMENT_HEADER_BYTES
                + 2 * RecordFormat.RECORD_HEADER_BYTES));
      }
      return new JournalConfig(this);
    }

    private static void requireUnset(boolean unset, String name, Object current) {
      if (!unset) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }
  }
}
