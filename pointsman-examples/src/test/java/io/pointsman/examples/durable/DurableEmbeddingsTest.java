package io.pointsman.examples.durable;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.EmbeddingResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.LedgerSchema;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.ProviderException;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Embeddings calls through a durable gateway (the file journal over the PostgreSQL ledger):
 * each call's dispatch intent and usage record go through the journal, and its ledger row says
 * what it was charged.
 */
class DurableEmbeddingsTest {
  static final String KEY = "pm-durable-embed-0001";
  static final Price PRICE = Price.of(130_000, 0);

  @TempDir
  Path dir;

  @Test
  void everyEmbeddingsCallIsALedgerRowWithItsCharge() throws Exception {
    try (TestDatabase db = TestDatabases.create()) {
      LedgerSchema.migrate(db.dataSource());
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      keys.addKey(KEY, KeySpec.builder("k-embed").team("search").org("acme").build());
      ModelCatalog catalog = ModelCatalog.builder()
          .model(ModelSpec.builder("text-embedding-3-large").contextWindow(8_191)
              .maxOutputTokens(1).capabilities(ModelSpec.EMBEDDINGS).price(PRICE).build())
          .model(ModelSpec.builder("chat").contextWindow(8_192).maxOutputTokens(100)
              .price(Price.of(1_000_000, 2_000_000)).build())
          .build();
      FixtureProvider fixture = FixtureProvider.builder().build();
      String ok;
      String hit;
      String unknown;
      String refused;
      long okTokens;
      try (Gateway gateway = Gateway.builder().authenticator(keys).models(catalog)
          .provider("fixture", fixture).maxAttempts(1)
          .deployment(Deployment.of("embed-large", "fixture", "text-embedding-3-large"))
          .deployment(Deployment.of("chat", "fixture", "chat"))
          .journal(JournalAccounting.at(dir.resolve("journal")))
          .ledger(PostgresLedger.of(db.dataSource())).build()) {
        EmbeddingRequest request = EmbeddingRequest.builder().model("text-embedding-3-large")
            .input("a durable text", "and a second one").build();
        okTokens = FixtureProvider.embeddingTokensFor(request);
        EmbeddingResult first = gateway.embed(request, CallOptions.of(KEY));
        ok = first.eventId();
        assertThat(first.costMicros()).isEqualTo(PRICE.cost(okTokens, 0, 0, 0, 0));
        hit = gateway.embed(request, CallOptions.of(KEY)).eventId();

        fixture.failNext(ProviderException.unknownOutcome("reset after the send", null));
        String text = "the outcome of this one is unknown";
        unknown = "req-unknown";
        fails(() -> gateway.embed(EmbeddingRequest.builder()
            .model("text-embedding-3-large").input(text).build(),
            CallOptions.builder(KEY).requestId(unknown).build()));
        refused = "req-refused";
        fails(() -> gateway.embed(EmbeddingRequest.builder().model("chat").input("x").build(),
            CallOptions.builder(KEY).requestId(refused).build()));
      }
      // Closing drained the journal into the ledger.
      Map<String, String> okRow = row(db, "event_id", ok);
      assertThat(okRow).containsEntry("model", "text-embedding-3-large")
          .containsEntry("outcome", "SUCCESS").containsEntry("status", "SETTLED")
          .containsEntry("prompt_tokens", Long.toString(okTokens))
          .containsEntry("completion_tokens", "0")
          .containsEntry("cost_micros", Long.toString(PRICE.cost(okTokens, 0, 0, 0, 0)))
          .containsEntry("cost_estimated", "f").containsEntry("attempts", "1")
          .containsEntry("deployment_id", "embed-large").containsEntry("cache_outcome", "MISS")
          .containsEntry("key_id", "k-embed").containsEntry("team_id", "search")
          .containsEntry("price_version", PRICE.version());

      assertThat(row(db, "event_id", hit)).containsEntry("outcome", "CACHE_HIT")
          .containsEntry("cost_micros", "0").containsEntry("attempts", "0")
          .containsEntry("cache_outcome", "HIT");

      String text = "the outcome of this one is unknown";
      assertThat(row(db, "request_id", unknown)).containsEntry("outcome", "UNKNOWN")
          .containsEntry("cost_micros", Long.toString(PRICE.worstCost(text.length(), 0)))
          .containsEntry("cost_estimated", "t").containsEntry("attempts", "1");

      assertThat(row(db, "request_id", refused)).containsEntry("outcome", "REJECTED")
          .containsEntry("http_status", "400").containsEntry("rule", "capability:embeddings")
          .containsEntry("cost_micros", "0").containsEntry("attempts", "0");
      assertThat(fixture.sends()).isEqualTo(2);
    }
  }

  private static void fails(Runnable call) {
    try {
      call.run();
    } catch (PointsmanException e) {
      return;
    }
    throw new AssertionError("the call did not fail");
  }

  private static Map<String, String> row(TestDatabase db, String column, String id)
      throws Exception {
    try (Connection c = db.connect(); PreparedStatement s = c.prepareStatement(
        "SELECT * FROM pointsman.ledger_entries WHERE " + column + " = ?")) {
      s.setString(1, id);
      try (ResultSet rs = s.executeQuery()) {
        assertThat(rs.next()).as("a ledger row with %s %s", column, id).isTrue();
        Map<String, String> out = new LinkedHashMap<>();
        for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
          out.put(rs.getMetaData().getColumnName(i), rs.getString(i));
        }
        assertThat(rs.next()).isFalse();
        return out;
      }
    }
  }
}
