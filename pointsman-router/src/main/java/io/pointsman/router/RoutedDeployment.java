package io.pointsman.router;

import io.pointsman.spi.Deployment;
import java.util.Objects;
import java.util.Set;

/**
 * A deployment with what the router needs to know about it. The endpoint (base URL) and the
 * credential reference belong to the provider adapter registered under
 * {@code deployment.provider()}; the price override travels in the core {@link Deployment}.
 * Immutable.
 *
 * @param deployment the core deployment (id, provider, model, provider model, price override)
 * @param weight the relative share for weighted selection, at least 1
 * @param rpmLimit requests per minute this deployment may take, 0 for no cap
 * @param tpmLimit tokens per minute (admission bounds) it may take, 0 for no cap
 * @param tags free-form labels, for example a region
 */
public record RoutedDeployment(
    Deployment deployment, int weight, long rpmLimit, long tpmLimit, Set<String> tags) {

  /**
   * Validates the fields.
   *
   * @param deployment the core deployment (id, provider, model, provider model, price override)
   * @param weight the relative share for weighted selection, at least 1
   * @param rpmLimit requests per minute this deployment may take, 0 for no cap
   * @param tpmLimit tokens per minute (admission bounds) it may take, 0 for no cap
   * @param tags free-form labels, for example a region
   * @throws NullPointerException if deployment or tags is null
   * @throws IllegalArgumentException if weight is below 1 or a cap is negative
   */
  public RoutedDeployment {
    Objects.requireNonNull(deployment, "deployment");
    tags = Set.copyOf(tags);
    if (weight < 1) {
      throw new IllegalArgumentException("weight must be at least 1: " + weight);
    }
    if (rpmLimit < 0 || tpmLimit < 0) {
      throw new IllegalArgumentException("caps must not be negative");
    }
  }

  /**
   * Returns a deployment with weight 1, no caps and no tags.
   *
   * @param deployment the core deployment
   * @return the routed deployment
   */
  public static RoutedDeployment of(Deployment deployment) {
    return new RoutedDeployment(deployment, 1, 0, 0, Set.of());
  }

  /**
   * Returns a copy with another weight.
   *
   * @param value the weight, at least 1
   * @return the copy
   * @throws IllegalArgumentException if value is below 1
   */
  public RoutedDeployment withWeight(int value) {
    return new RoutedDeployment(deployment, value, rpmLimit, tpmLimit, tags);
  }

  /**
   * Returns a copy with caps.
   *
   * @param rpm requests per minute, 0 for none
   * @param tpm tokens per minute, 0 for none
   * @return the copy
   * @throws IllegalArgumentException if a cap is negative
   */
  public RoutedDeployment withLimits(long rpm, long tpm) {
    return new RoutedDeployment(deployment, weight, rpm, tpm, tags);
  }

  /**
   * Returns the deployment id.
   *
   * @return the id
   */
  public String id() {
    return deployment.id();
  }
}
