package io.pointsman.provider;

import java.util.Objects;

/**
 * Where a provider adapter gets its API key: a reference resolved at each send, so that a
 * rotated key takes effect without rebuilding the adapter. Implementations must be
 * thread-safe and fast, and must never put the key into {@code toString()}.
 *
 * <pre>{@code
 * Credential key = Credential.fromEnvironment("OPENAI_API_KEY");
 * }</pre>
 */
@FunctionalInterface
public interface Credential {
  /**
   * Returns the current secret.
   *
   * @return the API key
   * @throws IllegalStateException when the secret is not available (the attempt is then not
   *     sent)
   */
  String secret();

  /**
   * Returns a credential holding a fixed key.
   *
   * @param apiKey the key
   * @return the credential; its {@code toString()} does not reveal the key
   * @throws NullPointerException if apiKey is null
   */
  static Credential of(String apiKey) {
    Objects.requireNonNull(apiKey, "apiKey");
    return new Credential() {
      @Override
      public String secret() {
        return apiKey;
      }

      @Override
      public String toString() {
        return "Credential(fixed)";
      }
    };
  }

  /**
   * Returns a credential read from an environment variable at each send.
   *
   * @param variable the variable's name
   * @return the credential; {@link #secret()} throws {@link IllegalStateException} while the
   *     variable is unset or blank
   * @throws NullPointerException if variable is null
   */
  static Credential fromEnvironment(String variable) {
    Objects.requireNonNull(variable, "variable");
    return new Credential() {
      @Override
      public String secret() {
        String value = System.getenv(variable);
        if (value == null || value.isBlank()) {
          throw new IllegalStateException("environment variable " + variable + " is not set");
        }
        return value;
      }

      @Override
      public String toString() {
        return "Credential(env " + variable + ")";
      }
    };
  }
}
