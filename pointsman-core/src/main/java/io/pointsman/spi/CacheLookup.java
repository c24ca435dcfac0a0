package io.pointsman.spi;

import io.pointsman.CacheOutcome;
import io.pointsman.CacheStatus;
import io.pointsman.model.ChatResponse;
import java.util.Objects;

/**
 * The result of a cache lookup. Immutable.
 *
 * @param status what the cache did
 * @param response the cached response on a hit, else {@code null}
 */
public record CacheLookup(CacheStatus status, ChatResponse response) {

  /**
   * Validates that a hit carries a response and nothing else does.
   *
   * @param status what the cache did
   * @param response the cached response on a hit, else {@code null}
   * @throws NullPointerException if status is null
   * @throws IllegalArgumentException if a hit has no response or a non-hit has one
   */
  public CacheLookup {
    Objects.requireNonNull(status, "status");
    if ((status.outcome() == CacheOutcome.HIT) != (response != null)) {
      throw new IllegalArgumentException("a hit, and only a hit, carries a response");
    }
  }

  /**
   * A hit.
   *
   * @param layer the layer that answered
   * @param response the cached response
   * @return the lookup
   */
  public static CacheLookup hit(String layer, ChatResponse response) {
    return new CacheLookup(CacheStatus.hit(layer), Objects.requireNonNull(response, "response"));
  }

  /**
   * A miss.
   *
   * @param layer the layer consulted
   * @return the lookup
   */
  public static CacheLookup miss(String layer) {
    return new CacheLookup(CacheStatus.miss(layer), null);
  }

  /**
   * Not consulted.
   *
   * @param reason why
   * @return the lookup
   */
  public static CacheLookup skipped(String reason) {
    return new CacheLookup(CacheStatus.skipped(reason), null);
  }
}
