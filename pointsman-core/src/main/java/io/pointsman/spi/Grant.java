package io.pointsman.spi;

import java.util.Objects;
import java.util.Set;

/**
 * The models one level (key, team or org) allows. A call may use a model only when every level
 * allows it. Immutable.
 *
 * @param everyModel true when every model is allowed
 * @param models the allowed canonical names or aliases when {@code everyModel} is false
 */
public record Grant(boolean everyModel, Set<String> models) {
  private static final Grant ALL = new Grant(true, Set.of());

  /**
   * Validates the fields.
   *
   * @param everyModel true when every model is allowed
   * @param models the allowed canonical names or aliases when {@code everyModel} is false
   * @throws NullPointerException if models is null
   */
  public Grant {
    models = Set.copyOf(Objects.requireNonNull(models, "models"));
  }

  /**
   * Returns a grant of every model.
   *
   * @return the grant
   */
  public static Grant all() {
    return ALL;
  }

  /**
   * Returns a grant of only the named models.
   *
   * @param models canonical names or aliases
   * @return the grant
   */
  public static Grant only(String... models) {
    return new Grant(false, Set.of(models));
  }

  /**
   * Returns whether this grant allows a model, by canonical name or one of its aliases.
   *
   * @param canonical the canonical name
   * @param aliases the model's aliases
   * @return true if allowed
   */
  public boolean allows(String canonical, Set<String> aliases) {
    if (everyModel || models.contains(canonical)) {
      return true;
    }
    for (String alias : aliases) {
      if (models.contains(alias)) {
        return true;
      }
    }
    return false;
  }
}
