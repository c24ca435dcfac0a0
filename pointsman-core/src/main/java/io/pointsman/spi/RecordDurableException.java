package io.pointsman.spi;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;

/**
 * Thrown by {@link Accounting#settled} when the usage record <em>is</em> durable but something
 * the accounting promised beyond durability failed, for example a synchronous settlement into
 * the ledger (the record stays durable and is settled later). The caller still receives the
 * error, but the gateway ends the call's reservation as for any durable record: leaving it held
 * for recovery would hold it until a restart that has nothing to recover.
 */
public final class RecordDurableException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what failed after the record became durable
   * @param cause the failure, or {@code null}
   */
  public RecordDurableException(String message, Throwable cause) {
    super(Status.UNAVAILABLE, Stages.LEDGER_WRITE, null, message, cause, true);
  }
}
