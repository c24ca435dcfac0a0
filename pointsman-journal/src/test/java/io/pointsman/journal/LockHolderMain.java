package io.pointsman.journal;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The child process of {@link JournalLockTest}: opens a journal, prints {@code LOCKED <pid>}
 * once it holds the directory, and keeps it until its standard input closes or it is killed.
 */
public final class LockHolderMain {
  private LockHolderMain() {}

  /**
   * Holds the journal.
   *
   * @param args the journal directory
   * @throws IOException if standard input fails
   */
  public static void main(String[] args) throws IOException {
    try (SegmentedJournal journal = SegmentedJournal.open(
        JournalConfig.builder(Path.of(args[0])).segmentBytes(64 << 10).build())) {
      journal.append((byte) 1, new byte[] {1, 2, 3}).join();
      System.out.println("LOCKED " + ProcessHandle.current().pid());
      System.out.flush();
      while (System.in.read() >= 0) {
        // hold the lock until the parent closes our input or kills us
      }
    }
  }
}
