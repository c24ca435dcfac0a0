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
}
