package io.pointsman.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Temporary directories of the examples (journals, drill state). */
public final class TempDirectories {
  private TempDirectories() {}

  /**
   * Creates a temporary directory.
   *
   * @param prefix the name's prefix
   * @return the directory
   * @throws UncheckedIOException if it cannot be created
   */
  public static Path create(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
  }

  /**
   * Deletes a directory and everything in it, as far as it can: a temporary directory left
   * behind is harmless.
   *
   * @param dir the directory
   */
  public static void delete(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // Left behind; harmless.
    }
  }
}
