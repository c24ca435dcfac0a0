package io.pointsman.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.model.Usage;
import io.pointsman.CacheOutcome;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The settled record payload carries the price version; payloads written before still read. */
class UsageCodecPriceVersionTest {

  private static UsageRecord record(String priceVersion) {
    return UsageRecord.builder().eventId("e1").requestId("r1").keyId("k1").tags(Set.of("a"))
        .model("m").deploymentId("d").attempts(1).outcome(UsageOutcome.SUCCESS).httpStatus(200)
        .usage(Usage.of(10, 5, 2)).costMicros(42).reservationId("e1").heldMicros(100)
        .cacheOutcome(CacheOutcome.MISS).startedAt(Instant.parse("2026-12-01T00:00:00Z"))
        .durationNanos(7).priceVersion(priceVersion).build();
  }

  @Test
  void thePriceVersionSurvivesTheJournal() {
    UsageRecord r = record("pointsman-bundled-2026-12-01");
    assertThat(UsageCodec.decodeRecord(UsageCodec.encode(r))).isEqualTo(r);
    UsageCodec.Settled s = UsageCodec.decodeSettled(UsageCodec.encode(r, new long[] {3, 9}));
    assertThat(s.record().priceVersion()).isEqualTo("pointsman-bundled-2026-12-01");
    assertThat(s.intentSequences()).containsExactly(3, 9);
    assertThat(UsageCodec.decodeRecord(UsageCodec.encode(record(null))).priceVersion()).isNull();
  }

  @Test
  void aRecordWrittenBeforePriceVersionsStillReads() {
    // A version-1 payload is a version-2 one without the trailing price version (a null
    // string: length -1, four bytes) and with version byte 1.
    byte[] current = UsageCodec.encode(record(null));
    assertThat(current[0]).isEqualTo((byte) 2);
    assertThat(ByteBuffer.wrap(current, current.length - 4, 4).getInt()).isEqualTo(-1);
    byte[] v1 = Arrays.copyOf(current, current.length - 4);
    v1[0] = 1;
    UsageRecord read = UsageCodec.decodeRecord(v1);
    assertThat(read).isEqualTo(record(null));
    // ... and with the intent sequences after it.
    byte[] withSequences = UsageCodec.encode(record(null), new long[] {5});
    byte[] v1Seq = new byte[withSequences.length - 4];
    System.arraycopy(withSequences, 0, v1Seq, 0, current.length - 4);
    System.arraycopy(withSequences, current.length, v1Seq, current.length - 4,
        withSequences.length - current.length);
    v1Seq[0] = 1;
    assertThat(UsageCodec.decodeSettled(v1Seq).intentSequences()).containsExactly(5);
  }

  @Test
  void anUnknownVersionIsRefused() {
    byte[] payload = UsageCodec.encode(record("v"));
    payload[0] = 9;
    assertThatThrownBy(() -> UsageCodec.decodeRecord(payload)).isInstanceOf(JournalException.class);
  }
}
