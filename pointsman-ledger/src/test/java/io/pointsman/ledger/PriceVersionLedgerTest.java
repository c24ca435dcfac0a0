package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.pointsman.catalog.Price;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Usage;
import io.pointsman.CacheOutcome;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Every ledger row keeps the price version it was charged at, and a re-rating query. */
class PriceVersionLedgerTest {
  private static final Price CHARGED = Price.builder().input(3_000_000).output(15_000_000)
      .cachedInput(300_000).cacheWrite(3_000_000).reasoning(15_000_000).version("table-v1")
      .build();
  private static final Instant T0 = Instant.parse("2026-11-01T00:00:00Z");

  private TestDatabase db;
  private DataSource ds;
  private PostgresSettlement ledger;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
    ledger = PostgresSettlement.create(ds);
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  private static Usage usage(long prompt, long cached, long write, long completion,
      long reasoning) {
    return new Usage(prompt, completion, prompt + completion,
        new PromptTokensDetails(cached, write, null),
        JsonNodeFactory.instance.objectNode().put("reasoning_tokens", reasoning), null);
  }

  private static UsageRecord record(String id, String model, Usage u, long cost,
      boolean estimated, String version, Instant at) {
    return UsageRecord.builder().eventId(id).requestId("r-" + id).keyId("k1").teamId("t1")
        .model(model).deploymentId("d").attempts(1)
        .outcome(estimated ? UsageOutcome.CANCELLED : UsageOutcome.SUCCESS).httpStatus(200)
        .usage(u).costMicros(cost).costEstimated(estimated).reservationId(id).heldMicros(cost)
        .cacheOutcome(CacheOutcome.MISS).startedAt(at).durationNanos(1).priceVersion(version)
        .build();
  }

  @Test
  void eachRowKeepsItsPriceVersionAndTokenClasses() throws Exception {
    Usage u = usage(1_000, 200, 300, 500, 400);
    long cost = CHARGED.cost(500, 200, 300, 100, 400);
    ledger.settle(List.of(record("e1", "m", u, cost, false, "table-v1", T0),
        record("e2", "m", Usage.of(10, 5), 1, false, null, T0)));
    try (Connection c = ds.getConnection();
        PreparedStatement ps = c.prepareStatement("SELECT event_id, price_version,"
            + " cache_write_tokens, reasoning_tokens, cached_tokens FROM pointsman.ledger_entries"
            + " ORDER BY event_id");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      assertThat(rs.getString(2)).isEqualTo("table-v1");
      assertThat(rs.getLong(3)).isEqualTo(300);
      assertThat(rs.getLong(4)).isEqualTo(400);
      assertThat(rs.getLong(5)).isEqualTo(200);
      rs.next();
      assertThat(rs.getString(2)).isNull();
      assertThat(rs.getLong(3)).isZero();
      assertThat(rs.getLong(4)).isZero();
    }
  }

  @Test
  void reRatingComputesWhatACorrectedPriceWouldHaveChargedRowByRow() {
    SplittableRandom random = new SplittableRandom(7);
    List<UsageRecord> batch = new ArrayList<>();
    Price corrected = Price.builder().input(3_000_000).output(15_000_000).cachedInput(300_000)
        .cacheWrite(3_750_000).reasoning(15_000_000).version("table-v2").build();
    long charged = 0;
    long expected = 0;
    for (int i = 0; i < 300; i++) {
      long prompt = 1 + random.nextInt(20_000);
      long cached = random.nextInt((int) prompt + 1);
      long write = random.nextInt((int) (prompt - cached) + 1);
      long completion = random.nextInt(4_000);
      long reasoning = random.nextInt((int) completion + 1);
      long cost = CHARGED.cost(prompt - cached - write, cached, write, completion - reasoning,
          reasoning);
      charged += cost;
      expected += corrected.cost(prompt - cached - write, cached, write, completion - reasoning,
          reasoning);
      batch.add(record("e" + i, "m", usage(prompt, cached, write, completion, reasoning), cost,
          false, "table-v1", T0.plusSeconds(i)));
    }
    // Rows that must not be re-rated as these: an estimate, another version, another model,
    // and one outside the period.
    batch.add(record("est", "m", usage(100, 0, 0, 10, 0), 9_999, true, "table-v1", T0));
    batch.add(record("other-version", "m", usage(100, 0, 0, 10, 0), 77, false, "table-v0",
        T0));
    batch.add(record("other-model", "n", usage(100, 0, 0, 10, 0), 77, false, "table-v1", T0));
    ledger.settle(batch);

    RerateReport r = ledger.rerate("m", "table-v1", corrected, null, null);
    assertThat(r.reratedRows()).isEqualTo(300);
    assertThat(r.chargedMicros()).isEqualTo(charged);
    assertThat(r.correctedMicros()).isEqualTo(expected);
    assertThat(r.differenceMicros()).isEqualTo(expected - charged).isPositive();
    assertThat(r.estimatedRows()).isEqualTo(1);
    assertThat(r.estimatedMicros()).isEqualTo(9_999);
    assertThat(r.correctedVersion()).isEqualTo("table-v2");

    RerateReport firstHundred = ledger.rerate("m", "table-v1", corrected, T0,
        T0.plusSeconds(100));
    assertThat(firstHundred.reratedRows()).isEqualTo(100);
    assertThat(firstHundred.estimatedRows()).isEqualTo(1);

    RerateReport same = ledger.rerate("m", "table-v1", CHARGED, null, null);
    assertThat(same.differenceMicros()).isZero();
    assertThat(ledger.rerate("m", "nothing", corrected, null, null).reratedRows()).isZero();
  }
}
