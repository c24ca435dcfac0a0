package io.pointsman.spi;

import io.pointsman.catalog.Price;
import java.util.Objects;

/**
 * One place a model can be served: a provider and the model name it knows. Immutable.
 *
 * @param id a unique id, reported in results and the ledger
 * @param provider the registered provider name
 * @param servesModel the canonical catalog model this deployment serves
 * @param providerModel the model name sent to the provider
 * @param priceOverride a price replacing the catalog's for calls served here, or {@code null}
 */
public record Deployment(
    String id, String provider, String servesModel, String providerModel, Price priceOverride) {

  /**
   * Validates the fields.
   *
   * @param id a unique id, reported in results and the ledger
   * @param provider the registered provider name
   * @param servesModel the canonical catalog model this deployment serves
   * @param providerModel the model name sent to the provider
   * @param priceOverride a price replacing the catalog's for calls served here, or {@code null}
   * @throws NullPointerException if a name is null
   * @throws IllegalArgumentException if a name is blank
   */
  public Deployment {
    for (String s : new String[] {id, provider, servesModel, providerModel}) {
      Objects.requireNonNull(s, "deployment names must not be null");
      if (s.isBlank()) {
        throw new IllegalArgumentException("deployment names must not be blank");
      }
    }
  }

  /**
   * Returns a deployment sending the catalog model name unchanged, without a price override.
   *
   * @param id the deployment id
   * @param provider the provider name
   * @param model the canonical model name
   * @return the deployment
   */
  public static Deployment of(String id, String provider, String model) {
    return new Deployment(id, provider, model, model, null);
  }
}
