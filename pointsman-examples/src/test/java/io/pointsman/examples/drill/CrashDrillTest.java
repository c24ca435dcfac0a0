package io.pointsman.examples.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The short drill: two SIGKILL cycles of the facade as a child JVM on a PostgreSQL of the
 * drill's own; the second is an outage cycle (PostgreSQL stopped during load, the facade killed
 * and restarted while it is down, killed and restarted again, then PostgreSQL started again).
 * Every check must pass.
 */
class CrashDrillTest {
  @Test
  void shortDrillWithAnOutageCyclePassesEveryCheck() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    CrashDrill.Options options = new CrashDrill.Options(2, 12, 20, CrashDrill.Outages.ALTERNATE);
    assertThat(options.outageCycles()).isEqualTo(1);
    CrashDrill.Report report = CrashDrill.run(options, out);
    String printed = buffer.toString(StandardCharsets.UTF_8);
    System.out.println(printed);
    assertThat(report.failures()).as(printed).isEmpty();
    // 1 at start, 19 per cycle, 13 more per outage cycle, 4 at the end and 1 more with outages.
    assertThat(report.passed()).isEqualTo(1 + 2 * 19 + 13 + 4 + 1);
    assertThat(printed).contains("checks: " + report.passed() + " passed, 0 failed");
  }
}
