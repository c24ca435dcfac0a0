package io.pointsman.limits;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;

/**
 * The limiter's counters could not be reached (a shared store is down) and the limiter fails
 * closed: status 503, stage {@code ratelimit.reserve}, rule {@value #RULE}. Nothing is held.
 * Immutable and thread-safe.
 */
public final class LimitsUnavailableException extends PointsmanException {
  private static final long serialVersionUID = 1L;

  /** The rule name the exception carries. */
  public static final String RULE = "limits:store";

  /**
   * Creates the exception.
   *
   * @param message what could not be reached
   * @param cause the store's failure
   */
  public LimitsUnavailableException(String message, Throwable cause) {
    super(Status.UNAVAILABLE, Stages.RATELIMIT_RESERVE, RULE, message, cause, true);
  }
}
