package io.pointsman.journal;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A model of an idempotent system of record: one row per event id, settled rows win over
 * interrupted ones, every delivery counted. Can be told to fail.
 */
final class RecordingSettlement implements Settlement {
  final Map<String, UsageRecord> settled = new ConcurrentHashMap<>();
  final Map<String, InterruptedCall> interrupted = new ConcurrentHashMap<>();
  final AtomicInteger deliveries = new AtomicInteger();
  final AtomicInteger batches = new AtomicInteger();
  final AtomicReference<RuntimeException> failWith = new AtomicReference<>();

  @Override
  public void settle(List<UsageRecord> records) {
    fail();
    batches.incrementAndGet();
    for (UsageRecord r : records) {
      deliveries.incrementAndGet();
      settled.putIfAbsent(r.eventId(), r);
      interrupted.remove(r.eventId());
    }
  }

  @Override
  public void interrupted(List<InterruptedCall> calls) {
    fail();
    batches.incrementAndGet();
    for (InterruptedCall c : calls) {
      deliveries.incrementAndGet();
      if (!settled.containsKey(c.eventId())) {
        interrupted.putIfAbsent(c.eventId(), c);
      }
    }
  }

  private void fail() {
    RuntimeException e = failWith.get();
    if (e != null) {
      throw e;
    }
  }
}
