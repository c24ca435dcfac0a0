package io.pointsman.jmh.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The attribution block rendered from a harness run that measured it, and left out when not. */
class HarnessAttributionTest {
  private static final String HEADER = "run,path,rate,size,rep,position,arm,ok,errors,p50_us,"
      + "p99_us,p999_us,max_us,ttft_p50_us,ttft_p99_us,ttft_p999_us,cpu_us_per_request,gc_ms,"
      + "gc_count,forces_per_request,force_p50_us,force_p99_us,settle_backlog";

  @TempDir
  Path results;

  private Path run(String name, boolean attributed) throws Exception {
    Path dir = results.resolve("harness").resolve(name);
    Files.createDirectories(dir.resolve("runs"));
    List<String> summary = new ArrayList<>();
    summary.add(attributed ? HEADER : HEADER.substring(0, HEADER.indexOf(",cpu_us")));
    String[][] rows = {
        {"1", "direct", "300.0", "", ""}, {"2", "gateway", "420.5", "0.610", "95.0"},
        {"3", "gateway", "410.0", "0.590", "90.0"}, {"4", "direct", "290.0", "", ""}};
    for (String[] r : rows) {
      String id = "bypass-500rps-150B-" + r[0] + "-" + r[1];
      String line = id + ",bypass,500,150," + (r[0].compareTo("3") < 0 ? 1 : 2) + "," + r[0]
          + "," + r[1] + ",100,0,900.0,2000.0,3000.0,4000.0,,,";
      summary.add(attributed ? line + "," + r[2] + ",3,1," + r[3] + ",80.0," + r[4] + ",0"
          : line);
      Files.write(dir.resolve("runs").resolve(id + ".csv"), List.of(
          "percentile,latency_us,count_total", "50.0,900.0,100", "99.0,2000.0,100",
          "100,4000.0,100"));
      if (r[1].equals("gateway")) {
        Files.write(dir.resolve("runs").resolve(id + "-stages.csv"), List.of(
            "stage,count,p50_us,p99_us,max_us,mean_us",
            "provider.attempt,100,600.0,1500.0,2000.0,700.0",
            "ledger.write,100,150.0,400.0,500.0,160.0"));
      }
    }
    Files.write(dir.resolve("summary.csv"), summary);
    return dir;
  }

  @Test
  void aRunWithAttributionShowsStagesAndTheCpuTheGatewayAdded() throws Exception {
    run("evidence", true);
    String page = HarnessReport.tables(results, new ArrayList<>());
    assertThat(page).contains("| provider.attempt | 100 | 600.0 | 1500.0 | 100 | 600.0 | 1500.0 |")
        .contains("| ledger.write | 100 | 150.0 | 400.0 |")
        // 420.5 − 300.0 and 410.0 − 290.0
        .contains("| 1 | 420.5 | 300.0 | +120.5 | 0.610 | 80.0 | 95.0 | 3 (1) | 0 |")
        .contains("| 2 | 410.0 | 290.0 | +120.0 | 0.590 | 80.0 | 90.0 | 3 (1) | 0 |");
  }

  @Test
  void aRunWithPausesShowsTheSafepointsAndCollections() throws Exception {
    withPauses(run("paused", true), "2,0.10,60.0,0.00,0.0", "7,5.25,3100.0,4.10,3050.0",
        "4,1.50,900.0,0.80,800.0", "1,0.05,50.0,0.00,0.0");
    String page = HarnessReport.tables(results, new ArrayList<>());
    assertThat(page).contains("| safepoints | at safepoints ms | longest µs | GC pause ms |")
        .contains("| 3 (1) | 0 | 7 | 5.25 | 3100.0 | 4.10 | 3050.0 |")
        .contains("| 3 (1) | 0 | 4 | 1.50 | 900.0 | 0.80 | 800.0 |");
  }

  @Test
  void jvmSettingsDirectoriesRenderAsOneComparisonTable() throws Exception {
    Path dir = run("jvm-parallel", true);
    String same = "3,1.25,700.0,0.90,650.0";
    withPauses(dir, same, same, same, same);
    // The direct runs' p99 differ from the gateway runs' so that the shifts are not zero.
    List<String> lines = Files.readAllLines(dir.resolve("summary.csv"));
    lines.set(1, lines.get(1).replace(",900.0,2000.0,", ",800.0,1500.0,"));
    Files.write(dir.resolve("summary.csv"), lines);
    String page = HarnessReport.tables(results, new ArrayList<>());
    assertThat(page).contains("### JVM settings compared")
        // p50 900 − 800 and 900 − 900, p99 2000 − 1500 and 2000 − 2000, CPU 420.5 − 300.0 ...
        .contains("| parallel | bypass · 500/s · 150 B | +100.0 / +0.0 | +500.0 / +0.0 |"
            + " +0.0 / +0.0 | 1.25 / 1.25 | 700.0 / 700.0 | 1 / 1 | 650.0 / 650.0 |"
            + " +120.5 / +120.0 |")
        .doesNotContain("### Overhead harness: `jvm-parallel`");
  }

  /** Adds the columns of runs since the mark linger and the pause recording, one row each. */
  private static void withPauses(Path dir, String... pauses) throws Exception {
    List<String> summary = Files.readAllLines(dir.resolve("summary.csv"));
    List<String> extended = new ArrayList<>();
    extended.add(summary.get(0) + ",mark_forces_per_request,jit_us_per_request,"
        + "postgres_us_per_request,safepoints,safepoint_ms,safepoint_max_us,gc_pause_ms,"
        + "gc_pause_max_us");
    for (int i = 1; i < summary.size(); i++) {
      extended.add(summary.get(i) + ",0.000,10.0,120.0," + pauses[i - 1]);
    }
    Files.write(dir.resolve("summary.csv"), extended);
  }

  @Test
  void aRunWithoutAttributionRendersAsBefore() throws Exception {
    run("old", false);
    String page = HarnessReport.tables(results, new ArrayList<>());
    assertThat(page).contains("Quantile shift").doesNotContain("Attribution");
  }
}
