package io.pointsman.springai;

import java.util.Objects;
import org.springframework.ai.chat.prompt.Prompt;

/**
 * Names the virtual key a call is made with: the caller's identity as the gateway sees it
 * (budgets, limits and the ledger's {@code key_id} follow it).
 *
 * <p>A key set on the prompt's {@link PointsmanChatOptions#getVirtualKey() options} wins over
 * this supplier; the supplier is asked only when the options name none. A single-tenant service
 * uses {@link #fixed(String)}; a multi-tenant one reads the key from the current request or
 * security principal (the Spring Boot starter provides one for Spring Security).
 */
@FunctionalInterface
public interface CallerKeys {

  /**
   * Returns the virtual key for the call about to be made.
   *
   * @param prompt the prompt of the call (its options already merged with the model's defaults)
   * @return the virtual key, never {@code null}
   */
  String keyFor(Prompt prompt);

  /**
   * Returns a supplier that names the same key for every call.
   *
   * @param key the virtual key
   * @return the supplier
   * @throws NullPointerException if {@code key} is null
   */
  static CallerKeys fixed(String key) {
    Objects.requireNonNull(key, "key");
    return prompt -> key;
  }
}
