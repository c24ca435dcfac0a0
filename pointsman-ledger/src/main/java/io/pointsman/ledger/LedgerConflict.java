package io.pointsman.ledger;

import java.time.Instant;
import java.util.Objects;

/**
 * A settled record handed over again for an event the ledger already holds, disagreeing with
 * the stored row: a different cost or usage, or a stored row that is not {@code SETTLED} (the
 * call was recorded as interrupted). The stored row is kept; the conflict stays open, and
 * {@link ReconciliationReport#balanced()} false, until an operator resolves it
 * ({@link PostgresSettlement#resolveConflicts}). Immutable.
 *
 * @param conflictId the row's id
 * @param eventId the event
 * @param storedStatus the stored row's status
 * @param storedCostMicros the stored cost
 * @param storedPromptTokens the stored prompt tokens, or {@code null}
 * @param storedCompletionTokens the stored completion tokens, or {@code null}
 * @param storedCachedTokens the stored cached tokens, or {@code null}
 * @param replayedCostMicros the replayed record's cost
 * @param replayedPromptTokens the replayed prompt tokens, or {@code null}
 * @param replayedCompletionTokens the replayed completion tokens, or {@code null}
 * @param replayedCachedTokens the replayed cached tokens, or {@code null}
 * @param firstSeenAt when this disagreement was first seen (database clock)
 * @param lastSeenAt when it was last seen
 * @param timesSeen how many hand-overs carried it
 * @param resolvedAt when an operator resolved it, or {@code null} while open
 * @param resolution the operator's note, or {@code null} while open
 */
public record LedgerConflict(
    long conflictId, String eventId, String storedStatus, long storedCostMicros,
    Long storedPromptTokens, Long storedCompletionTokens, Long storedCachedTokens,
    long replayedCostMicros, Long replayedPromptTokens, Long replayedCompletionTokens,
    Long replayedCachedTokens, Instant firstSeenAt, Instant lastSeenAt, int timesSeen,
    Instant resolvedAt, String resolution) {

  /**
   * Validates the fields.
   *
   * @param conflictId the row's id
   * @param eventId the event
   * @param storedStatus the stored row's status
   * @param storedCostMicros the stored cost
   * @param storedPromptTokens the stored prompt tokens, or {@code null}
   * @param storedCompletionTokens the stored completion tokens, or {@code null}
   * @param storedCachedTokens the stored cached tokens, or {@code null}
   * @param replayedCostMicros the replayed record's cost
   * @param replayedPromptTokens the replayed prompt tokens, or {@code null}
   * @param replayedCompletionTokens the replayed completion tokens, or {@code null}
   * @param replayedCachedTokens the replayed cached tokens, or {@code null}
   * @param firstSeenAt when this disagreement was first seen (database clock)
   * @param lastSeenAt when it was last seen
   * @param timesSeen how many hand-overs carried it
   * @param resolvedAt when an operator resolved it, or {@code null} while open
   * @param resolution the operator's note, or {@code null} while open
   * @throws NullPointerException if a required field is null
   */
  public LedgerConflict {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(storedStatus, "storedStatus");
  }

  /**
   * Returns whether the conflict is still open.
   *
   * @return true until resolved
   */
  public boolean open() {
    return resolvedAt == null;
  }
}
