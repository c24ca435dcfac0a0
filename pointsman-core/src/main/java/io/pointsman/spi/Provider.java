package io.pointsman.spi;

import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Role;
import java.util.List;

/**
 * Stage 7, {@code provider.attempt}: sends one attempt to a provider. The gateway journals the
 * dispatch intent before calling either method. Implementations must be thread-safe, must
 * honour the call's deadline, and must report failures as {@link ProviderException} saying
 * whether the work may have been billed.
 */
public interface Provider {
  /**
   * Sends a request and waits for the complete response.
   *
   * @param call the attempt
   * @return the response and its usage
   * @throws ProviderException when the attempt failed
   */
  ProviderReply send(ProviderCall call);

  /**
   * Sends a request and streams the response. The default sends the request whole and emits it
   * as one chunk, for providers that cannot stream.
   *
   * @param call the attempt
   * @param sink receives the chunks; returns false when the caller cancelled
   * @return the assembled response and its usage; when cancelled, what was received so far
   *     with usage estimated
   * @throws ProviderException when the attempt failed
   */
  default ProviderReply stream(ProviderCall call, ChunkSink sink) {
    ProviderReply reply = send(call);
    ChatResponse r = reply.response();
    String text = r.firstText();
    String finish = r.choices().isEmpty() ? "stop" : r.choices().get(0).finishReason();
    sink.accept(new ChatChunk(r.id(), "chat.completion.chunk", r.created(), r.model(),
        List.of(new ChunkChoice(0, new ChunkDelta(Role.ASSISTANT, text, null, null), finish,
            null)), reply.usage(), null));
    return reply;
  }

  /**
   * Sends an embeddings request and waits for the response. The default refuses: the adapter
   * does not serve embeddings, nothing was sent and nothing is billed
   * ({@link ProviderException#unsupported}); the gateway may try another deployment.
   *
   * @param call the attempt
   * @return the response and its usage
   * @throws ProviderException when the attempt failed, or the adapter serves no embeddings
   */
  default EmbeddingReply embed(EmbeddingCall call) {
    throw ProviderException.unsupported("provider " + getClass().getSimpleName()
        + " does not serve embeddings; nothing was sent");
  }
}
