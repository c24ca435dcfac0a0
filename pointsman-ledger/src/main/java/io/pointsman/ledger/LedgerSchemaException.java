package io.pointsman.ledger;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.util.Objects;

/**
 * Thrown at start when the database's ledger schema cannot be used by this code: it is newer
 * than the code, or an applied migration's checksum differs from the migration this code
 * ships. Nothing is changed in the database when it is thrown. Immutable and thread-safe.
 */
public final class LedgerSchemaException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  /** Why the schema was refused. */
  public enum Reason {
    /** The database has a migration version this code does not know: it is newer. */
    NEWER_SCHEMA,
    /** An applied migration differs from the migration of the same version in this code. */
    CHECKSUM_MISMATCH
  }

  /** Why the schema was refused. */
  private final Reason reason;
  /** The migration version the refusal is about. */
  private final int version;

  LedgerSchemaException(Reason reason, int version, String message) {
    super(Status.UNAVAILABLE, Stages.LEDGER_WRITE, null, message, null, true);
    this.reason = Objects.requireNonNull(reason, "reason");
    this.version = version;
  }

  /**
   * Returns why the schema was refused.
   *
   * @return the reason
   */
  public Reason reason() {
    return reason;
  }

  /**
   * Returns the migration version the refusal is about.
   *
   * @return the version
   */
  public int version() {
    return version;
  }
}
