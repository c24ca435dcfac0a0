package io.pointsman;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a caller says about one call besides the request itself: the virtual key, a request id,
 * cache control, a timeout, tags and typed extras. Immutable and thread-safe.
 *
 * <pre>{@code
 * CallOptions options = CallOptions.builder(virtualKey)
 *     .requestId("req-42")
 *     .cacheControl(CacheControl.NO_CACHE)
 *     .timeout(Duration.ofSeconds(30))
 *     .tag("checkout")
 *     .build();
 * }</pre>
 */
public final class CallOptions {
  private final String virtualKey;
  private final String requestId;
  private final CacheControl cacheControl;
  private final Duration timeout;
  private final Set<String> tags;
  private final Map<Key<?>, Object> extras;

  private CallOptions(Builder b) {
    this.virtualKey = b.virtualKey;
    this.requestId = b.requestId;
    this.cacheControl = b.cacheControl;
    this.timeout = b.timeout;
    this.tags = Collections.unmodifiableSet(new LinkedHashSet<>(b.tags));
    IdentityHashMap<Key<?>, Object> copy = new IdentityHashMap<>(b.extras);
    this.extras = Collections.unmodifiableMap(copy);
  }

  /**
   * Returns options holding only a virtual key.
   *
   * @param virtualKey the caller's virtual key, as presented
   * @return the options
   * @throws NullPointerException if virtualKey is null
   */
  public static CallOptions of(String virtualKey) {
    return builder(virtualKey).build();
  }

  /**
   * Returns a builder.
   *
   * @param virtualKey the caller's virtual key, as presented (checked by the authenticator, not
   *     here)
   * @return the builder
   * @throws NullPointerException if virtualKey is null
   */
  public static Builder builder(String virtualKey) {
    return new Builder(Objects.requireNonNull(virtualKey, "virtualKey"));
  }

  /**
   * Returns the virtual key as presented. Never log it.
   *
   * @return the key
   */
  public String virtualKey() {
    return virtualKey;
  }

  /**
   * Returns the caller's request id, if set; the gateway generates one otherwise.
   *
   * @return the request id, or {@code null}
   */
  public String requestId() {
    return requestId;
  }

  /**
   * Returns the cache control.
   *
   * @return the cache control, {@link CacheControl#DEFAULT} unless set
   */
  public CacheControl cacheControl() {
    return cacheControl;
  }

  /**
   * Returns the call's timeout, measured from entry into the gateway.
   *
   * @return the timeout, or {@code null} for none
   */
  public Duration timeout() {
    return timeout;
  }

  /**
   * Returns the call's tags, added to the key's tags for matching and reporting.
   *
   * @return an immutable set
   */
  public Set<String> tags() {
    return tags;
  }

  /**
   * Returns a typed extra.
   *
   * @param <T> the value type
   * @param key the key
   * @return the value, or {@code null} when absent
   */
  public <T> T get(Key<T> key) {
    Object value = extras.get(key);
    return value == null ? null : key.cast(value);
  }

  @Override
  public String toString() {
    return "CallOptions{requestId=" + requestId + ", cacheControl=" + cacheControl + ", timeout="
        + timeout + ", tags=" + tags + ", virtualKey=<redacted>}";
  }

  /** A builder of {@link CallOptions}; not thread-safe. */
  public static final class Builder {
    private final String virtualKey;
    private String requestId;
    private CacheControl cacheControl = CacheControl.DEFAULT;
    private Duration timeout;
    private final Set<String> tags = new LinkedHashSet<>();
    private final Map<Key<?>, Object> extras = new IdentityHashMap<>();

    private Builder(String virtualKey) {
      this.virtualKey = virtualKey;
    }

    /**
     * Sets the request id.
     *
     * @param value the id, 1 to 128 printable ASCII characters
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is empty, too long or not printable ASCII
     */
    public Builder requestId(String value) {
      Objects.requireNonNull(value, "requestId");
      if (value.isEmpty() || value.length() > 128 || !printableAscii(value)) {
        throw new IllegalArgumentException(
            "requestId must be 1 to 128 printable ASCII characters");
      }
      this.requestId = value;
      return this;
    }

    /**
     * Sets the cache control.
     *
     * @param value the cache control
     * @return this builder
     * @throws NullPointerException if value is null
     */
    public Builder cacheControl(CacheControl value) {
      this.cacheControl = Objects.requireNonNull(value, "cacheControl");
      return this;
    }

    /**
     * Sets the timeout.
     *
     * @param value a positive duration
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is zero or negative
     */
    public Builder timeout(Duration value) {
      Objects.requireNonNull(value, "timeout");
      if (value.isZero() || value.isNegative()) {
        throw new IllegalArgumentException("timeout must be positive: " + value);
      }
      this.timeout = value;
      return this;
    }

    /**
     * Adds a tag.
     *
     * @param value 1 to 64 printable ASCII characters
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is empty, too long or not printable ASCII
     */
    public Builder tag(String value) {
      Objects.requireNonNull(value, "tag");
      if (value.isEmpty() || value.length() > 64 || !printableAscii(value)) {
        throw new IllegalArgumentException("tag must be 1 to 64 printable ASCII characters");
      }
      tags.add(value);
      return this;
    }

    /**
     * Sets a typed extra.
     *
     * @param <T> the value type
     * @param key the key
     * @param value the value
     * @return this builder
     * @throws NullPointerException if key or value is null
     * @throws ClassCastException if value is not of the key's type
     */
    public <T> Builder with(Key<T> key, T value) {
      Objects.requireNonNull(key, "key");
      extras.put(key, key.cast(Objects.requireNonNull(value, "value")));
      return this;
    }

    /**
     * Builds the options.
     *
     * @return the options
     */
    public CallOptions build() {
      return new CallOptions(this);
    }

    private static boolean printableAscii(String s) {
      for (int i = 0; i < s.length(); i++) {
        char c = s.charAt(i);
        if (c < 0x21 || c > 0x7e) {
          return false;
        }
      }
      return true;
    }
  }
}
