package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Damage a crash cannot explain is reported, and nothing is modified or silently dropped. */
class JournalCorruptionTest {
  @TempDir Path directory;

  private JournalConfig config() {
    return JournalConfig.builder(directory).segmentBytes(2048).preallocationChunkBytes(512).build();
  }

  private static byte[] payload(int i) {
    byte[] payload = new byte[100];
    ByteBuffer.wrap(payload).putInt(i);
    return payload;
  }

  /** Appends in separate forces until at least three segments hold records. */
  private List<Long> fillSegments(int records) {
    List<Long> sequences = new ArrayList<>();
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      for (int i = 0; i < records; i++) {
        sequences.add(journal.append((byte) 3, payload(i)).join());
      }
    }
    return sequences;
  }

  private Path segment(long id) {
    return directory.resolve(RecordFormat.segmentFileName(id));
  }

  private Map<String, byte[]> snapshot() throws IOException {
    Map<String, byte[]> files = new HashMap<>();
    try (Stream<Path> list = Files.list(directory)) {
      for (Path file : (Iterable<Path>) list::iterator) {
        // The lock file names whoever opened the directory last; it is not journal data.
        if (!file.getFileName().toString().equals(FileJournalIO.LOCK_FILE)) {
          files.put(file.getFileName().toString(), Files.readAllBytes(file));
        }
      }
    }
    return files;
  }

  private void flipBit(Path file, int offset) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    bytes[offset] ^= 0x10;
    Files.write(file, bytes);
  }

  private static boolean sameFiles(Map<String, byte[]> a, Map<String, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.keySet().stream().allMatch(name -> java.util.Arrays.equals(a.get(name), b.get(name)));
  }

  @Test
  void bitFlipInASealedSegmentIsReportedWithItsLocationAndNothingIsModified() throws Exception {
    List<Long> sequences = fillSegments(50);
    int offset = RecordFormat.SEGMENT_HEADER_BYTES + 3 * RecordFormat.recordBytes(100) + 60;
    flipBit(segment(1), offset);
    Map<String, byte[]> before = snapshot();

    assertThatThrownBy(() -> SegmentedJournal.open(config()))
        .isInstanceOfSatisfying(JournalCorruptedException.class, e -> {
          assertThat(e.segment()).isEqualTo(segment(1));
          assertThat(e.offset()).isEqualTo(
              RecordFormat.SEGMENT_HEADER_BYTES + 3 * RecordFormat.recordBytes(100));
          assertThat(e.reason()).contains("checksum");
        })
        .hasMessageContaining("modified nothing");
    assertThat(sameFiles(snapshot(), before)).as("the evidence is kept as it was").isTrue();

    flipBit(segment(1), offset);
    try (SegmentedJournal repaired = SegmentedJournal.open(config())) {
      assertThat(repaired.recovered()).extracting(RecoveredRecord::sequence)
          .as("no record after the damage was dropped").containsExactlyElementsOf(sequences);
    }
  }

  @Test
  void damagedRecordFollowedByALaterWriteInTheTailIsCorruptionNotATornTail() throws Exception {
    List<Long> sequences;
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      sequences = new ArrayList<>();
      for (int i = 0; i < 5; i++) {
        sequences.add(journal.append((byte) 3, payload(i)).join());
      }
    }
    flipBit(segment(1), RecordFormat.SEGMENT_HEADER_BYTES + RecordFormat.recordBytes(100) + 50);
    Map<String, byte[]> before = snapshot();
    assertThatThrownBy(() -> SegmentedJournal.open(config()))
        .isInstanceOf(JournalCorruptedException.class)
        .hasMessageContaining("written later follows");
    assertThat(sameFiles(snapshot(), before)).isTrue();
  }

  @Test
  void aLeftoverPreallocationIsKeptWhenRecoveryFindsCorruption() throws Exception {
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      for (int i = 0; i < 5; i++) {
        journal.append((byte) 3, payload(i)).join();
      }
    }
    // A leftover of an interrupted preallocation (an id the journal itself will not prepare
    // during this test, so only recovery can remove it).
    Path preparation = segment(1).resolveSibling(RecordFormat.preparationFileName(7));
    Files.write(preparation, new byte[4096]);
    flipBit(segment(1), RecordFormat.SEGMENT_HEADER_BYTES + RecordFormat.recordBytes(100) + 50);
    Map<String, byte[]> before = snapshot();
    assertThatThrownBy(() -> SegmentedJournal.open(config()))
        .isInstanceOf(JournalCorruptedException.class);
    assertThat(Files.exists(preparation)).as("the preallocation is left as it was").isTrue();
    assertThat(sameFiles(snapshot(), before)).isTrue();
  }

  @Test
  void aLeftoverPreallocationIsDeletedWhenRecoveryFindsNothingWrong() throws Exception {
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      journal.append((byte) 3, payload(0)).join();
    }
    Path preparation = segment(1).resolveSibling(RecordFormat.preparationFileName(7));
    Files.write(preparation, new byte[4096]);
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).hasSize(1);
    }
    assertThat(Files.exists(preparation)).isFalse();
  }

  @Test
  void tornTailIsZeroedAndAppendingContinuesAfterIt() throws Exception {
    List<Long> sequences = fillSegments(3);
    byte[] tail = Files.readAllBytes(segment(1));
    int end = RecordFormat.SEGMENT_HEADER_BYTES + 3 * RecordFormat.recordBytes(100);
    // A half-written record header and garbage, as a crash in the middle of a write leaves.
    ByteBuffer.wrap(tail, end, 8).putInt(RecordFormat.RECORD_MAGIC).putInt(0x0102);
    for (int i = end + 8; i < end + 300; i++) {
      tail[i] = (byte) (i * 31);
    }
    Files.write(segment(1), tail);

    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).extracting(RecoveredRecord::sequence)
          .containsExactlyElementsOf(sequences);
      assertThat(journal.append((byte) 3, payload(3)).join()).isEqualTo(4L);
    }
    byte[] after = Files.readAllBytes(segment(1));
    assertThat(RecordFormat.endOfNonZero(ByteBuffer.wrap(after),
        end + RecordFormat.recordBytes(100))).as("the torn bytes were zeroed")
        .isEqualTo(end + RecordFormat.recordBytes(100));
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).extracting(RecoveredRecord::sequence)
          .containsExactly(1L, 2L, 3L, 4L);
    }
  }

  @Test
  void missingSegmentBetweenTwoOthersIsReported() throws Exception {
    fillSegments(60);
    assertThat(Files.exists(segment(3))).isTrue();
    Files.delete(segment(2));
    assertThatThrownBy(() -> SegmentedJournal.open(config()))
        .isInstanceOf(JournalCorruptedException.class)
        .hasMessageContaining("segment-0000000000000002.log is missing");
  }

  @Test
  void damagedSegmentHeaderIsReported() throws Exception {
    fillSegments(3);
    flipBit(segment(1), 17);
    assertThatThrownBy(() -> SegmentedJournal.open(config()))
        .isInstanceOfSatisfying(JournalCorruptedException.class,
            e -> assertThat(e.offset()).isZero())
        .hasMessageContaining("segment header checksum mismatch");
  }

  @Test
  void recordsLeftInAReusedFileWithAnotherSaltAreRejected() throws Exception {
    fillSegments(3);
    byte[] old = Files.readAllBytes(segment(1));
    try (Stream<Path> list = Files.list(directory)) {
      for (Path file : (Iterable<Path>) list::iterator) {
        Files.delete(file);
      }
    }
    // A new journal whose first segment file reuses the same blocks: its header has a new salt,
    // the old records after it must not be taken for its own.
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      journal.awaitQuiescent();
    }
    byte[] fresh = Files.readAllBytes(segment(1));
    System.arraycopy(old, RecordFormat.SEGMENT_HEADER_BYTES, fresh,
        RecordFormat.SEGMENT_HEADER_BYTES, old.length - RecordFormat.SEGMENT_HEADER_BYTES);
    Files.write(segment(1), fresh);
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).isEmpty();
    }
  }
}
