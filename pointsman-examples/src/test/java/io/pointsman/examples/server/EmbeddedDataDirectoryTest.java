package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.examples.LedgerDatabase;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's embedded PostgreSQL keeps its data directory, and a process killed with
 * SIGKILL (whose PostgreSQL outlives it) does not lock the next start out of it.
 */
class EmbeddedDataDirectoryTest {
  @TempDir
  Path dir;

  @Test
  void aKilledOwnersServerIsStoppedAndItsDataAreOpenedAgain() throws Exception {
    Path data = dir.resolve("postgres");
    Process child = new ProcessBuilder(Paths.get(System.getProperty("java.home"), "bin", "java")
        .toString(), "-cp", System.getProperty("java.class.path"),
        EmbeddedChild.class.getName(), data.toString()).redirectErrorStream(true).start();
    try {
      CompletableFuture<Boolean> ready = CompletableFuture.supplyAsync(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            if (line.equals("READY")) {
              return true;
            }
          }
          return false;
        } catch (java.io.IOException e) {
          return false;
        }
      });
      assertThat(ready.get(180, TimeUnit.SECONDS)).as("the child started its server").isTrue();
    } finally {
      child.destroyForcibly().waitFor();
    }
    long orphan = Long.parseLong(Files.readAllLines(data.resolve("postmaster.pid")).get(0)
        .trim());
    assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive))
        .as("PostgreSQL outlives its killed owner").hasValue(true);
    try (LedgerDatabase db = LedgerDatabase.open(null, data)) {
      assertThat(ProcessHandle.of(orphan).map(ProcessHandle::isAlive).orElse(false)).isFalse();
      try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT count(*) FROM kept")) {
        rs.next();
        assertThat(rs.getLong(1)).as("the data directory was kept").isEqualTo(1);
      }
    } finally {
      ProcessHandle.of(orphan).ifPresent(ProcessHandle::destroy);
    }
    assertThat(List.of(data.toFile().list())).contains("PG_VERSION");
  }
}
