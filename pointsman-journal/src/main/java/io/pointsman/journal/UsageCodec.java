package io.pointsman.journal;

import io.pointsman.CacheOutcome;
import io.pointsman.model.Json;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The binary payloads of the accounting records: a version byte, then the fields in a fixed
 * order; strings as length-prefixed UTF-8 (length -1 for null), enums by name, usage as its
 * OpenAI JSON so that provider-specific fields survive. Field order never changes within a
 * version; a new version gets a new number and the old one stays readable.
 */
final class UsageCodec {
  /** A request intent fused with the first dispatch intent. */
  static final byte REQUEST_AND_DISPATCH = 1;
  /** The dispatch intent of a later attempt. */
  static final byte DISPATCH = 2;
  /** A settled usage record. */
  static final byte SETTLED = 3;

  private static final byte VERSION = 1;
  /** Settled records from this version on end with the price version they were charged at. */
  private static final byte RECORD_VERSION = 2;
  private static final long[] NO_SEQUENCES = new long[0];

  private UsageCodec() {}

  static byte[] encode(DispatchIntent i) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(VERSION);
      str(out, i.eventId());
      str(out, i.requestId());
      out.writeInt(i.attempt());
      str(out, i.keyId());
      str(out, i.userId());
      str(out, i.teamId());
      str(out, i.orgId());
      tags(out, i.tags());
      str(out, i.model());
      str(out, i.deploymentId());
      str(out, i.provider());
      str(out, i.reservationId());
      out.writeLong(i.heldMicros());
      out.writeLong(i.worstCaseMicros());
      instant(out, i.at());
      instant(out, i.callStartedAt());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static DispatchIntent decodeIntent(byte[] payload) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
      version(in);
      String eventId = str(in);
      String requestId = str(in);
      int attempt = in.readInt();
      String keyId = str(in);
      String userId = str(in);
      String teamId = str(in);
      String orgId = str(in);
      Set<String> tags = tags(in);
      String model = str(in);
      String deployment = str(in);
      String provider = str(in);
      String reservation = str(in);
      long held = in.readLong();
      long worst = in.readLong();
      Instant at = instant(in);
      // Intents written before the call's start was recorded end here: take the intent's time.
      Instant started = in.available() > 0 ? instant(in) : at;
      return DispatchIntent.builder()
          .eventId(eventId).requestId(requestId).attempt(attempt).keyId(keyId).userId(userId)
          .teamId(teamId).orgId(orgId).tags(tags).model(model).deploymentId(deployment)
          .provider(provider).reservationId(reservation).heldMicros(held)
          .worstCaseMicros(worst).at(at).callStartedAt(started)
          .build();
    } catch (IOException e) {
      throw new JournalException("undecodable dispatch intent", e);
    }
  }

  static byte[] encode(UsageRecord r) {
    return encode(r, NO_SEQUENCES);
  }

  /**
   * Encodes a settled record followed by the journal sequence numbers of its call's dispatch
   * intents, so that a reader of the journal alone can mark them delivered with it. Readers of
   * the record alone ignore the trailing sequences.
   */
  static byte[] encode(UsageRecord r, long[] intentSequences) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(384);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(RECORD_VERSION);
      str(out, r.eventId());
      str(out, r.requestId());
      str(out, r.keyId());
      str(out, r.userId());
      str(out, r.teamId());
      str(out, r.orgId());
      tags(out, r.tags());
      str(out, r.model());
      str(out, r.deploymentId());
      out.writeInt(r.attempts());
      str(out, r.outcome().name());
      out.writeInt(r.httpStatus());
      str(out, r.decidedBy());
      str(out, r.rule());
      str(out, r.usage() == null ? null : Json.write(r.usage()));
      out.writeLong(r.costMicros());
      out.writeBoolean(r.costEstimated());
      str(out, r.reservationId());
      out.writeLong(r.heldMicros());
      str(out, r.cacheOutcome().name());
      instant(out, r.startedAt());
      out.writeLong(r.durationNanos());
      str(out, r.priceVersion());
      if (intentSequences.length > 0) {
        out.writeInt(intentSequences.length);
        for (long sequence : intentSequences) {
          out.writeLong(sequence);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  static UsageRecord decodeRecord(byte[] payload) {
    return decodeSettled(payload).record();
  }

  /** A settled record and the sequence numbers of its intents (empty if none were written). */
  record Settled(UsageRecord record, long[] intentSequences) {}

  static Settled decodeSettled(byte[] payload) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(payload))) {
      UsageRecord record = readRecord(in);
      long[] intents = NO_SEQUENCES;
      if (in.available() > 0) {
        int n = in.readInt();
        if (n < 0 || (long) n * Long.BYTES > in.available()) {
          throw new IOException("bad intent count " + n);
        }
        intents = new long[n];
        for (int i = 0; i < n; i++) {
          intents[i] = in.readLong();
        }
      }
      return new Settled(record, intents);
    } catch (IOException | RuntimeException e) {
      throw new JournalException("undecodable usage record", e);
    }
  }

  private static UsageRecord readRecord(DataInputStream in) throws IOException {
    byte v = in.readByte();
    if (v != VERSION && v != RECORD_VERSION) {
      throw new IOException("unknown record payload version " + v);
    }
    String eventId = str(in);
    String requestId = str(in);
    String keyId = str(in);
    String userId = str(in);
    String teamId = str(in);
    String orgId = str(in);
    Set<String> tags = tags(in);
    String model = str(in);
    String deploymentId = str(in);
    int attempts = in.readInt();
    UsageOutcome outcome = UsageOutcome.valueOf(str(in));
    int httpStatus = in.readInt();
    String decidedBy = str(in);
    String rule = str(in);
    String usageJson = str(in);
    Usage usage = usageJson == null ? null
        : Json.read(usageJson.getBytes(StandardCharsets.UTF_8), Usage.class);
    long cost = in.readLong();
    boolean estimated = in.readBoolean();
    String reservationId = str(in);
    long held = in.readLong();
    CacheOutcome cache = CacheOutcome.valueOf(str(in));
    Instant startedAt = instant(in);
    long duration = in.readLong();
    // Version 1 records were written before records carried their price version.
    String priceVersion = v == RECORD_VERSION ? str(in) : null;
    return UsageRecord.builder()
        .eventId(eventId).requestId(requestId).keyId(keyId).userId(userId).teamId(teamId)
        .orgId(orgId).tags(tags).model(model).deploymentId(deploymentId).attempts(attempts)
        .outcome(outcome).httpStatus(httpStatus).decidedBy(decidedBy).rule(rule).usage(usage)
        .costMicros(cost).costEstimated(estimated).reservationId(reservationId)
        .heldMicros(held).cacheOutcome(cache).startedAt(startedAt).durationNanos(duration)
        .priceVersion(priceVersion).build();
  }

  private static void version(DataInputStream in) throws IOException {
    byte v = in.readByte();
    if (v != VERSION) {
      throw new IOException("unknown payload version " + v);
    }
  }

  private static void str(DataOutputStream out, String s) throws IOException {
    if (s == null) {
      out.writeInt(-1);
      return;
    }
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(b.length);
    out.write(b);
  }

  private static String str(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0) {
      return null;
    }
    if (n > in.available()) {
      throw new IOException("string length " + n + " exceeds the payload");
    }
    byte[] b = new byte[n];
    in.readFully(b);
    return new String(b, StandardCharsets.UTF_8);
  }

  private static void tags(DataOutputStream out, Set<String> tags) throws IOException {
    out.writeInt(tags.size());
    for (String t : tags) {
      str(out, t);
    }
  }

  private static Set<String> tags(DataInputStream in) throws IOException {
    int n = in.readInt();
    if (n < 0 || n > in.available()) {
      throw new IOException("bad tag count " + n);
    }
    List<String> out = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      out.add(str(in));
    }
    return new LinkedHashSet<>(out);
  }

  private static void instant(DataOutputStream out, Instant at) throws IOException {
    out.writeLong(at.getEpochSecond());
    out.writeInt(at.getNano());
  }

  private static Instant instant(DataInputStream in) throws IOException {
    return Instant.ofEpochSecond(in.readLong(), in.readInt());
  }
}
