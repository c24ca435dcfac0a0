package io.pointsman.route;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.catalog.Price;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.RouteContext;
import io.pointsman.spi.Router;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The default {@link Router}: each model is served by the deployments registered for it, in
 * registration order; an attempt takes the first that has not failed in this call, or the
 * first when all have (a retry on the only deployment). Strategies, health and cooldown belong
 * to the router module. Immutable and thread-safe.
 */
public final class SingleDeploymentRouter implements Router {
  private final Map<String, List<Deployment>> byModel;
  private final List<Deployment> all;

  /**
   * Creates a router.
   *
   * @param deployments the deployments, in preference order
   */
  public SingleDeploymentRouter(List<Deployment> deployments) {
    Map<String, List<Deployment>> map = new HashMap<>();
    for (Deployment d : deployments) {
      map.computeIfAbsent(d.servesModel(), k -> new ArrayList<>()).add(d);
    }
    map.replaceAll((k, v) -> List.copyOf(v));
    this.byModel = Map.copyOf(map);
    this.all = List.copyOf(deployments);
  }

  /** Returns the deployments, in preference order. */
  @Override
  public List<Deployment> deployments() {
    return all;
  }

  @Override
  public Deployment select(RouteContext context) {
    List<Deployment> candidates = byModel.get(context.model().name());
    if (candidates == null || candidates.isEmpty()) {
      throw PointsmanException.denied(Status.UNAVAILABLE, Stages.ROUTER_SELECT, null,
          "no deployment serves model " + context.model().name());
    }
    for (Deployment d : candidates) {
      if (!context.failed().contains(d.id())) {
        return d;
      }
    }
    return candidates.get(0);
  }

  /**
   * {@inheritDoc}
   *
   * <p>The highest price override among the model's deployments, or {@code null} when none
   * has one.
   */
  @Override
  public Price worstPrice(String model) {
    Price worst = null;
    for (Deployment d : byModel.getOrDefault(model, List.of())) {
      if (d.priceOverride() != null) {
        worst = d.priceOverride().max(worst);
      }
    }
    return worst;
  }
}
