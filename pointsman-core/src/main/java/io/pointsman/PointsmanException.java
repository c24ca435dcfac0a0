package io.pointsman;

import java.util.Objects;

/**
 * The single unchecked exception type of Pointsman. Every failure a caller sees carries a
 * {@link Status} (which a host maps to HTTP), the name of the stage that decided (one of the
 * {@link Stages} timer names, or a custom stage's name) and, where a rule decided, the rule's
 * name.
 *
 * <p>Denials (rate limit, budget, guardrail, authentication) are expected outcomes and are
 * created without a stack trace, so that a flood of denials stays cheap.
 *
 * <p>Instances are immutable and thread-safe.
 */
public class PointsmanException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /**
   * The rule of a {@link Status#BAD_REQUEST} refusal at stage {@link Stages#REQUEST} because
   * the request body is not valid JSON or does not match the Chat Completions shape. A host
   * tells it apart by {@link #rule()}, never by the message.
   */
  public static final String INVALID_JSON_RULE = "request.invalid_json";

  /** The outcome class. */
  private final Status status;
  /** The stage that decided. */
  private final String stage;
  /** The rule that decided, or null. */
  private final String rule;

  /**
   * Creates an exception.
   *
   * @param status the outcome class
   * @param stage the stage that decided
   * @param rule the rule that decided, or {@code null} when no single rule did
   * @param message what went wrong, for the host's logs (never a key or a prompt)
   * @param cause the underlying failure, or {@code null}
   * @param stackTrace whether to capture a stack trace (denials do not)
   * @throws NullPointerException if status, stage or message is null
   */
  protected PointsmanException(
      Status status, String stage, String rule, String message, Throwable cause,
      boolean stackTrace) {
    super(Objects.requireNonNull(message, "message"), cause, true, stackTrace);
    this.status = Objects.requireNonNull(status, "status");
    this.stage = Objects.requireNonNull(stage, "stage");
    this.rule = rule;
  }

  /**
   * Creates a denial: an expected refusal without a stack trace.
   *
   * @param status the outcome class
   * @param stage the stage that decided
   * @param rule the rule that decided, or {@code null}
   * @param message what was refused and why
   * @return the exception, to be thrown by the caller
   */
  public static PointsmanException denied(Status status, String stage, String rule, String message) {
    return new PointsmanException(status, stage, rule, message, null, false);
  }

  /**
   * Creates a failure with a stack trace.
   *
   * @param status the outcome class
   * @param stage the stage that failed
   * @param message what failed
   * @param cause the underlying failure, or {@code null}
   * @return the exception, to be thrown by the caller
   */
  public static PointsmanException failure(
      Status status, String stage, String message, Throwable cause) {
    return new PointsmanException(status, stage, null, message, cause, true);
  }

  /**
   * Creates a {@link Status#BAD_REQUEST} denial.
   *
   * @param stage the stage that found the problem
   * @param message what is wrong with the input
   * @return the exception
   */
  public static PointsmanException badRequest(String stage, String message) {
    return denied(Status.BAD_REQUEST, stage, null, message);
  }

  /**
   * Returns the outcome class.
   *
   * @return the status, never null
   */
  public Status status() {
    return status;
  }

  /**
   * Returns the name of the stage that decided.
   *
   * @return a stage name such as {@code "ratelimit.reserve"}
   */
  public String stage() {
    return stage;
  }

  /**
   * Returns the name of the rule that decided, if one did.
   *
   * @return the rule name, or {@code null}
   */
  public String rule() {
    return rule;
  }

  @Override
  public String toString() {
    return getClass().getName() + ": " + status.httpStatus() + " " + status + " [" + stage
        + (rule == null ? "" : "/" + rule) + "] " + getMessage();
  }
}
