package io.pointsman.jmh.journal;

import io.pointsman.journal.JournalConfig;
import io.pointsman.journal.JournalMetrics;
import io.pointsman.journal.SegmentedJournal;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Durable append cost: the group-committed {@link SegmentedJournal} against the file-per-record
 * protocol (write a temporary file, force it, rename it, sync the directory; later unlink it and
 * sync the directory again), with one bare {@code fdatasync} of a small write as the baseline.
 * Every operation returns only once its record is durable.
 *
 * <p>Forces per append are printed after every iteration ({@code journal iteration: ...}); they
 * come from {@link SegmentedJournal#metrics()}.
 *
 * <p>Build and run (thread count is a JMH option, so each count is its own run):
 *
 * <pre>
 * mvn -B -q -pl pointsman-jmh -am package -DskipTests
 * # single-thread latency, p50 of an append against one fdatasync
 * java -jar pointsman-jmh/target/benchmarks.jar JournalAppendBenchmark -t 1 -bm sample \
 *     -tu us -wi 2 -i 3 -r 2s -w 2s -f 1 -rf json -rff journal-t1-sample.json
 * # throughput at 1, 8, 64 and 128 threads
 * for t in 1 8 64 128; do
 *   java -jar pointsman-jmh/target/benchmarks.jar 'JournalAppendBenchmark\.(journalAppend|filePerRecord)' \
 *       -t $t -bm thrpt -tu s -wi 2 -i 3 -r 2s -w 2s -f 1 -rf json -rff journal-t$t-thrpt.json
 * done
 * </pre>
 *
 * <p>Files go to a fresh directory under {@code -Djournal.bench.dir} (default {@code
 * java.io.tmpdir}); put it on the disk you want to measure.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class JournalAppendBenchmark {
  private static final int PAYLOAD_BYTES = 200;

  private static Path freshDirectory(String prefix) throws IOException {
    Path base = Path.of(System.getProperty("journal.bench.dir", System.getProperty("java.io.tmpdir")));
    Files.createDirectories(base);
    return Files.createTempDirectory(base, prefix);
  }

  private static void deleteTree(Path directory) throws IOException {
    try (Stream<Path> files = Files.walk(directory)) {
      for (Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(file);
      }
    }
  }

  /** One payload per thread, as a gateway's usage record would be. */
  @State(Scope.Thread)
  public static class Payload {
    byte[] bytes;

    @Setup
    public void setUp() {
      bytes = new byte[PAYLOAD_BYTES];
      ThreadLocalRandom.current().nextBytes(bytes);
    }
  }

  /** A journal shared by all benchmark threads. */
  @State(Scope.Benchmark)
  public static class Journal {
    Path directory;
    SegmentedJournal journal;
    JournalMetrics previous;

    @Setup(Level.Trial)
    public void open() throws IOException {
      directory = freshDirectory("journal-bench");
      journal = SegmentedJournal.open(JournalConfig.builder(directory).build());
      previous = journal.metrics();
    }

    @TearDown(Level.Iteration)
    public void report() {
      JournalMetrics now = journal.metrics();
      long appends = now.appends() - previous.appends();
      long forces = now.forces() - previous.forces();
      System.out.printf("%njournal iteration: appends=%d forces=%d forcesPerAppend=%.4f"
              + " meanRecordsPerForce=%.1f forceP50us=%.1f forceP99us=%.1f%n",
          appends, forces, appends == 0 ? 0.0 : (double) forces / appends,
          forces == 0 ? 0.0 : (double) appends / forces,
          now.forceLatencyNanos().getValueAtPercentile(50) / 1000.0,
          now.forceLatencyNanos().getValueAtPercentile(99) / 1000.0);
      previous = now;
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      System.out.println("journal trial: " + journal.metrics());
      journal.close();
      deleteTree(directory);
    }
  }

  /** A directory for the file-per-record protocol. */
  @State(Scope.Benchmark)
  public static class RecordFiles {
    Path directory;
    final AtomicLong names = new AtomicLong();

    @Setup(Level.Trial)
    public void open() throws IOException {
      directory = freshDirectory("file-per-record-bench");
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      deleteTree(directory);
    }

    void syncDirectory() throws IOException {
      try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
        channel.force(true);
      }
    }
  }

  /** One small file rewritten and fdatasync'ed, per thread. */
  @State(Scope.Thread)
  public static class SyncTarget {
    Path directory;
    FileChannel channel;
    ByteBuffer bytes;

    @Setup(Level.Trial)
    public void open() throws IOException {
      directory = freshDirectory("fdatasync-bench");
      channel = FileChannel.open(directory.resolve("target"), StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      channel.write(ByteBuffer.allocate(4096), 0);
      channel.force(true);
      bytes = ByteBuffer.allocateDirect(PAYLOAD_BYTES);
    }

    @TearDown(Level.Trial)
    public void close() throws IOException {
      channel.close();
      deleteTree(directory);
    }
  }

  /** A group-committed, durable append of one record. */
  @Benchmark
  public long journalAppend(Journal journal, Payload payload) {
    return journal.journal.append((byte) 1, payload.bytes).join();
  }

  /**
   * The file-per-record protocol for one record: make it durable (write temporary file, force,
   * rename, sync directory), then reclaim it (unlink, sync directory).
   */
  @Benchmark
  public long filePerRecord(RecordFiles files, Payload payload) throws IOException {
    long id = files.names.incrementAndGet();
    Path temporary = files.directory.resolve(id + ".tmp");
    Path record = files.directory.resolve(id + ".rec");
    try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW,
        StandardOpenOption.WRITE)) {
      ByteBuffer bytes = ByteBuffer.wrap(payload.bytes);
      while (bytes.hasRemaining()) {
        channel.write(bytes);
      }
      channel.force(false);
    }
    Files.move(temporary, record, StandardCopyOption.ATOMIC_MOVE);
    files.syncDirectory();
    Files.delete(record);
    files.syncDirectory();
    return id;
  }

  /** The floor: one overwrite of a small block and one fdatasync, no journal at all. */
  @Benchmark
  public int fdatasyncBaseline(SyncTarget target) throws IOException {
    target.bytes.clear();
    int written = target.channel.write(target.bytes, 0);
    target.channel.force(false);
    return written;
  }
}
