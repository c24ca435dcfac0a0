package io.pointsman.spi;

import io.pointsman.CacheOutcome;
import io.pointsman.CacheStatus;
import io.pointsman.model.EmbeddingResponse;
import java.util.Objects;

/**
 * The result of an embeddings cache lookup. Immutable.
 *
 * @param status what the cache did
 * @param response the cached response on a hit, else {@code null}
 */
public record EmbeddingCacheLookup(CacheStatus status, EmbeddingResponse response) {

  /**
   * Validates that a hit carries a response and nothing else does.
   *
   * @param status what the cache did
   * @param response the cached response on a hit, else {@code null}
   * @throws NullPointerException if status is null
   * @throws IllegalArgumentException if a hit has no response or a non-hit has one
   */
  public EmbeddingCacheLookup {
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
  public static EmbeddingCacheLookup hit(String layer, EmbeddingResponse response) {
    return new EmbeddingCacheLookup(CacheStatus.hit(layer),
        Objects.requireNonNull(response, "response"));
  }

  /**
   * A miss.
   *
   * @param layer the layer consulted
   * @return the lookup
   */
  public static EmbeddingCacheLookup miss(String layer) {
    return new EmbeddingCacheLookup(CacheStatus.miss(layer), null);
  }

  /**
   * Not consulted.
   *
   * @param reason why
   * @return the lookup
   */
  public static EmbeddingCacheLookup skipped(String reason) {
    return new EmbeddingCacheLookup(CacheStatus.skipped(reason), null);
  }
}
