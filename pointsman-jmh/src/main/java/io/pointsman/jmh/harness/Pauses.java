package io.pointsman.jmh.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import jdk.jfr.Configuration;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

/**
 * The JVM's own pauses in one measured window, from a JDK Flight Recorder recording that spans
 * exactly that window: every safepoint (all Java threads stopped, from the start of its
 * synchronisation to its end, so the time threads took to reach it is included) and every
 * garbage collection's pauses. A pause delays every request in flight, so these say how much
 * of a window's tail latency the JVM itself stopped the world for.
 *
 * <p>With {@code keep} set, the recording also carries the JDK's {@code profile} settings
 * (method samples, allocation, locks, I/O) and is kept for inspection with {@code jfr} or JDK
 * Mission Control.
 */
final class Pauses {
  private static final String BEGIN = "jdk.SafepointBegin";
  private static final String END = "jdk.SafepointEnd";
  private static final String GC = "jdk.GarbageCollection";

  /** What one window's recording held. */
  record Summary(long safepoints, double safepointMillis, double safepointMaxMicros,
      long collections, double gcPauseMillis, double gcPauseMaxMicros) {
    static final Summary NONE = new Summary(0, Double.NaN, Double.NaN, 0, Double.NaN,
        Double.NaN);
  }

  private final Recording recording;
  private final Path keep;

  private Pauses(Recording recording, Path keep) {
    this.recording = recording;
    this.keep = keep;
  }

  /**
   * Starts recording.
   *
   * @param keep where to keep a full profile recording of the window, or null to record the
   *     pause events alone and discard the file
   */
  static Pauses start(Path keep) {
    Recording r;
    if (keep != null) {
      try {
        r = new Recording(Configuration.getConfiguration("profile"));
      } catch (IOException | ParseException e) {
        throw new IllegalStateException("the JDK's profile settings cannot be read", e);
      }
    } else {
      r = new Recording();
    }
    r.enable(BEGIN).withThreshold(Duration.ZERO);
    r.enable(END).withThreshold(Duration.ZERO);
    r.enable(GC).withThreshold(Duration.ZERO);
    r.setToDisk(true);
    r.start();
    return new Pauses(r, keep);
  }

  /** Stops recording and sums the window's pauses. */
  Summary stop() {
    recording.stop();
    Path file = null;
    try {
      if (keep != null) {
        Files.createDirectories(keep.toAbsolutePath().getParent());
        file = keep;
      } else {
        file = Files.createTempFile("pauses", ".jfr");
      }
      recording.dump(file);
      return summarise(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the window's recording", e);
    } finally {
      recording.close();
      if (keep == null && file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // A temporary file left behind is harmless.
        }
      }
    }
  }

  static Summary summarise(Path file) throws IOException {
    Map<Long, Instant> begins = new HashMap<>();
    Map<Long, Instant> ends = new HashMap<>();
    long collections = 0;
    double gcNanos = 0;
    double gcMax = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(file)) {
      String name = e.getEventType().getName();
      if (name.equals(BEGIN)) {
        begins.put(e.getLong("safepointId"), e.getStartTime());
      } else if (name.equals(END)) {
        ends.put(e.getLong("safepointId"), e.getEndTime());
      } else if (name.equals(GC)) {
        collections++;
        gcNanos += e.getDuration("sumOfPauses").toNanos();
        gcMax = Math.max(gcMax, e.getDuration("longestPause").toNanos());
      }
    }
    long safepoints = 0;
    double totalNanos = 0;
    double maxNanos = 0;
    for (Map.Entry<Long, Instant> b : begins.entrySet()) {
      Instant end = ends.get(b.getKey());
      if (end == null) {
        continue;
      }
      double nanos = Duration.between(b.getValue(), end).toNanos();
      safepoints++;
      totalNanos += nanos;
      maxNanos = Math.max(maxNanos, nanos);
    }
    return new Summary(safepoints, totalNanos / 1e6, maxNanos / 1e3, collections, gcNanos / 1e6,
        gcMax / 1e3);
  }
}
