package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.ChatResult;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.Usage;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Puts a stream's cost where OpenAI clients keep it: into the final usage chunk (the one a
 * client asks for with {@code stream_options.include_usage}), as extra fields of its
 * {@code usage} object, {@code cost_micros} (integer micro-units), {@code cost} (the same as a
 * decimal, in the price's currency unit) and {@code cost_estimated}, and as a top-level
 * {@code x_pointsman} object with the same fields plus the call's {@code event_id} and
 * {@code cache} status. A stream's cost is known only once it ended and its record is durable,
 * so the server holds the usage chunk back until then. SDKs that keep unknown fields expose
 * them (the OpenAI Java SDK's {@code CompletionUsage._additionalProperties()}). Stateless.
 */
public final class StreamCost {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private StreamCost() {}

  /**
   * Returns whether a chunk is the usage chunk a stream ends with (no choices, a usage).
   *
   * @param chunk the chunk
   * @return true for the usage chunk
   */
  public static boolean isUsageChunk(ChatChunk chunk) {
    return chunk.choices().isEmpty() && chunk.usage() != null;
  }

  /**
   * Returns the usage chunk with the call's cost added.
   *
   * @param usageChunk the stream's usage chunk
   * @param result the stream's result, once its record is durable
   * @return the chunk to send
   */
  public static ChatChunk withCost(ChatChunk usageChunk, ChatResult result) {
    Usage u = usageChunk.usage();
    BigDecimal cost = BigDecimal.valueOf(result.costMicros(), 6);
    Map<String, JsonNode> usageExtra = new LinkedHashMap<>(u.extra());
    usageExtra.put("cost_micros", NODES.numberNode(result.costMicros()));
    usageExtra.put("cost", NODES.numberNode(cost));
    usageExtra.put("cost_estimated", NODES.booleanNode(result.costEstimated()));
    Usage priced = new Usage(u.promptTokens(), u.completionTokens(), u.totalTokens(),
        u.promptTokensDetails(), u.completionTokensDetails(), usageExtra);
    ObjectNode pointsman = NODES.objectNode().put("event_id", result.eventId())
        .put("cost_micros", result.costMicros()).put("cost", cost)
        .put("cost_estimated", result.costEstimated())
        .put("cache", result.cacheStatus().label());
    Map<String, JsonNode> extra = new LinkedHashMap<>(usageChunk.extra());
    extra.put("x_pointsman", pointsman);
    return new ChatChunk(usageChunk.id(), usageChunk.object(), usageChunk.created(),
        usageChunk.model(), usageChunk.choices(), priced, extra);
  }
}
