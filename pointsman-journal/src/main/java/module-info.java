/** The crash-safe usage journal: a segmented, checksummed, group-committed log and its recovery. */
module io.pointsman.journal {
  requires transitive io.pointsman.core;
  // JournalMetrics hands out HdrHistogram histograms.
  requires transitive HdrHistogram;
  requires org.slf4j;
  requires java.management;

  exports io.pointsman.journal;
}
