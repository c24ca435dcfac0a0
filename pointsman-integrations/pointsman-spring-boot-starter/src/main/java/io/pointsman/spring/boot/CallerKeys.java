package io.pointsman.spring.boot;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.util.Objects;

/**
 * Which virtual key the current call is made with. The auto-configuration registers one bean
 * of this type (unless the application defines its own): with Spring Security on the class
 * path, the key of the current {@code Authentication} ({@link SecurityCallerKeys}), falling
 * back to {@code pointsman.default-key}; without it, the fixed {@code pointsman.default-key}
 * of a single-tenant service. The Spring AI chat model asks it once per call, on the calling
 * thread, unless the call's options carry a key of their own, which wins.
 */
@FunctionalInterface
public interface CallerKeys {
  /**
   * Returns the virtual key of the call being made on this thread.
   *
   * @return the key, never null
   * @throws PointsmanException with status 401 when no key can be found for the call
   */
  String keyFor();

  /**
   * Returns the same key for every call (a single-tenant service).
   *
   * @param key the virtual key
   * @return the keys
   * @throws NullPointerException if key is null
   */
  static CallerKeys fixed(String key) {
    Objects.requireNonNull(key, "key");
    return new CallerKeys() {
      @Override
      public String keyFor() {
        return key;
      }

      @Override
      public String toString() {
        return "CallerKeys.fixed(***)";
      }
    };
  }

  /**
   * Returns keys that refuse every call: no default key is configured and nothing else names
   * one. A call must then bring its own key in its options.
   *
   * @return the keys
   */
  static CallerKeys none() {
    return () -> {
      throw missing("no virtual key for this call: set pointsman.default-key, pass one in the"
          + " call's options, or define a CallerKeys bean");
    };
  }

  /**
   * Returns the 401 denial thrown when a call has no key.
   *
   * @param message what is missing
   * @return the exception
   */
  static PointsmanException missing(String message) {
    return PointsmanException.denied(Status.UNAUTHORIZED, Stages.IDENTITY_AUTH, null, message);
  }
}
