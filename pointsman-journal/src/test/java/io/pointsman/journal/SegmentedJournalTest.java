package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's contract on a real file system. */
class SegmentedJournalTest {
  @TempDir Path directory;

  private JournalConfig config() {
    return JournalConfig.builder(directory).segmentBytes(4096).preallocationChunkBytes(1024).build();
  }

  private static byte[] payload(int i, int length) {
    byte[] payload = new byte[length];
    for (int b = 0; b < length; b++) {
      payload[b] = (byte) (i * 17 + b);
    }
    return payload;
  }

  private List<String> files() throws Exception {
    try (Stream<Path> list = Files.list(directory)) {
      return list.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void directorySyncWorksOnThisPlatform() throws Exception {
    JournalIO.files().syncDirectory(directory);
  }

  @Test
  void appendsAreRecoveredByteForByteWithTheirSequenceNumbersAfterReopen() {
    List<Long> sequences = new ArrayList<>();
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).isEmpty();
      for (int i = 0; i < 200; i++) {
        sequences.add(journal.append((byte) (i % 128), payload(i, i % 300)).join());
      }
    }
    assertThat(sequences).isSorted().doesNotHaveDuplicates();
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      List<RecoveredRecord> records = journal.recovered();
      assertThat(records).hasSize(200);
      for (int i = 0; i < 200; i++) {
        RecoveredRecord record = records.get(i);
        assertThat(record.sequence()).isEqualTo(sequences.get(i));
        assertThat(record.type()).isEqualTo((byte) (i % 128));
        assertThat(record.payload()).isEqualTo(payload(i, i % 300));
        assertThat(record.delivered()).isFalse();
      }
      assertThat(journal.append((byte) 0, new byte[0]).join())
          .isGreaterThan(sequences.get(199));
    }
  }

  @Test
  void appendAllWritesConsecutiveSequencesAsOneForcedUnit() {
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      List<Long> sequences = journal.appendAll(List.of(
          JournalEntry.of((byte) 1, payload(1, 40)),
          JournalEntry.of((byte) 2, payload(2, 50)))).join();
      assertThat(sequences).containsExactly(1L, 2L);
      assertThat(journal.metrics().forces()).isEqualTo(1);
      assertThat(journal.metrics().appends()).isEqualTo(2);
    }
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered()).extracting(RecoveredRecord::type)
          .containsExactly((byte) 1, (byte) 2);
    }
  }

  @Test
  void deliveredMarksSurviveRestartAndReclaimFullyDeliveredSegmentsOldestFirst() throws Exception {
    List<Long> sequences = new ArrayList<>();
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      for (int i = 0; i < 100; i++) {
        sequences.add(journal.append((byte) 1, payload(i, 200)).join());
      }
      assertThat(files()).contains(RecordFormat.segmentFileName(1),
          RecordFormat.segmentFileName(2));
      long[] delivered = sequences.subList(0, 50).stream().mapToLong(Long::longValue).toArray();
      journal.markDelivered(delivered).join();
      journal.awaitQuiescent();
      assertThat(files()).doesNotContain(RecordFormat.segmentFileName(1));
      assertThat(journal.metrics().segmentsDeleted()).isPositive();
    }
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      List<RecoveredRecord> records = journal.recovered();
      assertThat(records).extracting(RecoveredRecord::sequence)
          .containsSubsequence(sequences.subList(50, 100));
      assertThat(records).filteredOn(r -> r.sequence() > sequences.get(49))
          .allMatch(r -> !r.delivered());
      assertThat(records).filteredOn(r -> r.sequence() <= sequences.get(49))
          .isNotEmpty()
          .allMatch(RecoveredRecord::delivered);
    }
  }

  @Test
  void appendsArrivingDuringAForceShareTheNextForce() throws Exception {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    SegmentedJournal journal = SegmentedJournal.open(
        JournalConfig.builder(CrashScenario.DIRECTORY).io(io).segmentBytes(64 << 10).build());
    journal.awaitQuiescent();
    io.beforeForce(() -> {
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    List<CompletableFuture<Long>> futures = new ArrayList<>();
    futures.add(journal.append((byte) 1, payload(0, 10)));
    entered.await();
    for (int i = 1; i <= 20; i++) {
      futures.add(journal.append((byte) 1, payload(i, 10)));
    }
    release.countDown();
    for (CompletableFuture<Long> future : futures) {
      future.join();
    }
    journal.close();
    JournalMetrics metrics = journal.metrics();
    assertThat(metrics.appends()).isEqualTo(21);
    assertThat(metrics.forces()).as("one force for the first, one for the 20 queued").isEqualTo(2);
    assertThat(metrics.batchRecords().getMaxValue()).isEqualTo(20);
    assertThat(metrics.forcesPerAppend()).isEqualTo(2.0 / 21);
  }

  @Test
  void invalidAppendsAreRejectedWithTheProblemNamed() {
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThatThrownBy(() -> journal.append((byte) -1, new byte[1]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reserved");
      assertThatThrownBy(() -> journal.append((byte) 1, new byte[4096]))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxPayloadBytes");
      assertThatThrownBy(() -> journal.append((byte) 1, null))
          .isInstanceOf(NullPointerException.class).hasMessageContaining("payload");
      assertThatThrownBy(() -> journal.appendAll(List.of()))
          .isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> journal.appendAll(List.of(
          JournalEntry.of((byte) 1, new byte[3000]), JournalEntry.of((byte) 1, new byte[3000]))))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("does not fit");
      assertThatThrownBy(() -> journal.markDelivered(0))
          .isInstanceOf(IllegalArgumentException.class);
      assertThat(journal.isPoisoned()).isFalse();
    }
  }

  @Test
  void payloadIsCopiedSoLaterChangesByTheCallerAreNotRecorded() {
    byte[] payload = payload(1, 32);
    byte[] original = payload.clone();
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      CompletableFuture<Long> future = journal.append((byte) 1, payload);
      payload[0] ^= 0x7F;
      future.join();
    }
    try (SegmentedJournal journal = SegmentedJournal.open(config())) {
      assertThat(journal.recovered().get(0).payload()).isEqualTo(original);
    }
  }

  @Test
  void configBuilderFailsFastOnBadOrRepeatedSettings() {
    JournalConfig.Builder builder = JournalConfig.builder(directory).segmentBytes(4096);
    assertThatThrownBy(() -> builder.segmentBytes(8192))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("segmentBytes was already set to 4096");
    assertThatThrownBy(() -> builder.queueCapacity(0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> JournalConfig.builder(null)).isInstanceOf(NullPointerException.class)
        .hasMessage("directory");
    assertThatThrownBy(() -> JournalConfig.builder(directory).segmentBytes(2048)
        .maxPayloadBytes(4000).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("raise segmentBytes");
  }
}
