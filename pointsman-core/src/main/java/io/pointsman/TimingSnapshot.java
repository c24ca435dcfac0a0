package io.pointsman;

/**
 * Summary of one stage timer across all calls of a gateway so far. Immutable.
 *
 * @param stage the stage timer name
 * @param count how many calls ran the stage
 * @param meanNanos mean time
 * @param p50Nanos median time
 * @param p99Nanos 99th percentile time
 * @param maxNanos largest time
 */
public record TimingSnapshot(
    String stage, long count, double meanNanos, long p50Nanos, long p99Nanos, long maxNanos) {}
