package io.pointsman.examples.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The facade's load tables in docs/benchmarks.md are what the committed runs give: the page
 * holds the table {@link FacadeOverhead#table} renders from {@code bench/overhead/runs.csv},
 * and the one {@link SlowlorisLatency#table} renders from {@code bench/slowloris/runs.csv}.
 */
class BenchTablesInDocsTest {
  private static final Path PAGE = Path.of("../docs/benchmarks.md");

  @Test
  void theOverheadTableFollowsFromItsRuns() throws Exception {
    String table = FacadeOverhead.table(Files.readAllLines(Path.of("bench/overhead/runs.csv")));
    assertThat(Files.readString(PAGE)).contains(table.strip());
    assertThat(Files.readString(Path.of("bench/overhead/table.md")).strip())
        .isEqualTo(table.strip());
  }

  @Test
  void theSlowlorisTableFollowsFromItsRuns() throws Exception {
    String table = SlowlorisLatency.table(Files.readAllLines(
        Path.of("bench/slowloris/runs.csv")));
    assertThat(Files.readString(PAGE)).contains(table.strip());
  }
}
