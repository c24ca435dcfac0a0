package io.pointsman.spi;

import io.pointsman.model.ChatResponse;
import io.pointsman.model.Usage;
import java.util.Objects;

/**
 * A provider's answer to one attempt. Immutable.
 *
 * @param response the response (for a stream, the assembled response)
 * @param usage the usage to settle on, or {@code null} when the provider reported none (the
 *     gateway then charges an estimate flagged as such, never zero)
 * @param usageEstimated whether {@code usage} is an estimate rather than the provider's report
 */
public record ProviderReply(ChatResponse response, Usage usage, boolean usageEstimated) {

  /**
   * Validates the fields.
   *
   * @param response the response (for a stream, the assembled response)
   * @param usage the usage to settle on, or {@code null} when the provider reported none (the
   *     gateway then charges an estimate flagged as such, never zero)
   * @param usageEstimated whether {@code usage} is an estimate rather than the provider's report
   * @throws NullPointerException if response is null
   */
  public ProviderReply {
    Objects.requireNonNull(response, "response");
  }

  /**
   * A reply whose usage is the provider's report inside the response.
   *
   * @param response the response
   * @return the reply
   */
  public static ProviderReply of(ChatResponse response) {
    return new ProviderReply(response, response.usage(), false);
  }
}
