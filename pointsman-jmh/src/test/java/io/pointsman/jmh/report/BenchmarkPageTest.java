package io.pointsman.jmh.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class BenchmarkPageTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void theBenchmarkPageAndItsChartsFollowFromTheCommittedResults() throws IOException {
    assertThat(BenchmarkPage.stale(ROOT))
        .as("stale: regenerate with BenchmarkPage write").isEmpty();
  }

  @Test
  void everyCommittedJmhRunAppearsInTheTables() {
    String tables = BenchmarkPage.tables(ROOT.resolve("pointsman-jmh/results"));
    assertThat(tables).contains("GatewayPipelineBenchmark.gatewayProviderNoStore");
  }
}
