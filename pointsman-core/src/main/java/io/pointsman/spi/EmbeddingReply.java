package io.pointsman.spi;

import io.pointsman.model.EmbeddingResponse;
import io.pointsman.model.Usage;
import java.util.Objects;

/**
 * A provider's answer to one embeddings attempt. Immutable.
 *
 * @param response the response
 * @param usage the usage to settle on (input tokens only), or {@code null} when the provider
 *     reported none (the gateway then charges the input bound, estimated, never zero)
 * @param usageEstimated whether {@code usage} is an estimate rather than the provider's report
 */
public record EmbeddingReply(EmbeddingResponse response, Usage usage, boolean usageEstimated) {

  /**
   * Validates the fields.
   *
   * @param response the response
   * @param usage the usage, or {@code null} when the provider reported none
   * @param usageEstimated whether {@code usage} is an estimate
   * @throws NullPointerException if response is null
   */
  public EmbeddingReply {
    Objects.requireNonNull(response, "response");
  }

  /**
   * A reply whose usage is the provider's report inside the response: its
   * {@code prompt_tokens} as input and no output.
   *
   * @param response the response
   * @return the reply
   */
  public static EmbeddingReply of(EmbeddingResponse response) {
    Usage usage = response.usage() == null ? null : usageOf(response.usage());
    return new EmbeddingReply(response, usage, false);
  }

  private static Usage usageOf(io.pointsman.model.EmbeddingUsage u) {
    // A negative count cannot be a Usage: it is given as usage that cannot be true (more
    // cached than prompt tokens), which the gateway's validation boundary charges at the
    // attempt's worst case, estimated, and counts as invalid.
    if (u.promptTokens() < 0) {
      return new Usage(0, 0, 0, new io.pointsman.model.PromptTokensDetails(1L, null), null,
          null);
    }
    return Usage.of(u.promptTokens(), 0);
  }
}
