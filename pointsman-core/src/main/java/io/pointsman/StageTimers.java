package io.pointsman;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * The gateway-wide stage timers: one HdrHistogram per lifecycle stage plus {@code total}.
 * Recording is lock-free; values above ten minutes are clamped. Thread-safe.
 */
public final class StageTimers {
  private static final long HIGHEST = 600_000_000_000L;
  private final List<String> names;
  private final ConcurrentHistogram[] histograms;

  StageTimers() {
    List<String> all = new java.util.ArrayList<>(Stages.ORDER);
    all.add(Stages.TOTAL);
    this.names = List.copyOf(all);
    this.histograms = new ConcurrentHistogram[names.size()];
    for (int i = 0; i < histograms.length; i++) {
      histograms[i] = new ConcurrentHistogram(HIGHEST, 2);
    }
  }

  void record(long[] nanos) {
    for (int i = 0; i < nanos.length; i++) {
      if (nanos[i] >= 0) {
        histograms[i].recordValue(Math.min(nanos[i], HIGHEST));
      }
    }
  }

  /**
   * Returns a snapshot of every timer, in lifecycle order then {@code total}, including
   * stages that have not run yet (count zero).
   *
   * @return an immutable ordered map of stage name to snapshot
   */
  public Map<String, TimingSnapshot> snapshot() {
    Map<String, TimingSnapshot> out = new LinkedHashMap<>();
    for (int i = 0; i < histograms.length; i++) {
      Histogram h = histograms[i].copy();
      long count = h.getTotalCount();
      out.put(names.get(i), new TimingSnapshot(names.get(i), count,
          count == 0 ? 0 : h.getMean(),
          count == 0 ? 0 : h.getValueAtPercentile(50),
          count == 0 ? 0 : h.getValueAtPercentile(99),
          count == 0 ? 0 : h.getMaxValue()));
    }
    return Collections.unmodifiableMap(out);
  }

  /** Clears every timer, for example after a warmup. */
  public void reset() {
    for (ConcurrentHistogram h : histograms) {
      h.reset();
    }
  }
}
