package io.pointsman.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * An in-memory {@link JournalIO} that models what survives a power loss.
 *
 * <p>Per file it keeps the content as of the last force plus the writes issued since; per
 * directory, the entries as of the last directory sync plus the creates, renames and deletes
 * issued since. {@link #crashImage(Random)} produces one possible disk after a power loss: a random
 * subset of the unsynced writes applied (in issue order or shuffled), the last applied one torn
 * at a 512-byte sector boundary, some sectors of unsynced writes filled with garbage, and a random
 * subset of the unsynced directory operations kept. Forced bytes and synced entries always
 * survive. A directory's own entry is durable once its parent was synced after it was created;
 * until then a crash may take the directory, with everything in it, away.
 *
 * <p>Every mutating operation (create, write, force, rename, directory sync, delete, mkdir) is a
 * numbered step; {@link #crashAfter(long)} makes every operation after step {@code k} fail as if
 * the machine had stopped. Fault switches inject ENOSPC, EIO on force, a force or directory sync
 * that silently does nothing, and a hook that runs before each force (to make it slow). Directory
 * locks are kept in memory, per instance (an instance is one machine; a crash image is a
 * reboot, with no lock held).
 *
 * <p>Thread-safe: every method synchronizes on this object, except that the force hook runs
 * outside the lock.
 */
final class CrashSimulatingJournalIO implements JournalIO {
  static final int SECTOR = 512;

  /** A file's content: durable as of the last force, current as seen by reads. */
  private static final class Inode {
    byte[] durable = new byte[0];
    byte[] current = new byte[0];
    final List<PendingWrite> pending = new ArrayList<>();
  }

  private static final class PendingWrite {
    final long position;
    final byte[] bytes;

    PendingWrite(long position, byte[] bytes) {
      this.position = position;
      this.bytes = bytes;
    }
  }

  private enum DirectoryOperation {
    CREATE,
    RENAME,
    DELETE
  }

  private static final class PendingEntry {
    final DirectoryOperation operation;
    final String name;
    final String target;
    final Inode inode;

    PendingEntry(DirectoryOperation operation, String name, String target, Inode inode) {
      this.operation = operation;
      this.name = name;
      this.target = target;
      this.inode = inode;
    }
  }

  private static final class Directory {
    Map<String, Inode> durable = new TreeMap<>();
    Map<String, Inode> current = new TreeMap<>();
    final List<PendingEntry> pending = new ArrayList<>();
    /** Whether this directory's entry in its parent is durable (the parent was synced). */
    boolean entryDurable;
  }

  /** A disk after a crash, all of it durable: directory, then file name, then bytes. */
  static final class Image {
    final Map<Path, Map<String, byte[]>> files;

    Image(Map<Path, Map<String, byte[]>> files) {
      this.files = files;
    }

    byte[] file(Path path) {
      return files.get(path.getParent()).get(path.getFileName().toString()).clone();
    }

    Image with(Path path, byte[] content) {
      Map<Path, Map<String, byte[]>> copy = new HashMap<>();
      files.forEach((dir, names) -> copy.put(dir, new TreeMap<>(names)));
      copy.get(path.getParent()).put(path.getFileName().toString(), content.clone());
      return new Image(copy);
    }

    List<String> names(Path directory) {
      return new ArrayList<>(files.getOrDefault(directory, Map.of()).keySet());
    }

    boolean sameAs(Image other) {
      if (!files.keySet().equals(other.files.keySet())) {
        return false;
      }
      for (Map.Entry<Path, Map<String, byte[]>> dir : files.entrySet()) {
        Map<String, byte[]> theirs = other.files.get(dir.getKey());
        if (!dir.getValue().keySet().equals(theirs.keySet())) {
          return false;
        }
        for (Map.Entry<String, byte[]> file : dir.getValue().entrySet()) {
          if (!Arrays.equals(file.getValue(), theirs.get(file.getKey()))) {
            return false;
          }
        }
      }
      return true;
    }
  }

  private final Map<Path, Directory> directories = new HashMap<>();
  private final Map<Path, String> locks = new HashMap<>();
  private long operations;
  private long crashAfter = Long.MAX_VALUE;
  private boolean crashed;
  private final List<String> trace = new ArrayList<>();
  private boolean tracing;

  private boolean ignoreForce;
  private boolean ignoreDirectorySync;
  private Predicate<Path> noSpaceOnWrite = path -> false;
  private Predicate<Path> ioErrorOnForce = path -> false;
  private Runnable beforeForce;
  private Predicate<Path> holdForceOf = path -> false;
  private Runnable holdForce;
  private int forceCalls;

  CrashSimulatingJournalIO() {}

  /** Returns a simulated disk holding exactly the image, all of it durable. */
  static CrashSimulatingJournalIO fromImage(Image image) {
    CrashSimulatingJournalIO io = new CrashSimulatingJournalIO();
    image.files.forEach((dir, names) -> {
      Directory directory = new Directory();
      directory.entryDurable = true;
      names.forEach((name, bytes) -> {
        Inode inode = new Inode();
        inode.durable = bytes.clone();
        inode.current = bytes.clone();
        directory.durable.put(name, inode);
      });
      directory.current = new TreeMap<>(directory.durable);
      io.directories.put(dir, directory);
    });
    for (Path dir : new ArrayList<>(io.directories.keySet())) {
      for (Path p = dir.getParent(); p != null; p = p.getParent()) {
        io.directories.computeIfAbsent(p, k -> new Directory()).entryDurable = true;
      }
    }
    return io;
  }

  // ---- fault switches ----

  synchronized CrashSimulatingJournalIO crashAfter(long step) {
    this.crashAfter = step;
    return this;
  }

  synchronized void crashNow() {
    crashed = true;
  }

  synchronized boolean crashed() {
    return crashed;
  }

  synchronized long operations() {
    return operations;
  }

  synchronized CrashSimulatingJournalIO ignoreForce(boolean ignore) {
    this.ignoreForce = ignore;
    return this;
  }

  synchronized CrashSimulatingJournalIO ignoreDirectorySync(boolean ignore) {
    this.ignoreDirectorySync = ignore;
    return this;
  }

  synchronized CrashSimulatingJournalIO noSpaceOnWrite(Predicate<Path> files) {
    this.noSpaceOnWrite = files;
    return this;
  }

  synchronized CrashSimulatingJournalIO ioErrorOnForce(Predicate<Path> files) {
    this.ioErrorOnForce = files;
    return this;
  }

  synchronized CrashSimulatingJournalIO beforeForce(Runnable hook) {
    this.beforeForce = hook;
    return this;
  }

  /** Runs {@code hook} before every force of a file whose current name matches. */
  synchronized CrashSimulatingJournalIO beforeForceOf(Predicate<Path> files, Runnable hook) {
    this.holdForceOf = files;
    this.holdForce = hook;
    return this;
  }

  synchronized int forceCalls() {
    return forceCalls;
  }

  synchronized CrashSimulatingJournalIO tracing() {
    this.tracing = true;
    return this;
  }

  synchronized List<String> trace() {
    return new ArrayList<>(trace);
  }

  // ---- JournalIO ----

  private void step(String what) throws IOException {
    if (crashed) {
      throw new IOException("simulated power loss: the machine is down (" + what + ")");
    }
    if (operations >= crashAfter) {
      crashed = true;
      throw new IOException("simulated power loss before step " + operations + " (" + what + ")");
    }
    operations++;
    if (tracing) {
      trace.add(operations + ": " + what);
    }
  }

  private void checkUp() throws IOException {
    if (crashed) {
      throw new IOException("simulated power loss: the machine is down");
    }
  }

  private Directory directory(Path dir) throws IOException {
    Directory directory = directories.get(dir);
    if (directory == null) {
      throw new NoSuchFileException(dir.toString());
    }
    return directory;
  }

  @Override
  public synchronized JournalFile create(Path file) throws IOException {
    step("create " + file.getFileName());
    Directory dir = directory(file.getParent());
    String name = file.getFileName().toString();
    if (dir.current.containsKey(name)) {
      throw new FileAlreadyExistsException(file.toString());
    }
    Inode inode = new Inode();
    dir.current.put(name, inode);
    dir.pending.add(new PendingEntry(DirectoryOperation.CREATE, name, null, inode));
    return new SimulatedFile(file, inode);
  }

  @Override
  public synchronized JournalFile open(Path file) throws IOException {
    checkUp();
    Inode inode = directory(file.getParent()).current.get(file.getFileName().toString());
    if (inode == null) {
      throw new NoSuchFileException(file.toString());
    }
    return new SimulatedFile(file, inode);
  }

  @Override
  public synchronized void rename(Path source, Path target) throws IOException {
    step("rename " + source.getFileName() + " -> " + target.getFileName());
    Directory dir = directory(source.getParent());
    Inode inode = dir.current.remove(source.getFileName().toString());
    if (inode == null) {
      throw new NoSuchFileException(source.toString());
    }
    dir.current.put(target.getFileName().toString(), inode);
    dir.pending.add(new PendingEntry(DirectoryOperation.RENAME, source.getFileName().toString(),
        target.getFileName().toString(), inode));
  }

  @Override
  public synchronized void syncDirectory(Path directory) throws IOException {
    step("sync directory " + directory);
    Directory dir = directory(directory);
    if (!ignoreDirectorySync) {
      dir.durable = new TreeMap<>(dir.current);
      dir.pending.clear();
      for (Map.Entry<Path, Directory> child : directories.entrySet()) {
        if (directory.equals(child.getKey().getParent())) {
          child.getValue().entryDurable = true;
        }
      }
    }
  }

  @Override
  public synchronized void delete(Path file) throws IOException {
    step("delete " + file.getFileName());
    Directory dir = directory(file.getParent());
    String name = file.getFileName().toString();
    Inode inode = dir.current.remove(name);
    if (inode == null) {
      throw new NoSuchFileException(file.toString());
    }
    dir.pending.add(new PendingEntry(DirectoryOperation.DELETE, name, null, inode));
  }

  @Override
  public synchronized List<Path> list(Path directory) throws IOException {
    checkUp();
    List<Path> files = new ArrayList<>();
    for (String name : directory(directory).current.keySet()) {
      files.add(directory.resolve(name));
    }
    return files;
  }

  @Override
  public synchronized List<Path> createDirectories(Path directory) throws IOException {
    step("mkdir " + directory);
    List<Path> chain = new ArrayList<>();
    for (Path p = directory; p != null; p = p.getParent()) {
      chain.add(0, p);
    }
    List<Path> created = new ArrayList<>();
    for (Path p : chain) {
      if (!directories.containsKey(p)) {
        Directory made = new Directory();
        // The root has no parent entry to lose.
        made.entryDurable = p.getParent() == null;
        directories.put(p, made);
        if (p.getParent() != null) {
          created.add(p);
        }
      }
    }
    return created;
  }

  @Override
  public synchronized DirectoryLock lock(Path directory, String holder) throws IOException {
    checkUp();
    directory(directory);
    String previous = locks.putIfAbsent(directory, holder);
    if (previous != null) {
      throw new JournalLockedException(directory, previous + ", in this process");
    }
    if (tracing) {
      trace.add("lock " + directory);
    }
    return () -> {
      synchronized (CrashSimulatingJournalIO.this) {
        locks.remove(directory, holder);
      }
    };
  }

  /** Returns whether a directory exists and its entry is durable up to the root. */
  synchronized boolean directoryDurable(Path directory) {
    for (Path p = directory; p != null; p = p.getParent()) {
      Directory d = directories.get(p);
      if (d == null || !d.entryDurable) {
        return false;
      }
    }
    return true;
  }

  private final class SimulatedFile implements JournalFile {
    private final Path path;
    private final Inode inode;
    private boolean closed;

    SimulatedFile(Path path, Inode inode) {
      this.path = path;
      this.inode = inode;
    }

    @Override
    public int read(long position, ByteBuffer destination) throws IOException {
      synchronized (CrashSimulatingJournalIO.this) {
        checkOpen();
        checkUp();
        if (position >= inode.current.length) {
          return -1;
        }
        int n = (int) Math.min(destination.remaining(), inode.current.length - position);
        destination.put(inode.current, (int) position, n);
        return n;
      }
    }

    @Override
    public void write(long position, ByteBuffer source) throws IOException {
      synchronized (CrashSimulatingJournalIO.this) {
        checkOpen();
        Path now = path();
        step("write " + now.getFileName() + " [" + position + ", "
            + (position + source.remaining()) + ")");
        if (noSpaceOnWrite.test(now)) {
          throw new IOException("No space left on device");
        }
        byte[] bytes = new byte[source.remaining()];
        source.get(bytes);
        int end = Math.toIntExact(position + bytes.length);
        if (end > inode.current.length) {
          inode.current = Arrays.copyOf(inode.current, end);
        }
        System.arraycopy(bytes, 0, inode.current, (int) position, bytes.length);
        inode.pending.add(new PendingWrite(position, bytes));
      }
    }

    @Override
    public void force(boolean metadata) throws IOException {
      Runnable hook;
      Runnable held = null;
      synchronized (CrashSimulatingJournalIO.this) {
        hook = beforeForce;
        if (holdForce != null && holdForceOf.test(path())) {
          held = holdForce;
        }
      }
      if (hook != null) {
        hook.run();
      }
      if (held != null) {
        held.run();
      }
      synchronized (CrashSimulatingJournalIO.this) {
        checkOpen();
        Path now = path();
        step("force " + now.getFileName());
        forceCalls++;
        if (ioErrorOnForce.test(now)) {
          throw new IOException("Input/output error");
        }
        if (!ignoreForce) {
          inode.durable = inode.current.clone();
          inode.pending.clear();
        }
      }
    }

    @Override
    public long size() throws IOException {
      synchronized (CrashSimulatingJournalIO.this) {
        checkOpen();
        checkUp();
        return inode.current.length;
      }
    }

    @Override
    public void close() {
      synchronized (CrashSimulatingJournalIO.this) {
        closed = true;
      }
    }

    /** The file's name now, which a rename may have changed since it was opened. */
    private Path path() {
      Directory dir = directories.get(path.getParent());
      if (dir != null) {
        for (Map.Entry<String, Inode> entry : dir.current.entrySet()) {
          if (entry.getValue() == inode) {
            return path.resolveSibling(entry.getKey());
          }
        }
      }
      return path;
    }

    private void checkOpen() throws IOException {
      if (closed) {
        throw new IOException("file handle is closed: " + path);
      }
    }
  }

  // ---- crash images ----

  /** Returns what is durable now: only forced bytes and synced entries. */
  synchronized Image durableImage() {
    return image(null, 0);
  }

  /**
   * Returns one possible disk after a power loss now. The variant is drawn from {@code random}:
   * drop every unsynced operation, apply all of them, or apply a random subset in issue order or
   * shuffled, tearing the last applied write and spraying garbage over unsynced sectors.
   */
  synchronized Image crashImage(Random random) {
    return image(random, random.nextInt(4));
  }

  synchronized Image crashImage(Random random, int variant) {
    return image(random, variant);
  }

  private Image image(Random random, int variant) {
    Map<Path, Map<String, byte[]>> files = new HashMap<>();
    IdentityHashMap<Inode, byte[]> contents = new IdentityHashMap<>();
    // Directories whose entry was never synced into their parent survive only by chance.
    Map<Path, Boolean> survives = new TreeMap<>();
    for (Map.Entry<Path, Directory> entry : new TreeMap<>(directories).entrySet()) {
      Path path = entry.getKey();
      boolean kept = entry.getValue().entryDurable
          || (random != null && (variant == 1 || (variant >= 2 && random.nextBoolean())));
      Path parent = path.getParent();
      survives.put(path, kept && (parent == null || survives.getOrDefault(parent, true)));
    }
    for (Map.Entry<Path, Directory> entry : directories.entrySet()) {
      if (!survives.get(entry.getKey())) {
        continue;
      }
      Directory dir = entry.getValue();
      Map<String, Inode> names = new TreeMap<>(dir.durable);
      for (PendingEntry op : choose(dir.pending, random, variant)) {
        switch (op.operation) {
          case CREATE:
            names.putIfAbsent(op.name, op.inode);
            break;
          case RENAME:
            if (names.get(op.name) == op.inode) {
              names.remove(op.name);
              names.put(op.target, op.inode);
            }
            break;
          case DELETE:
            if (names.get(op.name) == op.inode) {
              names.remove(op.name);
            }
            break;
          default:
            throw new AssertionError(op.operation);
        }
      }
      Map<String, byte[]> result = new TreeMap<>();
      names.forEach((name, inode) ->
          result.put(name, contents.computeIfAbsent(inode, i -> content(i, random, variant))));
      files.put(entry.getKey(), result);
    }
    return new Image(files);
  }

  private static <T> List<T> choose(List<T> pending, Random random, int variant) {
    if (random == null || variant == 0 || pending.isEmpty()) {
      return List.of();
    }
    if (variant == 1) {
      return pending;
    }
    List<T> chosen = new ArrayList<>();
    double keep = random.nextDouble();
    for (T item : pending) {
      if (random.nextDouble() < keep) {
        chosen.add(item);
      }
    }
    if (variant == 3) {
      Collections.shuffle(chosen, random);
    }
    return chosen;
  }

  private static byte[] content(Inode inode, Random random, int variant) {
    byte[] bytes = inode.durable.clone();
    List<PendingWrite> applied = choose(inode.pending, random, variant);
    for (int i = 0; i < applied.size(); i++) {
      PendingWrite write = applied.get(i);
      int start = (int) write.position;
      int end = start + write.bytes.length;
      if (i == applied.size() - 1 && variant >= 2) {
        List<Integer> cuts = new ArrayList<>();
        cuts.add(start);
        for (int b = (start / SECTOR + 1) * SECTOR; b < end; b += SECTOR) {
          cuts.add(b);
        }
        cuts.add(end);
        end = cuts.get(random.nextInt(cuts.size()));
      }
      bytes = place(bytes, start, write.bytes, end - start);
    }
    if (variant >= 2) {
      for (PendingWrite write : inode.pending) {
        if (write.bytes.length == 0 || random.nextInt(5) != 0) {
          continue;
        }
        int start = (int) write.position;
        int end = start + write.bytes.length;
        int sector = (start / SECTOR) + random.nextInt((end - 1) / SECTOR - start / SECTOR + 1);
        int from = Math.max(start, sector * SECTOR);
        int to = Math.min(end, (sector + 1) * SECTOR);
        byte[] garbage = new byte[to - from];
        random.nextBytes(garbage);
        bytes = place(bytes, from, garbage, garbage.length);
      }
    }
    return bytes;
  }

  private static byte[] place(byte[] bytes, int at, byte[] source, int length) {
    if (length <= 0) {
      return bytes;
    }
    byte[] target = at + length > bytes.length ? Arrays.copyOf(bytes, at + length) : bytes;
    System.arraycopy(source, 0, target, at, length);
    return target;
  }
}
