package io.pointsman.spi;

/** How a call ended, as recorded in its usage record. */
public enum UsageOutcome {
  /** A provider answered and the response was returned. */
  SUCCESS,
  /** Answered from the response cache; no provider was called. */
  CACHE_HIT,
  /** Answered by a custom stage without calling a provider. */
  SERVED_BY_STAGE,
  /** Refused before any provider was dispatched (grant, limit, budget, guardrail, bad input). */
  REJECTED,
  /** A provider answered but the output guardrail blocked the response; still charged. */
  BLOCKED_OUTPUT,
  /** Every attempt failed with an answer from the provider; nothing billed. */
  PROVIDER_FAILED,
  /** The call's outcome at the provider is unknown; charged its worst case, flagged. */
  UNKNOWN,
  /** A stream the caller cancelled; charged its input plus the streamed output, estimated. */
  CANCELLED,
  /** The gateway or a custom stage failed after work was dispatched or before. */
  FAILED
}
