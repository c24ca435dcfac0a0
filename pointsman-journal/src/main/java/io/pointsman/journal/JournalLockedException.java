package io.pointsman.journal;

import java.nio.file.Path;

/**
 * Thrown by {@link SegmentedJournal#open} when another journal, in this process or another one,
 * holds the directory: two writers would interleave records in one segment and corrupt it.
 * Nothing in the directory was read or changed. Immutable.
 */
public final class JournalLockedException extends JournalException {
  private static final long serialVersionUID = 1L;

  /** The locked journal directory, as a string (a Path is not serializable). */
  private final String directory;
  /** What the holder wrote about itself. */
  private final String holder;

  /**
   * Creates the exception.
   *
   * @param directory the journal directory
   * @param holder what the holder wrote about itself (process id, host, start), or a note that
   *     it could not be read
   */
  public JournalLockedException(Path directory, String holder) {
    super("the journal directory " + directory + " is locked by another journal (" + holder
        + "): only one process may open it at a time; stop the other one or use another"
        + " directory");
    this.directory = directory.toString();
    this.holder = holder;
  }

  /**
   * Returns the locked directory.
   *
   * @return the directory, as given to the opener
   */
  public Path directory() {
    return Path.of(directory);
  }

  /**
   * Returns what the holder wrote about itself.
   *
   * @return for example {@code pid=4242 host=app-1 started=2026-01-01T00:00:00Z}
   */
  public String holder() {
    return holder;
  }
}
