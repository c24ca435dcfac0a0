package io.pointsman.spi;

import io.pointsman.model.ChatChunk;

/**
 * Receives the chunks of a streamed attempt, in order, on the provider's calling thread.
 */
@FunctionalInterface
public interface ChunkSink {
  /**
   * Accepts a chunk.
   *
   * @param chunk the chunk
   * @return false when the caller cancelled: the provider must stop and return what it has
   */
  boolean accept(ChatChunk chunk);
}
