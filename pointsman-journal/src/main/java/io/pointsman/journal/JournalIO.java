package io.pointsman.journal;

import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;

/**
 * The file-system operations the journal performs, and nothing else. Every byte the journal
 * writes and every sync it relies on goes through this seam, so a test can substitute an
 * implementation that records which operations were made durable and simulate a power loss at
 * any point.
 *
 * <p>Implementations must be safe for use from several threads; the journal itself calls them
 * from its I/O thread and, while recovering, from the thread that opens it.
 *
 * <p>{@link #files()} returns the implementation over the default file system.
 */
public interface JournalIO {

  /**
   * Returns the implementation over the default file system: {@code FileChannel} based,
   * {@code force(false)} is {@code fdatasync}, a directory is synced by opening it for reading
   * and forcing it.
   *
   * @return the shared, thread-safe file-system implementation
   */
  static JournalIO files() {
    return FileJournalIO.INSTANCE;
  }

  /**
   * Creates a new, empty file and opens it for reading and writing. The new directory entry is
   * not durable until {@link #syncDirectory(Path)} is called on the parent.
   *
   * @param file the file to create
   * @return an open handle
   * @throws java.nio.file.FileAlreadyExistsException if the file exists
   * @throws IOException if the file cannot be created
   */
  JournalFile create(Path file) throws IOException;

  /**
   * Opens an existing file for reading and writing.
   *
   * @param file the file to open
   * @return an open handle
   * @throws java.nio.file.NoSuchFileException if the file does not exist
   * @throws IOException if the file cannot be opened
   */
  JournalFile open(Path file) throws IOException;

  /**
   * Atomically renames a file ({@code rename(2)}). The journal only renames onto names that do
   * not exist. Not durable until the parent directory is synced.
   *
   * @param source the existing file
   * @param target the new name, in the same directory
   * @throws IOException if the rename fails or cannot be done atomically
   */
  void rename(Path source, Path target) throws IOException;

  /**
   * Makes the directory's entries (creates, renames, deletes) durable.
   *
   * @param directory the directory to sync
   * @throws IOException if the sync fails; the journal treats this as fatal
   */
  void syncDirectory(Path directory) throws IOException;

  /**
   * Deletes a file. Not durable until the parent directory is synced.
   *
   * @param file the file to delete
   * @throws IOException if the file cannot be deleted
   */
  void delete(Path file) throws IOException;

  /**
   * Lists the regular files directly inside a directory.
   *
   * @param directory the directory to list
   * @return the files, sorted by name
   * @throws IOException if the directory cannot be read
   */
  List<Path> list(Path directory) throws IOException;

  /**
   * Creates a directory and any missing parents; does nothing if it exists. A new directory's
   * entry is not durable until its parent is synced with {@link #syncDirectory(Path)}, which is
   * why the directories created are returned.
   *
   * @param directory the directory to create
   * @return the directories this call created, outermost first; empty if it existed
   * @throws IOException if it cannot be created
   */
  List<Path> createDirectories(Path directory) throws IOException;

  /**
   * Takes the exclusive lock of a journal directory, held until the returned handle is closed.
   * It excludes every other holder: another process (through a lock on a file in the
   * directory, released by the operating system when the holder dies) and another opener in
   * the same process. The holder's description is kept where a refused opener can read it.
   *
   * @param directory the journal directory, which exists
   * @param holder who takes the lock (process id, host, start time), for the refusal message
   * @return the held lock
   * @throws JournalLockedException if someone else holds the lock
   * @throws IOException if the lock file cannot be created or locked
   */
  DirectoryLock lock(Path directory, String holder) throws IOException;

  /** A held directory lock; {@link #close()} releases it. */
  interface DirectoryLock extends Closeable {

    /**
     * Releases the lock. Idempotent.
     *
     * @throws IOException if releasing fails; the lock is released when the process ends
     */
    @Override
    void close() throws IOException;
  }

  /**
   * An open file. Positional reads and writes only; a handle has no file pointer. Handles are
   * used by one thread at a time.
   */
  interface JournalFile extends Closeable {

    /**
     * Reads bytes starting at a position into the buffer's remaining space.
     *
     * @param position the file offset to read from
     * @param destination the buffer to fill
     * @return the number of bytes read, or -1 at end of file
     * @throws IOException if the read fails
     */
    int read(long position, ByteBuffer destination) throws IOException;

    /**
     * Writes all remaining bytes of the buffer at a position. The bytes are not durable until
     * {@link #force(boolean)} returns.
     *
     * @param position the file offset to write at
     * @param source the bytes to write; fully consumed on return
     * @throws IOException if the write fails, for example when the device is full
     */
    void write(long position, ByteBuffer source) throws IOException;

    /**
     * Makes every write issued so far durable.
     *
     * @param metadata {@code false} for {@code fdatasync} semantics, {@code true} for
     *     {@code fsync}
     * @throws IOException if the sync fails; the written data must then be considered lost
     */
    void force(boolean metadata) throws IOException;

    /**
     * Returns the current size of the file.
     *
     * @return the size in bytes
     * @throws IOException if the size cannot be read
     */
    long size() throws IOException;

    /**
     * Closes the handle without syncing.
     *
     * @throws IOException if closing fails
     */
    @Override
    void close() throws IOException;
  }
}
