package io.pointsman.guardrail;

import io.pointsman.spi.Identity;

/**
 * Observes what guardrail chains found and did: flags, redactions and blocks. It is told the
 * rule, never the text.
 *
 * <p>Called synchronously on the request thread; implementations must be fast, thread-safe and
 * must not throw (a throwing listener is logged and ignored).
 */
@FunctionalInterface
public interface GuardrailListener {
  /** A listener that ignores everything. */
  GuardrailListener NONE = (identity, stage, rule, action) -> { };

  /**
   * Receives one finding the chain acted on.
   *
   * @param identity the caller
   * @param stage {@code guardrail.input} or {@code guardrail.output}
   * @param rule the rule that matched
   * @param action what the chain did: {@link GuardrailAction#FLAG}, {@link
   *     GuardrailAction#REDACT} or {@link GuardrailAction#BLOCK}
   */
  void onFinding(Identity identity, String stage, String rule, GuardrailAction action);
}
