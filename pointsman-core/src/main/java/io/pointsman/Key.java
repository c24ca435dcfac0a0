package io.pointsman;

import java.util.Objects;

/**
 * A typed key for per-call extras carried by {@link CallOptions} and for attributes a custom
 * stage keeps on an exchange. Keys compare by identity: two keys with the same name are
 * different keys. Immutable and thread-safe.
 *
 * <pre>{@code
 * static final Key<String> TENANT_REGION = Key.of("tenant-region", String.class);
 * CallOptions options = CallOptions.builder("pm-…").with(TENANT_REGION, "eu").build();
 * }</pre>
 *
 * @param <T> the value type
 */
public final class Key<T> {
  private final String name;
  private final Class<T> type;

  private Key(String name, Class<T> type) {
    this.name = Objects.requireNonNull(name, "name");
    this.type = Objects.requireNonNull(type, "type");
  }

  /**
   * Creates a key.
   *
   * @param <T> the value type
   * @param name a name for diagnostics
   * @param type the value type, used to check values
   * @return a new key, distinct from every other key
   * @throws NullPointerException if name or type is null
   */
  public static <T> Key<T> of(String name, Class<T> type) {
    return new Key<>(name, type);
  }

  /**
   * Returns the name given at creation.
   *
   * @return the name
   */
  public String name() {
    return name;
  }

  /**
   * Checks and casts a value to this key's type.
   *
   * @param value the value
   * @return the value, typed
   * @throws ClassCastException if the value is not of this key's type
   */
  public T cast(Object value) {
    return type.cast(value);
  }

  @Override
  public String toString() {
    return "Key(" + name + ")";
  }
}
