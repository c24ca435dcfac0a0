package io.pointsman.ledger;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;

/**
 * Thrown by {@link SettlementBatcher#submit} when the record could not be queued: the queue
 * stayed full for the whole submit timeout (settlement is slower than the producers, or
 * stuck), or the submitter was interrupted while waiting. The record was not queued and not
 * dropped silently: the caller still holds it and hands it over again. Status 503.
 */
public final class SettlementBackPressureException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  SettlementBackPressureException(String message) {
    super(Status.UNAVAILABLE, Stages.LEDGER_WRITE, null, message, null, false);
  }
}
