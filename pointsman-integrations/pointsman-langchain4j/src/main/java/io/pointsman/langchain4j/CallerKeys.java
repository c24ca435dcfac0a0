package io.pointsman.langchain4j;

import dev.langchain4j.model.chat.request.ChatRequest;
import java.util.Objects;

/**
 * Supplies the virtual key a call is made with: how the caller's identity reaches the gateway.
 * A key set on the request itself ({@link PointsmanChatRequestParameters#virtualKey()}) wins
 * over the supplier.
 *
 * <p>A single-tenant service uses {@link #fixed(String)}; a multi-tenant one reads the key from
 * where its request handling keeps the caller (a request-scoped bean, a security context, a
 * thread-local set by a filter). Implementations must be thread-safe: one model serves
 * concurrent calls.
 */
@FunctionalInterface
public interface CallerKeys {
  /**
   * Returns the virtual key for a call.
   *
   * @param request the LangChain4j request, after the model's default parameters were applied
   * @return the virtual key, never {@code null}
   */
  String keyFor(ChatRequest request);

  /**
   * Returns a supplier of one key for every call: a single-tenant service.
   *
   * @param virtualKey the key
   * @return the supplier
   * @throws NullPointerException if virtualKey is null
   */
  static CallerKeys fixed(String virtualKey) {
    Objects.requireNonNull(virtualKey, "virtualKey");
    return request -> virtualKey;
  }
}
