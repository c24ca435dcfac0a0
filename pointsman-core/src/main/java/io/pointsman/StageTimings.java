package io.pointsman;

import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The time one call spent in each lifecycle stage, in nanoseconds. A stage's figure is the time
 * of its own work (for {@code provider.attempt}: every attempt, including journaling the
 * intents and backoff); custom stages are not included in any built-in stage's figure. A stage
 * that did not run has no figure. Immutable.
 */
public final class StageTimings {
  private final long[] nanos;

  StageTimings(long[] nanos) {
    this.nanos = nanos.clone();
  }

  /**
   * Returns a stage's time.
   *
   * @param stage a name from {@link Stages#ORDER} or {@link Stages#TOTAL}
   * @return nanoseconds, or -1 when the stage did not run
   * @throws IllegalArgumentException for an unknown stage name
   */
  public long nanos(String stage) {
    if (Stages.TOTAL.equals(stage)) {
      return nanos[Stages.ORDER.size()];
    }
    int i = Stages.ORDER.indexOf(stage);
    if (i < 0) {
      throw new IllegalArgumentException("unknown stage: " + stage);
    }
    return nanos[i];
  }

  /**
   * Returns the stages that ran, in lifecycle order, then {@code total}.
   *
   * @return an immutable ordered map of stage name to nanoseconds
   */
  public Map<String, Long> asMap() {
    Map<String, Long> out = new LinkedHashMap<>();
    for (int i = 0; i < Stages.ORDER.size(); i++) {
      if (nanos[i] >= 0) {
        out.put(Stages.ORDER.get(i), nanos[i]);
      }
    }
    out.put(Stages.TOTAL, nanos[Stages.ORDER.size()]);
    return Collections.unmodifiableMap(out);
  }

  @Override
  public String toString() {
    return asMap().toString();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof StageTimings other && Arrays.equals(nanos, other.nanos);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(nanos);
  }
}
