package io.pointsman.spi;

import io.pointsman.PointsmanException;
import java.time.Duration;

/**
 * Stage 6, {@code router.select}: picks the deployment for one attempt. Implementations must be
 * thread-safe and must not block.
 */
public interface Router {
  /**
   * Picks a deployment.
   *
   * @param context the call and attempt
   * @return the deployment
   * @throws PointsmanException with status 503 when no deployment is eligible
   */
  Deployment select(RouteContext context);

  /**
   * Learns the outcome of an attempt (for health, cooldown and adaptive selection). Must be fast
   * and must not throw. The default does nothing.
   *
   * @param deployment the deployment used
   * @param success whether the provider answered successfully
   * @param latency how long the attempt took
   */
  default void onOutcome(Deployment deployment, boolean success, Duration latency) {}

  /**
   * Learns that an attempt failed, with the failure, so that a router can tell a provider's
   * trouble (5xx, 429 with its retry-after) from a caller's mistake (a 400). The gateway calls
   * this instead of {@code onOutcome(deployment, false, latency)} when the attempt failed with
   * a {@link ProviderException}. The default delegates to {@link #onOutcome}. Must be fast and
   * must not throw.
   *
   * @param deployment the deployment used
   * @param failure how the attempt failed
   * @param latency how long the attempt took
   */
  default void onFailure(Deployment deployment, ProviderException failure, Duration latency) {
    onOutcome(deployment, false, latency);
  }

  /**
   * Returns the highest price a call to this model can be charged through any deployment this
   * router may pick for it, fallbacks included, so that the reservation covers the worst case.
   * The default returns {@code null}: the model's catalog price and the price overrides of the
   * deployments given to the gateway builder are used.
   *
   * @param model the canonical model name
   * @return the component-wise highest price, or {@code null}
   */
  default io.pointsman.catalog.Price worstPrice(String model) {
    return null;
  }

  /**
   * Returns every deployment this router may pick, fallbacks included, so that the gateway
   * builder can check each one's provider is registered and its model is in the catalog. The
   * default returns an empty list: the router does not say, and nothing is checked.
   *
   * @return the deployments
   */
  default java.util.List<Deployment> deployments() {
    return java.util.List.of();
  }
}
