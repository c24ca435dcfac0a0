package io.pointsman.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * A call found at recovery with a dispatch intent and no settled record: the process stopped
 * after the provider may have been called and before the outcome was recorded. Settlement
 * records it as an {@code UNKNOWN} outcome whose reservation stays held (counted against its
 * budgets) until an attestation resolves it or its hold window ends. Immutable.
 *
 * @param lastIntent the latest dispatch intent recovered for the call
 * @param attemptsSeen how many dispatch intents were recovered
 * @param requestIntentFound whether the request intent (fused with attempt 1) was recovered;
 *     false means an {@code UNKNOWN} send whose request intent is missing
 * @param recoveredAt when recovery found it
 */
public record InterruptedCall(
    DispatchIntent lastIntent, int attemptsSeen, boolean requestIntentFound,
    Instant recoveredAt) {

  /**
   * Validates the fields.
   *
   * @param lastIntent the latest dispatch intent recovered for the call
   * @param attemptsSeen how many dispatch intents were recovered
   * @param requestIntentFound whether the request intent (fused with attempt 1) was recovered;
   *     false means an {@code UNKNOWN} send whose request intent is missing
   * @param recoveredAt when recovery found it
   * @throws NullPointerException if a reference field is null
   * @throws IllegalArgumentException if attemptsSeen is below 1
   */
  public InterruptedCall {
    Objects.requireNonNull(lastIntent, "lastIntent");
    Objects.requireNonNull(recoveredAt, "recoveredAt");
    if (attemptsSeen < 1) {
      throw new IllegalArgumentException("an interrupted call has at least one intent");
    }
  }

  /**
   * Returns the call's event id.
   *
   * @return the event id
   */
  public String eventId() {
    return lastIntent.eventId();
  }
}
