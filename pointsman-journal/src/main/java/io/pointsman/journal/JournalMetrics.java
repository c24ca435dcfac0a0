package io.pointsman.journal;

import org.HdrHistogram.Histogram;

/**
 * A point-in-time snapshot of a journal's counters and histograms. Immutable; the histograms
 * returned are copies the caller may modify.
 */
public final class JournalMetrics {
  private final long appends;
  private final long units;
  private final long forces;
  private final long markOnlyForces;
  private final long bytesWritten;
  private final long segmentsCreated;
  private final long segmentsDeleted;
  private final int queueDepth;
  private final int heldMarks;
  private final Histogram batchRecords;
  private final Histogram forceLatencyNanos;
  private final long retainedBytes;
  private final long undeliveredRecords;

  JournalMetrics(long appends, long units, long forces, long markOnlyForces, long bytesWritten,
      long segmentsCreated, long segmentsDeleted, int queueDepth, int heldMarks,
      Histogram batchRecords, Histogram forceLatencyNanos, long retainedBytes,
      long undeliveredRecords) {
    this.retainedBytes = retainedBytes;
    this.undeliveredRecords = undeliveredRecords;
    this.appends = appends;
    this.units = units;
    this.forces = forces;
    this.markOnlyForces = markOnlyForces;
    this.bytesWritten = bytesWritten;
    this.segmentsCreated = segmentsCreated;
    this.segmentsDeleted = segmentsDeleted;
    this.queueDepth = queueDepth;
    this.heldMarks = heldMarks;
    this.batchRecords = batchRecords;
    this.forceLatencyNanos = forceLatencyNanos;
  }

  /**
   * Returns how many caller records were made durable (each record of a unit counts).
   *
   * @return the count since open
   */
  public long appends() {
    return appends;
  }

  /**
   * Returns how many units (single appends, multi-record units, delivered marks) were made
   * durable.
   *
   * @return the count since open
   */
  public long units() {
    return units;
  }

  /**
   * Returns how many times the segment data was forced to disk for appends and marks, {@link
   * #markOnlyForces()} included.
   *
   * @return the count since open
   */
  public long forces() {
    return forces;
  }

  /**
   * Returns how many of the {@link #forces()} were made for delivered marks alone: forces of a
   * batch that held no caller record (marks whose linger elapsed with no caller append, marks
   * over the held limit, marks left at close, and every batch of marks alone when the linger is
   * zero). No caller waited for such a force, unless its append arrived while it ran.
   *
   * @return the count since open
   */
  public long markOnlyForces() {
    return markOnlyForces;
  }

  /**
   * Returns the forces made for batches holding caller records: {@link #forces()} minus {@link
   * #markOnlyForces()}. Delivered marks written in such a batch share its force.
   *
   * @return the count since open
   */
  public long recordForces() {
    return forces - markOnlyForces;
  }

  /**
   * Returns forces divided by caller records, the figure group commit lowers under load. It
   * counts every force, marks alone included; {@link #recordForces()} divided by {@link
   * #appends()} leaves those out.
   *
   * @return forces per append, or 0 before the first append
   */
  public double forcesPerAppend() {
    return appends == 0 ? 0 : (double) forces / appends;
  }

  /**
   * Returns the bytes written to segments for records (preallocation excluded).
   *
   * @return the byte count since open
   */
  public long bytesWritten() {
    return bytesWritten;
  }

  /**
   * Returns how many segment files were preallocated and put in place.
   *
   * @return the count since open
   */
  public long segmentsCreated() {
    return segmentsCreated;
  }

  /**
   * Returns how many fully delivered segment files were deleted.
   *
   * @return the count since open
   */
  public long segmentsDeleted() {
    return segmentsDeleted;
  }

  /**
   * Returns how many units were waiting for the I/O thread when the snapshot was taken.
   *
   * @return the queue depth
   */
  public int queueDepth() {
    return queueDepth;
  }

  /**
   * Returns how many units of delivered marks the I/O thread held, unwritten, for a caller
   * append's force to cover (see {@link JournalConfig#markLinger()}) when the snapshot was
   * taken.
   *
   * @return the held mark units
   */
  public int heldMarks() {
    return heldMarks;
  }

  /**
   * Returns the bytes of segment files holding records not all delivered (see {@link
   * SegmentedJournal#retainedBytes()}).
   *
   * @return bytes
   */
  public long retainedBytes() {
    return retainedBytes;
  }

  /**
   * Returns how many caller records were durable and not yet marked delivered.
   *
   * @return the count
   */
  public long undeliveredRecords() {
    return undeliveredRecords;
  }

  /**
   * Returns the distribution of records covered by each force.
   *
   * @return a copy of the histogram
   */
  public Histogram batchRecords() {
    return batchRecords.copy();
  }

  /**
   * Returns the distribution of force durations, in nanoseconds.
   *
   * @return a copy of the histogram
   */
  public Histogram forceLatencyNanos() {
    return forceLatencyNanos.copy();
  }

  @Override
  public String toString() {
    return "JournalMetrics[appends=" + appends + ", units=" + units + ", forces=" + forces
        + ", markOnlyForces=" + markOnlyForces
        + ", forcesPerAppend=" + String.format("%.4f", forcesPerAppend())
        + ", meanBatchRecords=" + String.format("%.1f", batchRecords.getMean())
        + ", forceP50Micros=" + forceLatencyNanos.getValueAtPercentile(50) / 1000
        + ", queueDepth=" + queueDepth + ", heldMarks=" + heldMarks + ", retainedBytes=" + retainedBytes
        + ", undeliveredRecords=" + undeliveredRecords + "]";
  }
}
