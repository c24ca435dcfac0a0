package io.pointsman;

import java.util.Objects;

/**
 * What the response cache did for one call, and why. Immutable.
 *
 * @param outcome hit, miss, bypass or skipped
 * @param layer the cache layer that answered or was consulted (for example {@code "exact"}),
 *     or {@code "none"}
 * @param reason why, for example {@code "no-store"}, {@code "not deterministic"},
 *     {@code "stream"}, {@code "error"}; empty for a plain hit or miss
 */
public record CacheStatus(CacheOutcome outcome, String layer, String reason) {

  /**
   * Validates the fields.
   *
   * @param outcome hit, miss, bypass or skipped
   * @param layer the cache layer that answered or was consulted (for example {@code "exact"}),
   *     or {@code "none"}
   * @param reason why, for example {@code "no-store"}, {@code "not deterministic"},     {@code
   *     "stream"}, {@code "error"}; empty for a plain hit or miss
   * @throws NullPointerException if a field is null
   */
  public CacheStatus {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(layer, "layer");
    Objects.requireNonNull(reason, "reason");
  }

  /**
   * A hit in the given layer.
   *
   * @param layer the layer
   * @return the status
   */
  public static CacheStatus hit(String layer) {
    return new CacheStatus(CacheOutcome.HIT, layer, "");
  }

  /**
   * A miss in the given layer.
   *
   * @param layer the layer
   * @return the status
   */
  public static CacheStatus miss(String layer) {
    return new CacheStatus(CacheOutcome.MISS, layer, "");
  }

  /**
   * A miss caused by a cache error, degraded from a failure.
   *
   * @param layer the layer that failed
   * @return the status
   */
  public static CacheStatus error(String layer) {
    return new CacheStatus(CacheOutcome.MISS, layer, "error");
  }

  /**
   * A read bypass ({@code no-cache}).
   *
   * @return the status
   */
  public static CacheStatus bypass() {
    return new CacheStatus(CacheOutcome.BYPASS, "none", "no-cache");
  }

  /**
   * Not consulted.
   *
   * @param reason why
   * @return the status
   */
  public static CacheStatus skipped(String reason) {
    return new CacheStatus(CacheOutcome.SKIPPED, "none", reason);
  }

  /**
   * Returns a short label such as {@code "HIT(exact)"} or {@code "SKIPPED(no-store)"}.
   *
   * @return the label
   */
  public String label() {
    String detail = reason.isEmpty() ? layer : reason;
    return outcome + "(" + detail + ")";
  }
}
