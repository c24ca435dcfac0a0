package io.pointsman.ledger;

import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.UsageRecord;
import java.time.Instant;
import java.util.Objects;

/**
 * An item the ledger refused, kept in {@code pointsman.quarantine} until it is re-driven
 * ({@link PostgresSettlement#quarantined()}). Immutable.
 *
 * @param quarantineId the row's id
 * @param kind what was refused
 * @param eventId the item's event id
 * @param reasonKind why, as a category
 * @param reason why, in PostgreSQL's words
 * @param sqlState the SQLSTATE of the refusal, or {@code null}
 * @param heldMicros what the item keeps held against its budgets while quarantined
 * @param quarantinedAt when it was first quarantined (database clock)
 * @param lastTriedAt when it was last refused (database clock)
 * @param tries how many times it was refused
 * @param payload the item as handed over, as JSON
 */
public record QuarantinedItem(
    long quarantineId, Kind kind, String eventId, QuarantineReason reasonKind, String reason,
    String sqlState, long heldMicros, Instant quarantinedAt, Instant lastTriedAt, int tries,
    String payload) {

  /** What kind of item was refused. */
  public enum Kind {
    /** A settled usage record handed to {@link PostgresSettlement#settle}. */
    SETTLED_RECORD,
    /** An interrupted call handed to {@link PostgresSettlement#interrupted}. */
    INTERRUPTED_CALL
  }

  /**
   * Validates the fields.
   *
   * @param quarantineId the row's id
   * @param kind what was refused
   * @param eventId the item's event id
   * @param reasonKind why, as a category
   * @param reason why, in PostgreSQL's words
   * @param sqlState the SQLSTATE of the refusal, or {@code null}
   * @param heldMicros what the item keeps held against its budgets while quarantined
   * @param quarantinedAt when it was first quarantined (database clock)
   * @param lastTriedAt when it was last refused (database clock)
   * @param tries how many times it was refused
   * @param payload the item as handed over, as JSON
   * @throws NullPointerException if a required field is null
   */
  public QuarantinedItem {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(reasonKind, "reasonKind");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(payload, "payload");
  }

  /**
   * Decodes a quarantined settled record.
   *
   * @return the record as it was handed over
   * @throws IllegalStateException if this item is not a settled record
   */
  public UsageRecord record() {
    if (kind != Kind.SETTLED_RECORD) {
      throw new IllegalStateException("quarantined item " + quarantineId + " is a " + kind);
    }
    return QuarantineCodec.record(payload);
  }

  /**
   * Decodes a quarantined interrupted call.
   *
   * @return the call as it was handed over
   * @throws IllegalStateException if this item is not an interrupted call
   */
  public InterruptedCall call() {
    if (kind != Kind.INTERRUPTED_CALL) {
      throw new IllegalStateException("quarantined item " + quarantineId + " is a " + kind);
    }
    return QuarantineCodec.call(payload);
  }
}
