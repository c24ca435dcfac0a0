package io.pointsman.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.testing.FixtureProvider;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The documentation's Java snippets compile as printed; the durable one also runs. */
class DocSnippetsTest {
  @TempDir
  Path work;

  @Test
  void everyNamedSnippetCompilesAsPrinted() throws Exception {
    Map<String, DocSnippets.Snippet> all = DocSnippets.all();
    assertThat(all).containsKey("README.md#durable-gateway");
    for (DocSnippets.Snippet s : all.values()) {
      assertThat(DocSnippets.compile(s, work.resolve(s.name()))).isNotNull();
    }
  }

  @Test
  void theDurableGatewayIsFifteenLinesAndRunsRecoversAndRestartsAsPrinted() throws Exception {
    DocSnippets.Snippet snippet = DocSnippets.all().get("README.md#durable-gateway");
    assertThat(snippet.lines()).isLessThanOrEqualTo(15);
    Method run = DocSnippets.compile(snippet, work.resolve("compiled"));

    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey("pm-doc-snippet-key", KeySpec.builder("k1").team("checkout").build());
    ModelCatalog catalog = ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
        .price(Price.of(150_000, 600_000)).build()).build();
    FixtureProvider openAi = FixtureProvider.builder().build();
    for (int i = 0; i < 4; i++) {
      openAi.failNext(ProviderException.answered(503, "overloaded", null));
    }
    FixtureProvider azure = FixtureProvider.builder().build();
    Path journal = work.resolve("journal");
    ChatRequest question = ChatRequest.builder().model("gpt-4o-mini")
        .addMessage(Message.user("What does a pointsman do?")).temperature(0.0).build();

    try (TestDatabase db = TestDatabases.server().createDatabase()) {
      try (Gateway gateway = (Gateway) run.invoke(null, keys, catalog, openAi, azure, journal,
          db.jdbcUrl())) {
        assertThat(gateway.durability().confirmed()).isTrue();
        ChatResult first = gateway.chat(question, CallOptions.of("pm-doc-snippet-key"));
        assertThat(first.deploymentId()).as("openai fails, azure answers")
            .isEqualTo("azure-mini");
        ChatResult again = gateway.chat(question, CallOptions.of("pm-doc-snippet-key"));
        assertThat(again.outcome()).isEqualTo(UsageOutcome.CACHE_HIT);
      }
      // Closing drained the journal into PostgreSQL.
      assertThat(rows(db)).isEqualTo(2);

      // A restart on the same journal and database: recovery finds nothing to replay, the
      // budgets are rebuilt from the ledger, and the gateway serves.
      try (Gateway restarted = (Gateway) run.invoke(null, keys, catalog, openAi, azure,
          journal, db.jdbcUrl())) {
        assertThat(restarted.durability().confirmed()).isTrue();
        assertThat(restarted.durability().recoveredInterrupted()).isZero();
        restarted.chat(question.withModel("gpt-4o-mini").toBuilder().seed(7L).build(),
            CallOptions.of("pm-doc-snippet-key"));
      }
      assertThat(rows(db)).isEqualTo(3);
    }
  }

  private static int rows(TestDatabase db) throws Exception {
    try (Connection c = db.connect(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pointsman.ledger_entries")) {
      rs.next();
      return rs.getInt(1);
    }
  }
}
