package io.pointsman.journal;

import java.time.Instant;

/**
 * A snapshot of {@link JournalAccounting}'s settlement hand-over, for health checks and
 * metrics. Immutable.
 *
 * <p>The settlers never stop on a failure: a batch that does not commit (the database is down,
 * the settlement threw an exception or an error) or whose delivered marks cannot be written
 * yet (the journal's queue is full during a disk stall) is retried with bounded exponential
 * backoff. Meanwhile the records are durable in the journal, and calls go on being served
 * until the journal reaches its size limit.
 *
 * @param running whether every settler thread is alive and the accounting is open
 * @param stalledSince when the first failure since the last successful commit happened; null
 *     while settlement succeeds
 * @param backlog records and interrupted calls waiting for settlement or being settled; while
 *     {@code overflowing}, approximate (it counts journal sequence numbers still to be read)
 * @param lastError the last failure ({@code class: message}), or null if none yet
 * @param lastErrorAt when it happened, or null
 * @param lastSuccessAt when settlement last committed a batch, or null if never
 * @param consecutiveFailures failures since the last successful commit
 * @param overflowing whether the in-memory queue overflowed and settlement re-reads records
 *     from the journal
 * @param journalPoisoned whether the journal is poisoned (an I/O failure; restart the host)
 * @param journalRetainedBytes bytes of journal segments holding records not yet settled
 * @param journalLimitBytes the size limit beyond which new calls are refused, 0 if none
 * @param refusingCalls whether new calls are refused now because the journal is at its limit
 */
public record SettlerState(
    boolean running,
    Instant stalledSince,
    long backlog,
    String lastError,
    Instant lastErrorAt,
    Instant lastSuccessAt,
    long consecutiveFailures,
    boolean overflowing,
    boolean journalPoisoned,
    long journalRetainedBytes,
    long journalLimitBytes,
    boolean refusingCalls) {

  /** The overall condition, for a health endpoint. */
  public enum Condition {
    /** Settlement keeps up; calls are accepted. */
    OK,
    /**
     * Calls are accepted and durable, but settlement is failing or behind (for example the
     * database is down): the journal buffers.
     */
    DEGRADED,
    /**
     * New calls are refused (journal poisoned, or at its size limit) or the settlers are not
     * running.
     */
    FAILING
  }

  /**
   * Returns whether settlement is failing now.
   *
   * @return true while {@code stalledSince} is set
   */
  public boolean stalled() {
    return stalledSince != null;
  }

  /**
   * Sums the state up: {@link Condition#FAILING} when calls are refused or the settlers are not
   * running, {@link Condition#DEGRADED} when stalled or overflowing, else {@link Condition#OK}.
   *
   * @return the condition
   */
  public Condition condition() {
    if (!running || journalPoisoned || refusingCalls) {
      return Condition.FAILING;
    }
    if (stalled() || overflowing) {
      return Condition.DEGRADED;
    }
    return Condition.OK;
  }
}
