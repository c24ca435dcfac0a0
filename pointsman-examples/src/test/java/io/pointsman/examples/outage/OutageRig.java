package io.pointsman.examples.outage;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.ledger.EmbeddedPostgres;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Accounting;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A gateway on the journal and PostgreSQL settlement, with a PostgreSQL server of its own that
 * the test stops and starts again on the same data directory.
 */
final class OutageRig implements AutoCloseable {
  static final String KEY = "pm-outage-test-key";

  private final Path pgData;
  private EmbeddedPostgres pg;
  final SwitchableDataSource dataSource;
  final PostgresSettlement settlement;

  OutageRig(Path pgData) {
    this.pgData = pgData;
    this.pg = EmbeddedPostgres.start(pgData);
    this.dataSource = new SwitchableDataSource(pg.dataSource());
    this.settlement = PostgresSettlement.create(dataSource);
  }

  void stopDatabase() {
    pg.close();
  }

  void startDatabase() {
    pg = EmbeddedPostgres.start(pgData);
    dataSource.switchTo(pg.dataSource());
  }

  /** Counts what the gateway handed to accounting and accounting accepted. */
  static final class Counting implements Accounting {
    final Accounting delegate;
    final AtomicLong recorded = new AtomicLong();

    Counting(Accounting delegate) {
      this.delegate = delegate;
    }

    @Override
    public void dispatched(DispatchIntent intent) {
      delegate.dispatched(intent);
    }

    @Override
    public void settled(UsageRecord record) {
      delegate.settled(record);
      recorded.incrementAndGet();
    }
  }

  static Gateway gateway(Accounting accounting, FixtureProvider fixture) {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t").org("o").build());
    return Gateway.builder()
        .authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m")
            .price(Price.of(1_000_000, 2_000_000)).build()).build())
        // No response cache: every call reaches the provider, and the heap measured is the
        // accounting's.
        .cache(ResponseCache.none())
        .accounting(accounting)
        .provider("fixture", fixture)
        .deployment(Deployment.of("d", "fixture", "m"))
        .build();
  }

  static ChatRequest request(long i) {
    return ChatRequest.builder().model("m").addMessage(Message.user("question " + i))
        .temperature(0.0).build();
  }

  /** Rows in the ledger: all, distinct event ids, answered with 200, dispatched. */
  long[] ledgerRows() throws SQLException {
    try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT count(*), count(DISTINCT event_id),"
            + " count(*) FILTER (WHERE http_status = 200), count(*) FILTER (WHERE attempts > 0)"
            + " FROM pointsman.ledger_entries")) {
      rs.next();
      return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)};
    }
  }

  /** Heap in use right after a full collection, in bytes. */
  static long usedHeapAfterGc() {
    for (int i = 0; i < 2; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  @Override
  public void close() {
    pg.close();
  }
}
