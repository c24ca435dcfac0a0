package io.pointsman.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * {@link JournalIO} over {@link FileChannel} on the default file system. Stateless but for the
 * process-wide table of the directory locks this process holds.
 */
final class FileJournalIO implements JournalIO {

  static final FileJournalIO INSTANCE = new FileJournalIO();

  /** The name of the lock file inside a journal directory. */
  static final String LOCK_FILE = "journal.lock";

  /**
   * Directories locked by this process (real path to holder). A second opener in this process
   * is refused from here, before it opens the lock file: on Linux, closing any descriptor of a
   * file releases every {@code fcntl} lock the process holds on it, so a second channel opened
   * and closed on the lock file would silently release the first opener's lock.
   */
  private static final ConcurrentHashMap<Path, String> HELD = new ConcurrentHashMap<>();

  private FileJournalIO() {}

  @Override
  public JournalFile create(Path file) throws IOException {
    return new ChannelFile(
        FileChannel.open(
            file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE));
  }

  @Override
  public JournalFile open(Path file) throws IOException {
    return new ChannelFile(
        FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE));
  }

  @Override
  public void rename(Path source, Path target) throws IOException {
    Files.move(source, target, StandardCopyOption.ATOMIC_MOVE);
  }

  @Override
  public void syncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  @Override
  public void delete(Path file) throws IOException {
    Files.delete(file);
  }

  @Override
  public List<Path> list(Path directory) throws IOException {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> entries = Files.list(directory)) {
      entries.filter(Files::isRegularFile).sorted().forEach(files::add);
    }
    return files;
  }

  @Override
  public List<Path> createDirectories(Path directory) throws IOException {
    List<Path> missing = new ArrayList<>();
    for (Path p = directory.toAbsolutePath(); p != null && !Files.isDirectory(p);
        p = p.getParent()) {
      missing.add(p);
    }
    Files.createDirectories(directory);
    Collections.reverse(missing);
    return missing;
  }

  @Override
  public DirectoryLock lock(Path directory, String holder) throws IOException {
    Path key = directory.toRealPath();
    String inProcess = HELD.putIfAbsent(key, holder);
    if (inProcess != null) {
      throw new JournalLockedException(directory, inProcess + ", in this process");
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(directory.resolve(LOCK_FILE), StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException e) {
        lock = null;
      }
      if (lock == null) {
        throw new JournalLockedException(directory, readHolder(channel));
      }
      // The content only describes the holder; the lock itself is the kernel's, released when
      // the process dies, so the file needs no force.
      channel.truncate(0);
      ByteBuffer bytes = ByteBuffer.wrap((holder + "\n").getBytes(StandardCharsets.UTF_8));
      long at = 0;
      while (bytes.hasRemaining()) {
        at += channel.write(bytes, at);
      }
      return new HeldLock(key, channel, lock);
    } catch (IOException | RuntimeException e) {
      HELD.remove(key, holder);
      if (channel != null) {
        try {
          channel.close();
        } catch (IOException suppressed) {
          e.addSuppressed(suppressed);
        }
      }
      throw e;
    }
  }

  private static String readHolder(FileChannel channel) throws IOException {
    ByteBuffer bytes = ByteBuffer.allocate(4096);
    while (bytes.hasRemaining() && channel.read(bytes, bytes.position()) > 0) {
      // keep reading
    }
    String text = new String(bytes.array(), 0, bytes.position(), StandardCharsets.UTF_8).trim();
    return text.isEmpty() ? "holder not yet written: it is starting" : text;
  }

  /** A lock held through an open channel on the lock file. */
  private static final class HeldLock implements DirectoryLock {
    private final Path key;
    private final FileChannel channel;
    private final FileLock lock;
    private boolean closed;

    HeldLock(Path key, FileChannel channel, FileLock lock) {
      this.key = key;
      this.channel = channel;
      this.lock = lock;
    }

    @Override
    public synchronized void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        lock.release();
      } finally {
        // The file stays: deleting it would let a later opener lock a new file while an older
        // one still holds the unlinked one.
        channel.close();
        HELD.remove(key);
      }
    }
  }

  private static final class ChannelFile implements JournalFile {
    private final FileChannel channel;

    ChannelFile(FileChannel channel) {
      this.channel = channel;
    }

    @Override
    public int read(long position, ByteBuffer destination) throws IOException {
      return channel.read(destination, position);
    }

    @Override
    public void write(long position, ByteBuffer source) throws IOException {
      long at = position;
      while (source.hasRemaining()) {
        at += channel.write(source, at);
      }
    }

    @Override
    public void force(boolean metadata) throws IOException {
      channel.force(metadata);
    }

    @Override
    public long size() throws IOException {
      return channel.size();
    }

    @Override
    public void close() throws IOException {
      channel.close();
    }
  }
}
