package io.pointsman.guardrail;

/**
 * What a guardrail chain does when one of its rules finds something.
 *
 * <p>Immutable and thread-safe.
 */
public enum GuardrailAction {
  /** Refuse the call with status 400, naming the rule; the secret is never in the message. */
  BLOCK,
  /** Replace each finding with {@code [REDACTED:<rule>]} and go on with the redacted copy. */
  REDACT,
  /** Let the call through unchanged and tell the chain's {@link GuardrailListener}. */
  FLAG,
  /** Ignore the rule's findings. */
  OFF
}
