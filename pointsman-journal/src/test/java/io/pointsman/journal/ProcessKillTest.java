package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A child JVM appends from 16 threads and is killed with SIGKILL mid-load, twice on the same
 * directory; every append it acknowledged must then be recovered byte for byte. A process kill
 * keeps the operating system's page cache, so this proves the process-side protocol only; the
 * power-loss cases are covered by the crash simulation.
 */
class ProcessKillTest {
  private static final int LINES_BEFORE_KILL = 3_000;

  @TempDir Path directory;

  @Test
  void everyAcknowledgedAppendSurvivesSigkillOfTheWritingProcess() throws Exception {
    Map<Long, byte[]> acknowledged = new HashMap<>();
    Set<Long> delivered = new HashSet<>();
    for (int round = 1; round <= 2; round++) {
      List<String> lines = runAndKill();
      assertThat(lines.get(0)).startsWith("READY");
      for (String line : lines.subList(1, lines.size())) {
        String[] parts = line.split(" ");
        long sequence = Long.parseLong(parts[1]);
        if (parts[0].equals("A")) {
          byte[] previous = acknowledged.put(sequence, HexFormat.of().parseHex(parts[2]));
          assertThat(previous).as("sequence %d acknowledged twice", sequence).isNull();
        } else {
          delivered.add(sequence);
        }
      }
      assertThat(acknowledged.size()).as("round %d was killed under load", round)
          .isGreaterThanOrEqualTo(round * LINES_BEFORE_KILL / 2);

      try (SegmentedJournal journal = SegmentedJournal.open(
          JournalConfig.builder(directory).segmentBytes(256 << 10).build())) {
        Map<Long, RecoveredRecord> recovered = new HashMap<>();
        journal.recovered().forEach(r -> recovered.put(r.sequence(), r));
        for (Map.Entry<Long, byte[]> ack : acknowledged.entrySet()) {
          RecoveredRecord record = recovered.get(ack.getKey());
          if (record == null) {
            assertThat(delivered).as("acknowledged sequence %d is missing and was not"
                + " delivered (its segment could not have been reclaimed)", ack.getKey())
                .contains(ack.getKey());
            continue;
          }
          assertThat(record.payload()).as("sequence %d byte for byte", ack.getKey())
              .isEqualTo(ack.getValue());
        }
        for (long sequence : delivered) {
          RecoveredRecord record = recovered.get(sequence);
          assertThat(record == null || record.delivered())
              .as("acknowledged mark of %d survived", sequence).isTrue();
        }
      }
    }
  }

  /** Starts the child, waits for enough acknowledgements, kills it, returns complete lines. */
  private List<String> runAndKill() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-Xmx256m", "-cp",
        System.getProperty("java.class.path"), KillTargetMain.class.getName(),
        directory.toString(), "16")
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    ByteArrayOutputStream output = new ByteArrayOutputStream();
    InputStream stdout = child.getInputStream();
    byte[] chunk = new byte[65536];
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    int lines = 0;
    try {
      while (lines < LINES_BEFORE_KILL && System.nanoTime() < deadline) {
        int n = stdout.read(chunk);
        if (n < 0) {
          break;
        }
        output.write(chunk, 0, n);
        for (int i = 0; i < n; i++) {
          if (chunk[i] == '\n') {
            lines++;
          }
        }
      }
      assertThat(child.isAlive()).as("the child was still writing when killed").isTrue();
    } finally {
      child.destroyForcibly();
      child.waitFor(30, TimeUnit.SECONDS);
    }
    // Lines printed after the last read are not counted: the test checks a subset of the
    // acknowledgements, which is enough for "acknowledged implies recovered".
    String text = output.toString(StandardCharsets.US_ASCII);
    // Only newline-terminated lines were written completely before the kill.
    String complete = text.substring(0, text.lastIndexOf('\n') + 1);
    return List.of(complete.split("\n"));
  }
}
