package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A journal directory created by the journal is durable before any record in it is
 * acknowledged: the parent of every directory it creates is synced (a new directory's name lives
 * in its parent, and without that sync a power loss could take the directory with every
 * acknowledged record in it).
 */
class JournalDirectorySyncTest {
  private static final Path DIRECTORY = Path.of("/var/lib/pointsman/journal");

  private static JournalConfig config(JournalIO io) {
    return JournalConfig.builder(DIRECTORY).io(io).segmentBytes(1024)
        .preallocationChunkBytes(512).build();
  }

  @Test
  void acknowledgedRecordsInANewDirectorySurviveAPowerLossThatKeepsOnlySyncedEntries()
      throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().tracing();
    List<Long> acknowledged = new ArrayList<>();
    SegmentedJournal journal = SegmentedJournal.open(config(io));
    for (int i = 0; i < 5; i++) {
      acknowledged.add(journal.append((byte) 1,
          ("record " + i).getBytes(StandardCharsets.UTF_8)).join());
    }
    journal.awaitQuiescent();
    // Power loss: only forced bytes and synced directory entries survive.
    CrashSimulatingJournalIO.Image image = io.durableImage();
    journal.close();
    try (SegmentedJournal recovered = SegmentedJournal.open(config(
        CrashSimulatingJournalIO.fromImage(image)))) {
      assertThat(recovered.recovered()).extracting(RecoveredRecord::sequence)
          .containsExactlyElementsOf(acknowledged);
    }
    assertThat(io.directoryDurable(DIRECTORY)).as("the directory's entry is durable").isTrue();
    List<String> trace = io.trace();
    int mkdir = indexOf(trace, "mkdir " + DIRECTORY, 0);
    int firstAppend = -1;
    for (int i = 0; i < trace.size() && firstAppend < 0; i++) {
      if (trace.get(i).contains("write segment-0000000000000001.log [32,")) {
        firstAppend = i;
      }
    }
    assertThat(mkdir).isNotNegative();
    assertThat(firstAppend).isGreaterThan(mkdir);
    for (Path parent : List.of(Path.of("/"), Path.of("/var"), Path.of("/var/lib"),
        Path.of("/var/lib/pointsman"))) {
      assertThat(indexOf(trace, "sync directory " + parent, mkdir))
          .as("%s synced after the mkdir and before the first record", parent)
          .isGreaterThan(mkdir).isLessThan(firstAppend);
    }
  }

  @Test
  void anExistingDirectorysParentIsSyncedToo() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO().tracing();
    io.createDirectories(DIRECTORY);
    try (SegmentedJournal journal = SegmentedJournal.open(config(io))) {
      journal.append((byte) 1, new byte[] {1}).join();
    }
    List<String> trace = io.trace();
    int journalMkdir = lastIndexOf(trace, "mkdir " + DIRECTORY);
    assertThat(indexOf(trace, "sync directory " + DIRECTORY.getParent(), journalMkdir))
        .isGreaterThan(journalMkdir);
  }

  @Test
  void theRealFileSystemCreatesAndSyncsNestedDirectories(
      @org.junit.jupiter.api.io.TempDir Path temp) {
    Path nested = temp.resolve("a").resolve("b").resolve("journal");
    try (SegmentedJournal journal = SegmentedJournal.open(JournalConfig.builder(nested)
        .segmentBytes(64 << 10).build())) {
      assertThat(journal.append((byte) 1, new byte[] {1}).join()).isEqualTo(1);
    }
    assertThat(nested).isDirectory();
  }

  private static int indexOf(List<String> trace, String operation, int from) {
    for (int i = Math.max(0, from); i < trace.size(); i++) {
      if (trace.get(i).endsWith(": " + operation)) {
        return i;
      }
    }
    return -1;
  }

  private static int lastIndexOf(List<String> trace, String operation) {
    for (int i = trace.size() - 1; i >= 0; i--) {
      if (trace.get(i).endsWith(": " + operation)) {
        return i;
      }
    }
    return -1;
  }
}
