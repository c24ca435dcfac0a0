package io.pointsman.spi;

import java.time.Instant;
import java.util.Objects;
import java.util.Set;

/**
 * What {@code ratelimit.reserve} admits: one call, sized at its worst case. Immutable.
 *
 * @param eventId the call's event id
 * @param identity the caller
 * @param tags the key's tags plus the call's tags
 * @param model the resolved model
 * @param inputTokens the input token bound
 * @param maxOutputTokens the output tokens the hold covers: the per-choice output cap (sent on
 *     the wire of every attempt) times the number of choices {@code n}
 * @param worstCaseMicros the most one attempt can cost: input bound × input price + n × output
 *     cap × output price, at the highest price among the model and every deployment the router
 *     may pick (an unpriced model uses the catalog's fallback price)
 * @param at when the call was admitted
 */
public record Admission(
    String eventId, Identity identity, Set<String> tags, ResolvedModel model, long inputTokens,
    long maxOutputTokens, long worstCaseMicros, Instant at) {

  /**
   * Validates the fields.
   *
   * @param eventId the call's event id
   * @param identity the caller
   * @param tags the key's tags plus the call's tags
   * @param model the resolved model
   * @param inputTokens the input token bound
   * @param maxOutputTokens the output tokens the hold covers: the per-choice output cap (sent on
   *     the wire of every attempt) times the number of choices {@code n}
   * @param worstCaseMicros the most one attempt can cost: input bound × input price + n × output
   *     cap × output price, at the highest price among the model and every deployment the router
   *     may pick (an unpriced model uses the catalog's fallback price)
   * @param at when the call was admitted
   * @throws NullPointerException if a reference field is null
   * @throws IllegalArgumentException if a count or amount is negative
   */
  public Admission {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(identity, "identity");
    tags = Set.copyOf(tags);
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(at, "at");
    if (inputTokens < 0 || maxOutputTokens < 0 || worstCaseMicros < 0) {
      throw new IllegalArgumentException("admission amounts must not be negative");
    }
  }
}
