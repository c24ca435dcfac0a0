package io.pointsman.journal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * What a test asked the journal to do, and the invariants any recovered state must satisfy
 * against it. Every payload starts with a unique 8-byte id so a recovered record can be traced to
 * the append that produced it. Thread-safe (all methods synchronized).
 */
final class JournalModel {

  /** One append the test submitted. */
  static final class Append {
    final long id;
    final byte type;
    final byte[] payload;
    final long unit;
    final int unitSize;
    long sequence = -1;
    boolean durable;
    boolean lost;
    CompletableFuture<Long> future;

    Append(long id, byte type, byte[] payload, long unit, int unitSize) {
      this.id = id;
      this.type = type;
      this.payload = payload;
      this.unit = unit;
      this.unitSize = unitSize;
    }
  }

  private final Map<Long, Append> appends = new HashMap<>();
  private final Set<Long> markRequested = new HashSet<>();
  private final Set<Long> markDurable = new HashSet<>();
  private final List<Long> durableUnmarked = new ArrayList<>();
  private long nextId = 1;
  private long nextUnit = 1;

  synchronized List<Append> newUnit(Random random, int size, int maxPayload) {
    long unit = nextUnit++;
    List<Append> result = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      long id = nextId++;
      byte[] payload = new byte[Long.BYTES + random.nextInt(maxPayload - Long.BYTES + 1)];
      random.nextBytes(payload);
      ByteBuffer.wrap(payload).putLong(id);
      Append append = new Append(id, (byte) random.nextInt(128), payload, unit, size);
      appends.put(id, append);
      result.add(append);
    }
    return result;
  }

  synchronized void acknowledged(Append append, long sequence) {
    append.sequence = sequence;
    append.durable = true;
    durableUnmarked.add(sequence);
  }

  /** Picks up to {@code count} durable, unmarked sequences and records the request. */
  synchronized long[] pickForMark(Random random, int count) {
    int n = Math.min(count, durableUnmarked.size());
    long[] picked = new long[n];
    for (int i = 0; i < n; i++) {
      picked[i] = durableUnmarked.remove(random.nextInt(durableUnmarked.size()));
      markRequested.add(picked[i]);
    }
    return picked;
  }

  synchronized void markAcknowledged(long[] sequences) {
    for (long sequence : sequences) {
      markDurable.add(sequence);
    }
  }

  /**
   * Checks a recovered state against everything asked so far.
   *
   * @return null if every invariant holds, else the first violation
   */
  synchronized String violation(List<RecoveredRecord> recovered) {
    long previous = 0;
    Set<Long> seen = new HashSet<>();
    Map<Long, Integer> unitCounts = new HashMap<>();
    Map<Long, Integer> unitSizes = new HashMap<>();
    for (RecoveredRecord record : recovered) {
      if (record.sequence() <= previous) {
        return "sequence " + record.sequence() + " recovered after " + previous;
      }
      previous = record.sequence();
      byte[] payload = record.payload();
      if (payload.length < Long.BYTES) {
        return "recovered " + record + " was never appended (payload too short for an id)";
      }
      long id = ByteBuffer.wrap(payload).getLong();
      Append append = appends.get(id);
      if (append == null) {
        return "recovered " + record + " with id " + id + " was never appended";
      }
      if (append.lost) {
        return "recovered " + record + " (id " + id + ") was absent after an earlier recovery"
            + " and came back";
      }
      if (record.type() != append.type || !Arrays.equals(payload, append.payload)) {
        return "recovered " + record + " differs from what append id " + id + " wrote";
      }
      if (append.sequence >= 0 && append.sequence != record.sequence()) {
        return "append id " + id + " was acknowledged as sequence " + append.sequence
            + " but recovered as " + record.sequence();
      }
      if (!seen.add(id)) {
        return "append id " + id + " recovered twice";
      }
      if (record.delivered() && !markRequested.contains(record.sequence())) {
        return "recovered " + record + " as delivered, but it was never marked";
      }
      if (!record.delivered() && markDurable.contains(record.sequence())) {
        return "recovered " + record + " as undelivered, but its mark was acknowledged";
      }
      unitCounts.merge(append.unit, 1, Integer::sum);
      unitSizes.put(append.unit, append.unitSize);
    }
    for (Append append : appends.values()) {
      if (append.durable && !seen.contains(append.id) && !markDurable.contains(append.sequence)) {
        return "acknowledged append id " + append.id + " (sequence " + append.sequence
            + ") was not recovered";
      }
    }
    for (Map.Entry<Long, Integer> unit : unitCounts.entrySet()) {
      int size = unitSizes.get(unit.getKey());
      if (unit.getValue() != size) {
        return "unit " + unit.getKey() + " recovered " + unit.getValue() + " of its " + size
            + " records";
      }
    }
    return null;
  }

  /** Adopts a recovered state that passed {@link #violation}: what is absent now is gone. */
  synchronized void adopt(List<RecoveredRecord> recovered) {
    Map<Long, RecoveredRecord> byId = new HashMap<>();
    for (RecoveredRecord record : recovered) {
      byId.put(ByteBuffer.wrap(record.payload()).getLong(), record);
    }
    durableUnmarked.clear();
    for (Append append : appends.values()) {
      RecoveredRecord record = byId.get(append.id);
      if (record == null) {
        if (!append.durable) {
          append.lost = true;
        }
        continue;
      }
      append.sequence = record.sequence();
      append.durable = true;
      if (record.delivered()) {
        markDurable.add(record.sequence());
        markRequested.add(record.sequence());
      } else if (!markRequested.contains(record.sequence())) {
        durableUnmarked.add(record.sequence());
      }
    }
  }
}
