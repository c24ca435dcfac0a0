package io.pointsman.examples.drill;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The short drill: two SIGKILL cycles of the facade as a child JVM, every check passing. */
class CrashDrillTest {
  @Test
  void shortDrillPassesEveryCheck() throws Exception {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    PrintStream out = new PrintStream(buffer, true, StandardCharsets.UTF_8);
    CrashDrill.Report report = CrashDrill.run(new CrashDrill.Options(2, 20, 24), out);
    String printed = buffer.toString(StandardCharsets.UTF_8);
    System.out.println(printed);
    assertThat(report.failures()).as(printed).isEmpty();
    // 1 at start, 17 per cycle, 4 at the end.
    assertThat(report.passed()).isEqualTo(1 + 2 * 17 + 4);
    assertThat(printed).contains("checks: " + report.passed() + " passed, 0 failed");
  }
}
