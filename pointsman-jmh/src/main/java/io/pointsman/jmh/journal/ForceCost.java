package io.pointsman.jmh.journal;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * What one journal force costs on this machine, without the journal: a 128-byte positional
 * write into a preallocated, already forced file, then {@code FileChannel.force(false)}
 * ({@code fdatasync}), the two system calls every journal batch makes. Measured at several
 * idle gaps between forces (back to back, and the gaps of one force per call at 1,000, 500 and
 * 50 calls per second), because on a virtual machine a thread that sleeps through the device's
 * answer and an idle processor are woken at a cost that the kernel books to the waking
 * thread: the CPU a force costs grows with the idle time around it.
 *
 * <p>Reports per force: the wall time (p50, p99), the calling thread's CPU time and the whole
 * process's CPU time (mean). Output: one CSV row per gap.
 *
 * <p>Run: {@code java -cp pointsman-jmh/target/benchmarks.jar
 * io.pointsman.jmh.journal.ForceCost --out=pointsman-jmh/results/journal/force-cost.csv}
 * (options: {@code --dir=DIR} for the file, default the working directory, which should be on
 * the disk the journal uses; {@code --gaps-us=0,1000,2000,20000 --forces=2000}; {@code
 * --modes=fdatasync,dsync} adds an arm whose file is opened with {@code DSYNC}, so that the
 * write itself returns once durable and no force follows it).
 */
public final class ForceCost {
  private ForceCost() {}

  /**
   * Runs every gap and writes the CSV.
   *
   * @param args options, see the class documentation
   * @throws IOException when the file cannot be written or forced
   */
  public static void main(String[] args) throws IOException {
    Map<String, String> opts = io.pointsman.jmh.Options.parse(args);
    Path out = Path.of(opts.getOrDefault("out", "pointsman-jmh/results/journal/force-cost.csv"));
    Path dir = Path.of(opts.getOrDefault("dir", "."));
    int forces = Integer.parseInt(opts.getOrDefault("forces", "2000"));
    List<String> lines = new ArrayList<>();
    lines.add("mode,gap_us,forces,wall_p50_us,wall_p99_us,thread_cpu_us_per_force,"
        + "process_cpu_us_per_force,load_average");
    for (String gap : opts.getOrDefault("gaps-us", "0,1000,2000,20000").split(",")) {
      long gapMicros = Long.parseLong(gap.trim());
      // Fewer forces at long gaps, so that each gap takes at most about 10 seconds.
      int n = gapMicros == 0 ? forces : (int) Math.min(forces, 10_000_000L / gapMicros);
      for (String mode : opts.getOrDefault("modes", "fdatasync").split(",")) {
        String row = mode + "," + run(dir, gapMicros, n, mode.equals("dsync"));
        System.out.println(row);
        lines.add(row);
      }
    }
    if (out.getParent() != null) {
      Files.createDirectories(out.getParent());
    }
    Files.write(out, lines);
  }

  private static String run(Path dir, long gapMicros, int n, boolean dsync) throws IOException {
    Path file = Files.createTempFile(dir, "force-cost", ".bin");
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    int span = 16 << 20;
    try (FileChannel ch = dsync
        ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE,
            StandardOpenOption.DSYNC)
        : FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
      for (long at = 0; at < span; at += zeros.capacity()) {
        zeros.clear();
        ch.write(zeros, at);
      }
      ch.force(true);
      ByteBuffer record = ByteBuffer.allocateDirect(128);
      long[] wall = new long[n];
      long processBefore = os.getProcessCpuTime();
      long threadBefore = threads.getCurrentThreadCpuTime();
      for (int i = 0; i < n; i++) {
        if (gapMicros > 0) {
          LockSupport.parkNanos(gapMicros * 1_000);
        }
        record.clear();
        long start = System.nanoTime();
        ch.write(record, (i * 128L) % span);
        if (!dsync) {
          ch.force(false);
        }
        wall[i] = System.nanoTime() - start;
      }
      long thread = threads.getCurrentThreadCpuTime() - threadBefore;
      long process = os.getProcessCpuTime() - processBefore;
      Arrays.sort(wall);
      return String.format(Locale.ROOT, "%d,%d,%.1f,%.1f,%.1f,%.1f,%.2f", gapMicros, n,
          wall[n / 2] / 1e3, wall[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)] / 1e3,
          thread / 1e3 / n, process / 1e3 / n, os.getSystemLoadAverage());
    } finally {
      Files.deleteIfExists(file);
    }
  }
}
