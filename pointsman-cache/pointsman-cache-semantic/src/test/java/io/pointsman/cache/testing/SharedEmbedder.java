package io.pointsman.cache.testing;

import io.pointsman.cache.semantic.MiniLmEmbedder;

/** One embedder for the whole test JVM: loading the model takes a second. */
public final class SharedEmbedder {
  private static final MiniLmEmbedder INSTANCE = MiniLmEmbedder.builder().build();

  private SharedEmbedder() {}

  public static MiniLmEmbedder get() {
    return INSTANCE;
  }
}
