package io.pointsman.examples.spring;

import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.SystemMessage;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.EmbeddedPostgres;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.langchain4j.PointsmanChatModel;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A LangChain4j {@code AiServices} assistant on the Pointsman LangChain4j {@code ChatModel},
 * over a durable gateway on embedded defaults: the file journal in a temporary directory, an
 * embedded PostgreSQL started from a Maven artifact, the in-process fixture provider (no API
 * key). It asks two questions, closes the gateway (which drains the journal into PostgreSQL)
 * and prints the ledger rows read back.
 *
 * <p>Run: {@code mvn -q -B -pl pointsman-examples/pointsman-examples-spring -am package -DskipTests -Dmaven.javadoc.skip exec:java
 * -Dexec.mainClass=io.pointsman.examples.spring.AssistantMain}.
 */
public final class AssistantMain {
  private AssistantMain() {}

  /** The assistant LangChain4j implements. */
  interface Assistant {
    @SystemMessage("You answer in one sentence.")
    String ask(String question);
  }

  /**
   * Runs the assistant.
   *
   * @param args none
   * @throws Exception when the embedded database or the journal cannot be set up
   */
  public static void main(String[] args) throws Exception {
    String key = "pm-example-assistant-key";
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(key, KeySpec.builder("assistant").team("examples").build());
    Path journal = Files.createTempDirectory("pointsman-assistant-journal-");
    try (EmbeddedPostgres postgres = EmbeddedPostgres.start()) {
      Gateway gateway = Gateway.builder()
          .authenticator(keys)
          .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini").aliases("mini")
              .price(Price.of(150_000, 600_000)).build()).build())
          .limiter(CounterLimiter.builder(new InProcessCounterStore())
              .budget(Scope.team("examples"), 5_000_000).build())
          .provider("fixture", FixtureProvider.builder().build())
          .deployment(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini"))
          .journal(JournalAccounting.at(journal))
          .ledger(PostgresLedger.of(postgres.dataSource()))
          .build();
      Assistant assistant = AiServices.builder(Assistant.class)
          .chatModel(PointsmanChatModel.builder(gateway).virtualKey(key)
              .defaultModel("gpt-4o-mini").build())
          .build();
      System.out.println("answer: " + assistant.ask("What does a pointsman do?"));
      System.out.println("answer: " + assistant.ask("Where does a pointsman work?"));
      gateway.close();
      try (Connection c = postgres.dataSource().getConnection();
          Statement st = c.createStatement();
          ResultSet rs = st.executeQuery("SELECT model, cost_micros, outcome FROM"
              + " pointsman.ledger_entries WHERE key_id = 'assistant' ORDER BY started_at")) {
        while (rs.next()) {
          System.out.println("ledger: model=" + rs.getString(1) + " cost_micros="
              + rs.getLong(2) + " outcome=" + rs.getString(3));
        }
      }
    }
  }
}
