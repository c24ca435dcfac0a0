package io.pointsman.examples.sim;

import io.pointsman.spi.Accounting;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Records what the gateway hands to accounting and whether the real accounting (the journal)
 * acknowledged it as durable. A {@link Mutant} of the accounting seam is applied above the
 * recording, so the recording shows what reached the journal.
 */
final class RecordingAccounting implements Accounting {
  /** One call of {@link #settled}: the record and whether it returned (durable). */
  static final class RecordCall {
    final UsageRecord record;
    volatile boolean durable;
    volatile RuntimeException failure;

    RecordCall(UsageRecord record) {
      this.record = record;
    }
  }

  private volatile Accounting delegate;
  private final Mutant mutant;
  /** "eventId#attempt" of every intent the journal acknowledged. */
  final Set<String> durableIntents = ConcurrentHashMap.newKeySet();
  /** Every durable record by event id. */
  final Map<String, UsageRecord> durableRecords = new ConcurrentHashMap<>();
  /** Every event id with a durable intent. */
  final Set<String> dispatchedEvents = ConcurrentHashMap.newKeySet();
  final List<DispatchIntent> stepIntents = new ArrayList<>();
  final List<RecordCall> stepRecords = new ArrayList<>();

  RecordingAccounting(Accounting delegate, Mutant mutant) {
    this.delegate = delegate;
    this.mutant = mutant;
  }

  void delegate(Accounting value) {
    this.delegate = value;
  }

  static String key(String eventId, int attempt) {
    return eventId + "#" + attempt;
  }

  @Override
  public void dispatched(DispatchIntent intent) {
    if (mutant == Mutant.SKIP_DISPATCH_INTENT) {
      return;
    }
    stepIntents.add(intent);
    delegate.dispatched(intent);
    durableIntents.add(key(intent.eventId(), intent.attempt()));
    dispatchedEvents.add(intent.eventId());
  }

  @Override
  public void settled(UsageRecord record) {
    UsageRecord r = record;
    if (mutant == Mutant.DROP_FAILED_RECORD && r.outcome() != UsageOutcome.SUCCESS
        && r.outcome() != UsageOutcome.CACHE_HIT) {
      return;
    }
    if (mutant == Mutant.UNDERCHARGE_RECORD) {
      r = new UsageRecord(r.eventId(), r.requestId(), r.keyId(), r.userId(), r.teamId(),
          r.orgId(), r.tags(), r.model(), r.deploymentId(), r.attempts(), r.outcome(),
          r.httpStatus(), r.decidedBy(), r.rule(), r.usage(), r.costMicros() / 2,
          r.costEstimated(), r.reservationId(), r.heldMicros(), r.cacheOutcome(),
          r.startedAt(), r.durationNanos());
    }
    RecordCall call = new RecordCall(r);
    stepRecords.add(call);
    try {
      delegate.settled(r);
      call.durable = true;
      durableRecords.put(r.eventId(), r);
    } catch (RuntimeException e) {
      call.failure = e;
      throw e;
    }
  }

  @Override
  public void close() {
    delegate.close();
  }
}
