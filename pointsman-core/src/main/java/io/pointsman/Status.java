package io.pointsman;

/**
 * The outcome class of a failed call, mapped one to one onto an HTTP status a host can return.
 *
 * <p>Immutable and thread-safe.
 */
public enum Status {
  /** The request is malformed or violates a bound or a guardrail. */
  BAD_REQUEST(400),
  /** The virtual key is missing, unknown, expired or revoked. */
  UNAUTHORIZED(401),
  /** A budget would be exceeded. */
  PAYMENT_REQUIRED(402),
  /** The identity may not use the requested model. */
  FORBIDDEN(403),
  /** The requested model does not exist. */
  NOT_FOUND(404),
  /** A rate or concurrency limit would be exceeded. */
  TOO_MANY_REQUESTS(429),
  /** A failure inside the gateway or inside a host-supplied stage. */
  INTERNAL(500),
  /** The provider failed after the attempt budget was spent. */
  BAD_GATEWAY(502),
  /** No deployment is eligible, or the gateway refuses new work (for example a poisoned journal). */
  UNAVAILABLE(503),
  /** The call's deadline passed. */
  GATEWAY_TIMEOUT(504);

  private final int httpStatus;

  Status(int httpStatus) {
    this.httpStatus = httpStatus;
  }

  /**
   * Returns the HTTP status code a host should answer with.
   *
   * @return the HTTP status code, for example 429
   */
  public int httpStatus() {
    return httpStatus;
  }
}
