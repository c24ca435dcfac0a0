package io.pointsman;

import io.pointsman.model.ChatChunk;

/**
 * Receives the chunks of a streamed call, in order, on the calling thread. The stream's final
 * event is {@link Gateway#stream}'s return, which happens only after the call's usage record
 * is durable.
 */
@FunctionalInterface
public interface StreamObserver {
  /**
   * Receives a chunk. Throwing cancels the stream and fails the call (it is still accounted).
   *
   * @param chunk the chunk
   */
  void onChunk(ChatChunk chunk);

  /**
   * Called once before the first chunk with the stream's control. The default ignores it.
   *
   * @param control lets the observer cancel
   */
  default void onStart(StreamControl control) {}
}
