package io.pointsman.accounting;

import io.pointsman.spi.Accounting;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The default {@link Accounting}: keeps every dispatch intent and usage record in memory, in
 * order, for tests and demos to inspect. Nothing survives the process: use the journal for
 * durability. Thread-safe.
 */
public final class InMemoryAccounting implements Accounting {
  /** One recorded event, intents and records interleaved in arrival order. */
  public sealed interface Event permits IntentEvent, RecordEvent {}

  /**
   * A recorded intent.
   *
   * @param intent the intent
   */
  public record IntentEvent(DispatchIntent intent) implements Event {}

  /**
   * A recorded usage record.
   *
   * @param record the record
   */
  public record RecordEvent(UsageRecord record) implements Event {}

  private final ReentrantLock lock = new ReentrantLock();
  private final List<Event> events = new ArrayList<>();

  /** Creates an empty recorder. */
  public InMemoryAccounting() {}

  @Override
  public void dispatched(DispatchIntent intent) {
    lock.lock();
    try {
      events.add(new IntentEvent(intent));
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void settled(UsageRecord record) {
    lock.lock();
    try {
      events.add(new RecordEvent(record));
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns every event so far, in order.
   *
   * @return a snapshot copy
   */
  public List<Event> events() {
    lock.lock();
    try {
      return List.copyOf(events);
    } finally {
      lock.unlock();
    }
  }

  /**
   * Returns every intent so far, in order.
   *
   * @return a snapshot copy
   */
  public List<DispatchIntent> intents() {
    List<DispatchIntent> out = new ArrayList<>();
    for (Event e : events()) {
      if (e instanceof IntentEvent i) {
        out.add(i.intent());
      }
    }
    return out;
  }

  /**
   * Returns every usage record so far, in order.
   *
   * @return a snapshot copy
   */
  public List<UsageRecord> records() {
    List<UsageRecord> out = new ArrayList<>();
    for (Event e : events()) {
      if (e instanceof RecordEvent r) {
        out.add(r.record());
      }
    }
    return out;
  }

  /**
   * Returns the record of one call.
   *
   * @param eventId the call's event id
   * @return the record, or {@code null}
   */
  public UsageRecord recordFor(String eventId) {
    for (UsageRecord r : records()) {
      if (r.eventId().equals(eventId)) {
        return r;
      }
    }
    return null;
  }
}
