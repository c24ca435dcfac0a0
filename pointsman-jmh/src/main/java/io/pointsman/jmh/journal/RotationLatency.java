package io.pointsman.jmh.journal;

import io.pointsman.journal.JournalConfig;
import io.pointsman.journal.SegmentedJournal;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.HdrHistogram.Histogram;

/**
 * Append latency right after a segment rotation against the steady state, with the next segment
 * prepared on the I/O thread ({@code inline}) and on a thread of its own ({@code background}).
 *
 * <p>One closed-loop caller appends fixed-size records to a fresh journal on the real disk and
 * times each append until its future completes (the record is durable). An append belongs to
 * the "after rotation" sample if it is one of the first {@code --window} appends whose batch
 * found a new segment retained (no record is marked delivered, so every rotation adds one);
 * every other append belongs to "steady". The segments before the first rotation are warm-up.
 * Arms run interleaved (inline, background, background, inline) in one process.
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * java -cp pointsman-jmh/target/benchmarks.jar io.pointsman.jmh.journal.RotationLatency \
 *     --dir /var/tmp --rotations 6 --payload 16384 \
 *     --out pointsman-jmh/results/journal/rotation.txt
 * </pre>
 */
public final class RotationLatency {
  private RotationLatency() {}

  /** One arm's two samples, in microseconds. */
  record Sample(String arm, Histogram afterRotation, Histogram steady, int rotations) {}

  /**
   * Runs the comparison.
   *
   * @param args {@code --dir D --rotations N --payload BYTES --segment BYTES --window N --out F}
   * @throws Exception if the disk fails
   */
  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      options.put(args[i].replaceFirst("^--", ""), args[i + 1]);
    }
    Path base = Paths.get(options.getOrDefault("dir", System.getProperty("java.io.tmpdir")));
    int rotations = Integer.parseInt(options.getOrDefault("rotations", "6"));
    int payload = Integer.parseInt(options.getOrDefault("payload", "16384"));
    int segment = Integer.parseInt(options.getOrDefault("segment",
        String.valueOf(JournalConfig.DEFAULT_SEGMENT_BYTES)));
    int window = Integer.parseInt(options.getOrDefault("window", "100"));
    String out = options.get("out");

    List<String> arms = List.of("inline", "background", "background", "inline");
    StringBuilder report = new StringBuilder();
    report.append(String.format("# rotation latency: %d rotations per arm, payload %d B, segment"
        + " %d B, window %d appends, one closed-loop caller, dir %s, java %s%n", rotations,
        payload, segment, window, base, System.getProperty("java.version")));
    report.append(String.format("%-11s %-9s %8s %10s %10s %10s %10s%n", "arm", "sample", "count",
        "p50_us", "p90_us", "p99_us", "max_us"));
    Map<String, Sample> merged = new LinkedHashMap<>();
    for (String arm : arms) {
      Sample s = run(base, arm.equals("background"), rotations, payload, segment, window);
      line(report, arm, "after", s.afterRotation());
      line(report, arm, "steady", s.steady());
      Sample m = merged.computeIfAbsent(arm, a -> new Sample(a, new Histogram(3),
          new Histogram(3), 0));
      m.afterRotation().add(s.afterRotation());
      m.steady().add(s.steady());
      System.out.print(report);
    }
    report.append("# both runs of each arm together; ratio = after-rotation p50 / steady p50\n");
    for (Sample m : merged.values()) {
      line(report, m.arm() + "(all)", "after", m.afterRotation());
      line(report, m.arm() + "(all)", "steady", m.steady());
      report.append(String.format("%-11s ratio_p50 %.2f ratio_p99 %.2f%n", m.arm(),
          (double) m.afterRotation().getValueAtPercentile(50)
              / m.steady().getValueAtPercentile(50),
          (double) m.afterRotation().getValueAtPercentile(99)
              / m.steady().getValueAtPercentile(99)));
    }
    System.out.print(report);
    if (out != null) {
      Files.writeString(Paths.get(out), report.toString(), StandardCharsets.UTF_8);
    }
  }

  private static void line(StringBuilder report, String arm, String sample, Histogram h) {
    report.append(String.format("%-11s %-9s %8d %10d %10d %10d %10d%n", arm, sample,
        h.getTotalCount(), h.getValueAtPercentile(50), h.getValueAtPercentile(90),
        h.getValueAtPercentile(99), h.getMaxValue()));
  }

  private static Sample run(Path base, boolean background, int rotations, int payloadBytes,
      int segment, int window) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory(base, "rotation-");
    Histogram after = new Histogram(3);
    Histogram steady = new Histogram(3);
    byte[] payload = new byte[payloadBytes];
    Arrays.fill(payload, (byte) 'r');
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(dir)
        .segmentBytes(segment).backgroundPreparation(background).build())) {
      long retained = journal.retainedBytes();
      int seen = 0;
      int sinceRotation = Integer.MAX_VALUE;
      while (seen <= rotations) {
        long start = System.nanoTime();
        journal.append((byte) 1, payload).join();
        long micros = (System.nanoTime() - start) / 1_000;
        long now = journal.retainedBytes();
        if (now != retained) {
          retained = now;
          seen++;
          sinceRotation = 0;
        }
        if (seen == 0) {
          continue;
        }
        if (sinceRotation < window) {
          after.recordValue(micros);
        } else {
          steady.recordValue(micros);
        }
        if (sinceRotation < Integer.MAX_VALUE) {
          sinceRotation++;
        }
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      }
    }
    return new Sample(background ? "background" : "inline", after, steady, rotations);
  }

}
