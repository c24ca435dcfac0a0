package io.pointsman.jmh.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BenchmarkPageTest {
  @Test
  void theBenchmarkPageFollowsFromTheCommittedResults() throws IOException {
    Path root = Path.of("..").toAbsolutePath().normalize();
    Path page = root.resolve("docs/benchmarks.md");
    String current = Files.readString(page, StandardCharsets.UTF_8);
    String regenerated = BenchmarkPage.regenerate(current, root.resolve("pointsman-jmh/results"));
    assertThat(current).as("docs/benchmarks.md is stale: run BenchmarkPage write")
        .isEqualTo(regenerated);
  }

  @Test
  void everyCommittedJmhRunAppearsInTheTables() {
    Path results = Path.of("..").toAbsolutePath().normalize().resolve("pointsman-jmh/results");
    String tables = BenchmarkPage.tables(results);
    assertThat(tables).contains("GatewayPipelineBenchmark.gatewayProviderNoStore");
  }
}
