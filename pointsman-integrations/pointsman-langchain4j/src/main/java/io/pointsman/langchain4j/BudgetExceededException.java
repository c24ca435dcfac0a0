package io.pointsman.langchain4j;

import dev.langchain4j.exception.NonRetriableException;
import io.pointsman.PointsmanException;

/**
 * A call the gateway refused because a budget would be exceeded ({@code 402}). Not retriable:
 * retrying spends nothing until the budget's period rolls over or it is raised. The gateway's
 * {@link PointsmanException} (status, stage and rule) is the {@linkplain #getCause() cause}.
 */
public class BudgetExceededException extends NonRetriableException {
  private static final long serialVersionUID = 1L;

  /**
   * Creates the exception.
   *
   * @param message what was refused, naming the budget
   * @param cause the gateway's refusal
   */
  public BudgetExceededException(String message, PointsmanException cause) {
    super(message, cause);
  }

  /**
   * Returns the gateway's refusal.
   *
   * @return the cause, with its status, stage and rule
   */
  public PointsmanException refusal() {
    return (PointsmanException) getCause();
  }
}
