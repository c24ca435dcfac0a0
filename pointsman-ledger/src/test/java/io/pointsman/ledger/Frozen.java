package io.pointsman.ledger;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Freezes a test's own embedded PostgreSQL: SIGSTOP to the postmaster and every process under
 * it (backends, background workers), so the server accepts TCP connections in the kernel but
 * never answers, as a hung host would. {@link #close()} sends SIGCONT.
 */
final class Frozen implements AutoCloseable {
  private final List<Long> pids;

  private Frozen(List<Long> pids) {
    this.pids = pids;
  }

  static Frozen freeze(EmbeddedPostgres pg) throws Exception {
    String dataDirectory;
    try (Connection c = pg.dataSource().getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SHOW data_directory")) {
      rs.next();
      dataDirectory = rs.getString(1);
    }
    long postmaster = Long.parseLong(
        Files.readAllLines(Path.of(dataDirectory, "postmaster.pid")).get(0).trim());
    // The postmaster first: once it is stopped it forks nothing more. Then every process
    // under it; one that exits meanwhile (the session that read the data directory) is
    // skipped.
    if (!signal("STOP", postmaster)) {
      throw new IllegalStateException("could not stop the postmaster " + postmaster);
    }
    List<Long> tree = new ArrayList<>();
    tree.add(postmaster);
    for (ProcessHandle p : ProcessHandle.of(postmaster).orElseThrow().descendants().toList()) {
      if (signal("STOP", p.pid())) {
        tree.add(p.pid());
      }
    }
    return new Frozen(tree);
  }

  private static boolean signal(String signal, long pid) throws IOException {
    Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    try {
      return p.waitFor() == 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while sending SIG" + signal, e);
    }
  }

  List<Long> pids() {
    return pids;
  }

  @Override
  public void close() throws IOException {
    for (long pid : pids) {
      signal("CONT", pid);
    }
  }
}
