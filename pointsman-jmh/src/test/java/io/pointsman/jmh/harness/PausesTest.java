package io.pointsman.jmh.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A window's recording finds the collections and safepoints that happened in it. */
class PausesTest {
  @TempDir
  Path dir;

  @Test
  void countsTheCollectionsAndSafepointsOfTheWindow() {
    Pauses pauses = Pauses.start(null);
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    Pauses.Summary s = pauses.stop();
    assertThat(s.collections()).isGreaterThanOrEqualTo(3);
    assertThat(s.gcPauseMillis()).isGreaterThan(0);
    assertThat(s.gcPauseMaxMicros()).isGreaterThan(0).isLessThanOrEqualTo(s.gcPauseMillis() * 1e3);
    // Each full collection stops the world at a safepoint.
    assertThat(s.safepoints()).isGreaterThanOrEqualTo(3);
    assertThat(s.safepointMillis()).isGreaterThanOrEqualTo(s.gcPauseMillis());
    assertThat(s.safepointMaxMicros()).isLessThanOrEqualTo(s.safepointMillis() * 1e3);
  }

  @Test
  void keepsTheFullRecordingWhenAskedAndItSummarisesTheSame() throws Exception {
    Path keep = dir.resolve("jfr").resolve("run.jfr");
    Pauses pauses = Pauses.start(keep);
    System.gc();
    Pauses.Summary s = pauses.stop();
    assertThat(s.collections()).isGreaterThanOrEqualTo(1);
    assertThat(Files.size(keep)).isPositive();
    assertThat(Pauses.summarise(keep)).isEqualTo(s);
  }
}
