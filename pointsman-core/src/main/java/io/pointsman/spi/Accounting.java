package io.pointsman.spi;

import io.pointsman.PointsmanException;

/**
 * Stage 9, {@code ledger.write}, and the durability protocol's boundary. The gateway calls
 * {@link #dispatched} before every provider send and does not send unless it returned; it
 * calls {@link #settled} exactly once for every authenticated call, and does not answer the
 * caller unless it returned. What "durable" means is the implementation's profile: in memory
 * (tests, demos), the file journal, or the journal plus PostgreSQL settlement.
 *
 * <p>Implementations must be thread-safe. A failure must be thrown, never swallowed: the
 * gateway then refuses the send, or answers the caller with an error instead of an
 * unaccounted success.
 */
public interface Accounting extends AutoCloseable {
  /**
   * Records the intent to send one attempt; returns only once it is durable.
   *
   * @param intent the intent
   * @throws PointsmanException with status 503 when the intent cannot be made durable (the
   *     provider is then not called)
   */
  void dispatched(DispatchIntent intent);

  /**
   * Records a call's settled usage; returns only once it is durable.
   *
   * @param record the record
   * @throws PointsmanException with status 503 when the record cannot be made durable
   */
  void settled(UsageRecord record);

  /** Releases resources; the default does nothing. Never throws a checked exception. */
  @Override
  default void close() {}
}
