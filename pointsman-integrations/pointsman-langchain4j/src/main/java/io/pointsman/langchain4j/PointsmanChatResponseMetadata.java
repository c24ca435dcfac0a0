package io.pointsman.langchain4j;

import dev.langchain4j.model.chat.response.ChatResponseMetadata;
import io.pointsman.ChatResult;
import java.util.Objects;

/**
 * LangChain4j response metadata with what the gateway did for the call: its event id (the key
 * of its usage record in the ledger), the amount charged, the cache outcome and the deployment
 * that answered, all from the gateway's {@link ChatResult}. Immutable.
 *
 * <pre>{@code
 * ChatResponse response = model.chat(request);
 * if (response.metadata() instanceof PointsmanChatResponseMetadata m) {
 *   log.info("call {} cost {} micro-units", m.eventId(), m.costMicros());
 * }
 * }</pre>
 */
public class PointsmanChatResponseMetadata extends ChatResponseMetadata {
  private final ChatResult result;

  /**
   * Creates the metadata from a builder.
   *
   * @param builder the builder
   * @throws NullPointerException if the builder has no result
   */
  protected PointsmanChatResponseMetadata(Builder builder) {
    super(builder);
    this.result = Objects.requireNonNull(builder.result, "result");
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
   * Returns the gateway's result of the call.
   *
   * @return the result
   */
  public ChatResult result() {
    return result;
  }

  /**
   * Returns the call's event id, the key of its usage record.
   *
   * @return the event id
   */
  public String eventId() {
    return result.eventId();
  }

  /**
   * Returns the amount charged for the call.
   *
   * @return micro-units
   */
  public long costMicros() {
    return result.costMicros();
  }

  @Override
  public Builder toBuilder() {
    Builder b = new Builder();
    super.toBuilder(b);
    return b.result(result);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PointsmanChatResponseMetadata other && super.equals(o)
        && result.equals(other.result);
  }

  @Override
  public int hashCode() {
    return 31 * super.hashCode() + result.hashCode();
  }

  @Override
  public String toString() {
    return "PointsmanChatResponseMetadata{" + super.toString() + ", eventId=" + result.eventId()
        + ", costMicros=" + result.costMicros() + ", cache=" + result.cacheStatus().label()
        + ", deployment=" + result.deploymentId() + "}";
  }

  /** A builder of {@link PointsmanChatResponseMetadata}; not thread-safe. */
  public static class Builder extends ChatResponseMetadata.Builder<Builder> {
    private ChatResult result;

    /** Creates an empty builder. */
    public Builder() {}

    /**
     * Sets the gateway's result.
     *
     * @param value the result
     * @return this builder
     */
    public Builder result(ChatResult value) {
      this.result = value;
      return this;
    }

    /**
     * Builds the metadata.
     *
     * @return the metadata
     * @throws NullPointerException if no result was set
     */
    @Override
    public PointsmanChatResponseMetadata build() {
      return new PointsmanChatResponseMetadata(this);
    }
  }
}
