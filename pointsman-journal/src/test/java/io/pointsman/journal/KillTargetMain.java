package io.pointsman.journal;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The child process of {@link ProcessKillTest}: appends random payloads from many threads to a
 * journal on the real file system and prints one line per acknowledgement, flushed only after
 * the append's future completed: {@code A <sequence> <payload hex>} for appends and
 * {@code D <sequence>} for acknowledged delivered marks. It runs until it is killed.
 */
public final class KillTargetMain {
  private KillTargetMain() {}

  /**
   * Runs the load.
   *
   * @param args the journal directory and the number of appending threads
   */
  public static void main(String[] args) {
    Path directory = Path.of(args[0]);
    int threads = Integer.parseInt(args[1]);
    PrintStream out = System.out;
    SegmentedJournal journal = SegmentedJournal.open(
        JournalConfig.builder(directory).segmentBytes(256 << 10).build());
    synchronized (out) {
      out.println("READY " + journal.recovered().size());
      out.flush();
    }
    HexFormat hex = HexFormat.of();
    for (int t = 0; t < threads; t++) {
      Thread thread = new Thread(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (long i = 0; ; i++) {
          byte[] payload = new byte[16 + random.nextInt(200)];
          random.nextBytes(payload);
          long sequence = journal.append((byte) 5, payload).join();
          synchronized (out) {
            out.println("A " + sequence + " " + hex.formatHex(payload));
            out.flush();
          }
          if (i % 10 == 0) {
            journal.markDelivered(sequence).join();
            synchronized (out) {
              out.println("D " + sequence);
              out.flush();
            }
          }
        }
      });
      thread.start();
    }
  }
}
