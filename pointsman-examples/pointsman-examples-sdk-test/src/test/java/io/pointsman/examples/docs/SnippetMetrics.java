package io.pointsman.examples.docs;

/** What the guardrails page's listener reports to, in its snippet. */
public interface SnippetMetrics {
  /**
   * Counts one finding.
   *
   * @param stage the stage
   * @param rule the rule
   * @param action the action
   */
  void count(String stage, String rule, Object action);
}
