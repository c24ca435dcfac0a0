package io.pointsman.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.DefaultChatRequestParameters;
import java.util.Objects;

/**
 * LangChain4j request parameters with what a Pointsman call adds: the virtual key of this one
 * call, which wins over the model's {@link CallerKeys}. Immutable.
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

  /**
   * Creates the parameters from a builder.
   *
   * @param builder the builder
   */
  protected PointsmanChatRequestParameters(Builder builder) {
    super(builder);
    this.virtualKey = builder.virtualKey;
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
   * Returns these parameters with every value the other sets replacing this one's; the virtual
   * key is kept unless the other is a {@code PointsmanChatRequestParameters} with a key.
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
        && Objects.equals(virtualKey, other.virtualKey);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + Objects.hashCode(virtualKey);
  }

  @Override
  public String toString() {
    return "PointsmanChatRequestParameters{" + super.toString() + ", virtualKey="
        + (virtualKey == null ? "null" : "<redacted>") + "}";
  }

  /** A builder of {@link PointsmanChatRequestParameters}; not thread-safe. */
  public static class Builder extends DefaultChatRequestParameters.Builder<Builder> {
    private String virtualKey;

    /** Creates an empty builder. */
    public Builder() {}

    /**
     * Copies every value the parameters set, and their virtual key when they have one.
     *
     * @param parameters the parameters, or {@code null} for none
     * @return this builder
     */
    @Override
    public Builder overrideWith(ChatRequestParameters parameters) {
      super.overrideWith(parameters);
      if (parameters instanceof PointsmanChatRequestParameters p && p.virtualKey != null) {
        this.virtualKey = p.virtualKey;
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
