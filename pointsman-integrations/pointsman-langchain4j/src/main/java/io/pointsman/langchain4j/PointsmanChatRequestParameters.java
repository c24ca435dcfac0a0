package io.pointsman.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import io.pointsman.CacheControl;
import java.util.Objects;

/**
 * LangChain4j request parameters with what a Pointsman call adds: the virtual key of this one
 * call, which wins over the model's {@link CallerKeys}, and the call's cache control. Set as a
 * model's default parameters, they apply to every call; set on a request, to that one.
 * Immutable.
 *
 * <pre>{@code
 * ChatRequest request = ChatRequest.builder()
 *     .messages(UserMessage.from("Hello"))
 *     .parameters(PointsmanChatRequestParameters.builder().virtualKey(tenantKey).build())
 *     .build();
 * }</pre>
 */
public class PointsmanChatRequestParameters extends DefaultChatRequestParameters {
  private final String virtualKey;
  private final CacheControl cacheControl;

  /**
   * Creates the parameters from a builder.
   *
   * @param builder the builder
   */
  protected PointsmanChatRequestParameters(Builder builder) {
    super(builder);
    this.virtualKey = builder.virtualKey;
    this.cacheControl = builder.cacheControl;
  }

  /**
   * Returns a new builder.
   *
   * @return an empty builder
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Returns the virtual key of the call, if set.
   *
   * @return the key, or {@code null} for the model's {@link CallerKeys}
   */
  public String virtualKey() {
    return virtualKey;
  }

  /**
   * Returns the call's cache control, if set.
   *
   * @return the cache control, or {@code null} for the gateway's default
   */
  public CacheControl cacheControl() {
    return cacheControl;
  }

  /**
   * Returns these parameters with every value the other sets replacing this one's; the virtual
   * key and cache control are kept unless the other is a {@code PointsmanChatRequestParameters}
   * that sets them.
   *
   * @param that the parameters that win
   * @return the merged parameters
   */
  @Override
  public PointsmanChatRequestParameters overrideWith(ChatRequestParameters that) {
    return builder().overrideWith(this).overrideWith(that).build();
  }

  /**
   * Returns these parameters with every value this one leaves unset taken from the other.
   *
   * @param that the defaults
   * @return the merged parameters
   */
  @Override
  public PointsmanChatRequestParameters defaultedBy(ChatRequestParameters that) {
    return builder().overrideWith(that).overrideWith(this).build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PointsmanChatRequestParameters other && super.equals(o)
        && Objects.equals(virtualKey, other.virtualKey)
        && Objects.equals(cacheControl, other.cacheControl);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + Objects.hash(virtualKey, cacheControl);
  }

  @Override
  public String toString() {
    return "PointsmanChatRequestParameters{" + super.toString() + ", virtualKey="
        + (virtualKey == null ? "null" : "<redacted>") + ", cacheControl=" + cacheControl + "}";
  }

  /** A builder of {@link PointsmanChatRequestParameters}; not thread-safe. */
  public static class Builder extends DefaultChatRequestParameters.Builder<Builder> {
    private String virtualKey;
    private CacheControl cacheControl;

    /** Creates an empty builder. */
    public Builder() {}

    /**
     * Copies every value the parameters set, and their virtual key and cache control when they
     * set them.
     *
     * @param parameters the parameters, or {@code null} for none
     * @return this builder
     */
    @Override
    public Builder overrideWith(ChatRequestParameters parameters) {
      super.overrideWith(parameters);
      if (parameters instanceof PointsmanChatRequestParameters p) {
        if (p.virtualKey != null) {
          this.virtualKey = p.virtualKey;
        }
        if (p.cacheControl != null) {
          this.cacheControl = p.cacheControl;
        }
      }
      return this;
    }

    /**
     * Sets the virtual key of the call.
     *
     * @param value the key, or {@code null} for the model's {@link CallerKeys}
     * @return this builder
     */
    public Builder virtualKey(String value) {
      this.virtualKey = value;
      return this;
    }

    /**
     * Sets the call's cache control (for example {@link CacheControl#NO_STORE}).
     *
     * @param value the cache control, or {@code null} for the gateway's default
     * @return this builder
     */
    public Builder cacheControl(CacheControl value) {
      this.cacheControl = value;
      return this;
    }

    /**
     * Builds the parameters.
     *
     * @return the parameters
     */
    @Override
    public PointsmanChatRequestParameters build() {
      return new PointsmanChatRequestParameters(this);
    }
  }
}
