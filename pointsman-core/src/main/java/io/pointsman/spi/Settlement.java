package io.pointsman.spi;

import java.util.List;

/**
 * Where durable usage is settled after acknowledgement: the system of record for spend (for
 * example PostgreSQL). The journal hands it batches of settled records and, after a crash, the
 * calls whose outcome is unknown; once a method returns, the batch is committed and the
 * journal may reclaim those records. Every method is idempotent on event id: handing the same
 * batch again changes nothing. Implementations must be thread-safe and must throw (never
 * swallow) when a batch did not commit, so that the journal keeps the records and retries.
 */
public interface Settlement extends AutoCloseable {
  /**
   * Commits settled records: one ledger row and its budget charges per event id, in one
   * transaction per call of this method.
   *
   * @param records the records, each with a distinct event id
   * @throws RuntimeException when the batch did not commit; nothing of it is written
   */
  void settle(List<UsageRecord> records);

  /**
   * Commits interrupted calls as {@code UNKNOWN} outcomes with their reservations held. A call
   * whose settled record is already committed is left as it is.
   *
   * @param calls the calls, each with a distinct event id
   * @throws RuntimeException when the batch did not commit; nothing of it is written
   */
  void interrupted(List<InterruptedCall> calls);

  /** Releases resources; the default does nothing. Never throws a checked exception. */
  @Override
  default void close() {}
}
