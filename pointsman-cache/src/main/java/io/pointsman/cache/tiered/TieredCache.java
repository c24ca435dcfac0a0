package io.pointsman.cache.tiered;

import io.pointsman.CacheOutcome;
import io.pointsman.CacheStatus;
import io.pointsman.model.ChatResponse;
import io.pointsman.spi.CacheLookup;
import io.pointsman.spi.CacheQuery;
import io.pointsman.spi.ResponseCache;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Layers consulted in order, typically the exact L1 then the semantic L2; the first hit
 * answers. When no layer hits, the status is a miss naming every layer consulted
 * ({@code "exact+semantic"}) and carrying their reasons ({@code "semantic: similarity=0.8123
 * below 0.9000"}); when every layer skipped, it is the first layer's skip. A store is offered to
 * every layer, each applying its own eligibility. A layer that throws is a miss for that layer
 * with reason {@code error}, never a failed call. Thread-safe when its layers are.
 *
 * <pre>{@code
 * ResponseCache cache = TieredCache.of(
 *     CaffeineExactCache.builder().shared(redis).build(),
 *     SemanticCache.builder(embedder).shared(redis).build());
 * Gateway gateway = Gateway.builder().cache(cache)...build();
 * }</pre>
 */
public final class TieredCache implements ResponseCache {
  private static final Logger LOG = LoggerFactory.getLogger(TieredCache.class);

  private final List<ResponseCache> layers;

  private TieredCache(List<ResponseCache> layers) {
    this.layers = layers;
  }

  /**
   * Returns a cache over the given layers, consulted in order.
   *
   * @param layers at least one layer
   * @return the cache
   * @throws NullPointerException if a layer is null
   * @throws IllegalArgumentException if there is no layer
   */
  public static TieredCache of(ResponseCache... layers) {
    List<ResponseCache> list = List.of(layers);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("a tiered cache needs at least one layer");
    }
    return new TieredCache(list);
  }

  /**
   * Returns the layers in order.
   *
   * @return the layers
   */
  public List<ResponseCache> layers() {
    return layers;
  }

  @Override
  public CacheLookup lookup(CacheQuery query) {
    Objects.requireNonNull(query, "query");
    CacheLookup firstSkip = null;
    StringBuilder consulted = new StringBuilder();
    StringBuilder reasons = new StringBuilder();
    for (ResponseCache layer : layers) {
      CacheLookup found;
      try {
        found = layer.lookup(query);
      } catch (RuntimeException e) {
        LOG.warn("cache layer {} failed; treated as a miss", layer.getClass().getSimpleName(), e);
        found = new CacheLookup(CacheStatus.error(layer.getClass().getSimpleName()), null);
      }
      CacheStatus status = found.status();
      if (status.outcome() == CacheOutcome.HIT) {
        return found;
      }
      if (status.outcome() == CacheOutcome.SKIPPED) {
        if (firstSkip == null) {
          firstSkip = found;
        }
        continue;
      }
      consulted.append(consulted.length() == 0 ? "" : "+").append(status.layer());
      if (!status.reason().isEmpty()) {
        reasons.append(reasons.length() == 0 ? "" : "; ").append(status.layer()).append(": ")
            .append(status.reason());
      }
    }
    if (consulted.length() == 0) {
      return firstSkip;
    }
    return new CacheLookup(new CacheStatus(CacheOutcome.MISS, consulted.toString(),
        reasons.toString()), null);
  }

  @Override
  public void store(CacheQuery query, ChatResponse response) {
    for (ResponseCache layer : layers) {
      try {
        layer.store(query, response);
      } catch (RuntimeException e) {
        LOG.warn("cache layer {} failed to store", layer.getClass().getSimpleName(), e);
      }
    }
  }

  /**
   * Waits until every layer has completed the stores offered so far, within one time-out
   * shared by the layers.
   *
   * @param timeout how long to wait at most, in all
   * @return true if every layer finished in time
   * @throws InterruptedException if interrupted while waiting
   */
  @Override
  public boolean awaitStores(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + Objects.requireNonNull(timeout, "timeout").toNanos();
    boolean all = true;
    for (ResponseCache layer : layers) {
      Duration left = Duration.ofNanos(Math.max(0, deadline - System.nanoTime()));
      all &= layer.awaitStores(left);
    }
    return all;
  }
}
