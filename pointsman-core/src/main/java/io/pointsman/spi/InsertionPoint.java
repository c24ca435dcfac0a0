package io.pointsman.spi;

/**
 * Where a custom {@link Stage} runs in the lifecycle. Stages at one point run in the order
 * they were registered, each wrapping the ones after it.
 */
public enum InsertionPoint {
  /**
   * After {@code identity.auth}, before {@code model.resolve}: the identity is known, nothing is
   * reserved yet.
   */
  AFTER_AUTH,
  /**
   * After {@code guardrail.input}, before {@code cache.lookup}: the model is resolved, the
   * reservation is held, the request is checked (and redacted).
   */
  BEFORE_CACHE,
  /**
   * Around each provider attempt, after {@code router.select}: the deployment is known and the
   * dispatch intent is not yet journaled. Runs once per attempt.
   */
  BEFORE_PROVIDER,
  /**
   * Around the provider phase as a whole (all attempts), before {@code guardrail.output}: sees
   * the provider's final response and may transform it.
   */
  AFTER_PROVIDER
}
