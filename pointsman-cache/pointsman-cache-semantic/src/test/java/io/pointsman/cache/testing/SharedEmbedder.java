package io.pointsman.cache.testing;

import io.pointsman.cache.semantic.MiniLmEmbedder;
import java.time.Duration;

/** One embedder for the whole test JVM: loading the model takes a second. */
public final class SharedEmbedder {
  private static final MiniLmEmbedder INSTANCE = MiniLmEmbedder.builder().build();

  /**
   * A lookup deadline the embedder always meets, for tests of what a lookup finds: on a
   * loaded machine the 5 ms default would turn some of their lookups into skips.
   */
  public static final Duration PATIENT = Duration.ofMinutes(1);

  private SharedEmbedder() {}

  public static MiniLmEmbedder get() {
    return INSTANCE;
  }
}
