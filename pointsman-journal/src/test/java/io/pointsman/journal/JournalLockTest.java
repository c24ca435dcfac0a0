package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One journal per directory: two writers would interleave records in one segment. A second
 * opener, in this process or another, is refused with {@link JournalLockedException} naming
 * the holder; the lock goes with the holder (closed, or killed: the kernel releases it).
 */
class JournalLockTest {

  @TempDir Path directory;

  private JournalConfig config() {
    return JournalConfig.builder(directory).segmentBytes(64 << 10).build();
  }

  @Test
  void aSecondOpenerInTheSameProcessIsRefusedAndNamesTheHolder() {
    try (SegmentedJournal first = SegmentedJournal.open(config())) {
      long sequence = first.append((byte) 1, new byte[] {7}).join();
      JournalLockedException refused = catchThrowableOfType(JournalLockedException.class,
          () -> SegmentedJournal.open(config()));
      assertThat(refused).as("the second open is refused").isNotNull();
      assertThat(refused.holder()).contains("pid=" + ProcessHandle.current().pid())
          .contains("host=").contains("started=").contains("in this process");
      assertThat(refused.directory()).isEqualTo(directory);
      assertThat(refused).hasMessageContaining(directory.toString())
          .hasMessageContaining("only one process");
      // The same directory through another spelling of its path is the same lock.
      JournalLockedException again = catchThrowableOfType(JournalLockedException.class,
          () -> SegmentedJournal.open(JournalConfig.builder(
              directory.resolve("..").resolve(directory.getFileName())).build()));
      assertThat(again).isNotNull();
      // The refused openers changed nothing: the holder goes on appending.
      assertThat(first.append((byte) 1, new byte[] {8}).join()).isEqualTo(sequence + 1);
    }
    try (SegmentedJournal reopened = SegmentedJournal.open(config())) {
      assertThat(reopened.recovered()).hasSize(2);
    }
  }

  @Test
  void aSecondJournalAccountingOnTheSameDirectoryIsRefused() {
    RecordingSettlement ledger = new RecordingSettlement();
    JournalConfig config = JournalAccountingTest.config(directory);
    try (JournalAccounting first = JournalAccounting.builder(config, ledger).open()) {
      JournalLockedException refused = catchThrowableOfType(JournalLockedException.class,
          () -> JournalAccounting.builder(config, ledger).open());
      assertThat(refused).isNotNull();
      assertThat(first.settlerState().running()).isTrue();
    }
    try (JournalAccounting reopened = JournalAccounting.builder(config, ledger).open()) {
      assertThat(reopened.recovery().recordsScanned()).isZero();
    }
  }

  @Test
  void aSecondProcessCannotOpenAHeldDirectoryUntilTheHolderIsKilled() throws Exception {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Process child = new ProcessBuilder(java, "-Xmx64m", "-cp",
        System.getProperty("java.class.path"), LockHolderMain.class.getName(),
        directory.toString())
        .redirectError(ProcessBuilder.Redirect.DISCARD)
        .start();
    try {
      BufferedReader out = new BufferedReader(
          new InputStreamReader(child.getInputStream(), StandardCharsets.US_ASCII));
      String line = out.readLine();
      assertThat(line).as("the child holds the journal").isEqualTo("LOCKED " + child.pid());

      JournalLockedException refused = catchThrowableOfType(JournalLockedException.class,
          () -> SegmentedJournal.open(config()));
      assertThat(refused).as("the parent is refused while the child holds it").isNotNull();
      assertThat(refused.holder()).contains("pid=" + child.pid())
          .doesNotContain("in this process");
      assertThat(Files.readString(directory.resolve(FileJournalIO.LOCK_FILE)))
          .contains("pid=" + child.pid());
    } finally {
      child.destroyForcibly();
      assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
    }
    // SIGKILL: the kernel released the lock with the process; the child's record is there.
    try (SegmentedJournal after = SegmentedJournal.open(config())) {
      assertThat(after.recovered()).hasSize(1);
      assertThat(Files.readString(directory.resolve(FileJournalIO.LOCK_FILE)))
          .contains("pid=" + ProcessHandle.current().pid());
    }
  }
}
