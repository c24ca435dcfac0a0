package io.pointsman.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * README's durable gateway, as a new user takes it: a project outside this build that imports
 * the BOM, depends on the artifacts the chain names, pastes README's chain as printed and runs
 * it against PostgreSQL, the file journal, the exact and semantic cache and two deployments.
 */
class DurableProjectTest {
  private static final String MARKER = "<!-- snippet: durable-gateway;";
  private static final List<String> ARTIFACTS = List.of("pointsman-core",
      "pointsman-core-testing", "pointsman-journal", "pointsman-ledger", "pointsman-cache",
      "pointsman-cache-semantic", "pointsman-router");

  @Test
  void aProjectOutsideTheBuildRunsReadmesFifteenLineDurableGateway() throws Exception {
    String readme = Files.readString(Path.of(ConsumerProject.property("consumer.readme")),
        StandardCharsets.UTF_8);
    int marker = readme.indexOf(MARKER);
    assertThat(marker).as("README names its durable gateway snippet").isNotNegative();
    int start = readme.indexOf("```java\n", marker) + "```java\n".length();
    String chain = readme.substring(start, readme.indexOf("\n```", start) + 1);
    assertThat(chain.lines().filter(l -> !l.isBlank()).count())
        .as("the durable wiring is at most 15 lines").isLessThanOrEqualTo(15);

    Path journal = Path.of(ConsumerProject.property("consumer.work"), "durable-journal");
    if (Files.exists(journal)) {
      try (var files = Files.walk(journal)) {
        for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.delete(f);
        }
      }
    }
    try (TestDatabase db = TestDatabases.server().createDatabase()) {
      ConsumerProject project = ConsumerProject.named("durable-readme");
      StringBuilder imports = new StringBuilder();
      for (String a : ARTIFACTS) {
        project.dependsOn(a);
        for (String pkg : ReadmeUsageProjectTest.packages(a)) {
          imports.append("import ").append(pkg).append(".*;\n");
        }
      }
      project.source("app/Main.java", """
          package app;

          %s
          public final class Main {
            public static void main(String[] args) throws Exception {
              InMemoryKeyStore keys = new InMemoryKeyStore(io.pointsman.Clock.system());
              keys.addKey("pm-consumer-durable-key",
                  KeySpec.builder("k1").team("checkout").build());
              ModelCatalog catalog = ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
                  .price(Price.of(150_000, 600_000)).build()).build();
              FixtureProvider openAi = FixtureProvider.builder().build();
              for (int i = 0; i < 4; i++) {
                openAi.failNext(ProviderException.answered(503, "overloaded", null));
              }
              Provider azure = FixtureProvider.builder().build();
              java.nio.file.Path journalDirectory = java.nio.file.Path.of(%s);
              String jdbcUrl = %s;
          %s
              ChatRequest question = ChatRequest.builder().model("gpt-4o-mini")
                  .addMessage(Message.user("What does a pointsman do?")).temperature(0.0).build();
              ChatResult first = gateway.chat(question, CallOptions.of("pm-consumer-durable-key"));
              ChatResult again = gateway.chat(question, CallOptions.of("pm-consumer-durable-key"));
              System.out.println("first=" + first.deploymentId() + " cost=" + first.costMicros()
                  + " again=" + again.cacheStatus().label());
              gateway.close();
              System.out.println("durable gateway ran");
              System.exit(0);
            }
          }
          """.formatted(imports, quote(journal.toString()), quote(db.jdbcUrl()), chain));

      ConsumerProject.Result result = project.run();

      assertThat(result.exitCode()).as(result.output()).isZero();
      assertThat(result.output()).contains("durable gateway ran")
          .as("openai fails over to azure, the repeat is a cache hit")
          .containsPattern("first=azure-mini cost=[1-9][0-9]* again=HIT\\(");
      try (Connection c = db.connect(); Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT count(*) FROM pointsman.ledger_entries")) {
        rs.next();
        assertThat(rs.getInt(1)).as("closing drained both calls into PostgreSQL").isEqualTo(2);
      }
    }
  }

  private static String quote(String s) {
    return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
