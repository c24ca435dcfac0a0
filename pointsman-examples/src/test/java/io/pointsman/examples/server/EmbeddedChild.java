package io.pointsman.examples.server;

import io.pointsman.examples.LedgerDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;

/**
 * A child process for {@link EmbeddedDataDirectoryTest}: opens the embedded ledger database on
 * a data directory, writes one row, says {@code READY} and waits to be killed.
 */
public final class EmbeddedChild {
  private EmbeddedChild() {}

  /**
   * Runs the child.
   *
   * @param args the data directory
   * @throws Exception on any failure
   */
  public static void main(String[] args) throws Exception {
    LedgerDatabase db = LedgerDatabase.open(null, Path.of(args[0]));
    try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement()) {
      s.execute("CREATE TABLE kept (x int)");
      s.execute("INSERT INTO kept VALUES (1)");
    }
    System.out.println("READY");
    System.out.flush();
    // Blocks until the test kills this process.
    System.in.read();
  }
}
