package io.pointsman.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ExamplesTest {

  @Test
  void quickStartShowsEveryPathAndATimingTableNamingTheNineStages() {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    int expected = QuickStart.run(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String out = buffer.toString(StandardCharsets.UTF_8);

    assertThat(expected).as("every path went as intended").isEqualTo(5);
    assertThat(out).contains("MISS(exact)", "HIT(exact)", "BYPASS(no-cache)",
        "402", "budget:team:trial", "400", "guardrail.input / bounds.message_bytes");
    for (String stage : io.pointsman.Stages.ORDER) {
      assertThat(out).contains("  " + stage + " ");
    }
    // The ledger rows were read back from PostgreSQL after the journal drained into it.
    assertThat(out).contains("Ledger rows in PostgreSQL");
    assertThat(out.lines().filter(l -> l.matches("\\s+key-(app|trial)\\s+\\w+\\s+SETTLED.*")))
        .hasSize(5);
    assertThat(out).containsPattern("key-app\\s+CACHE_HIT\\s+SETTLED\\s+200");
    assertThat(out).containsPattern("key-trial\\s+REJECTED\\s+SETTLED\\s+402");
  }

  @Test
  void customStageExampleDeniesThroughThePolicyStageAndStillAccounts() {
    ByteArrayOutputStream buffer = new ByteArrayOutputStream();
    var audit = CustomStageExample.run(new PrintStream(buffer, true, StandardCharsets.UTF_8));
    String out = buffer.toString(StandardCharsets.UTF_8);

    assertThat(audit).singleElement().asString()
        .contains("req-1 key-1 policy=allowed messages=2");
    assertThat(out).contains("denied call:  403 by stage 'policy' rule 'team-frozen'");
    assertThat(out).contains("req-1 key-1 SUCCESS 200", "req-2 key-2 REJECTED 403");
  }
}
