package io.pointsman.journal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** {@link JournalIO} over {@link FileChannel} on the default file system. Stateless. */
final class FileJournalIO implements JournalIO {

  static final FileJournalIO INSTANCE = new FileJournalIO();

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
  public void createDirectories(Path directory) throws IOException {
    Files.createDirectories(directory);
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
