package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.count;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.UsageRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ConcurrentSettlersTest {
  private TestDatabase db;
  private DataSource ds;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    ds = db.dataSource();
  }

  @AfterEach
  void tearDown() {
    db.close();
  }

  @Test
  void twoSettlersOnOneDatabaseNeverDoubleCharge() throws Exception {
    // Two instances, each with its own data source, as two host processes would have.
    PostgresSettlement first = PostgresSettlement.create(db.dataSource());
    PostgresSettlement second = PostgresSettlement.create(db.dataSource());
    List<UsageRecord> all = Fixtures.batch("c", 400);
    long totalCost = all.stream().mapToLong(UsageRecord::costMicros).sum();

    ExecutorService pool = Executors.newFixedThreadPool(4);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> runs = new ArrayList<>();
    try {
      for (int t = 0; t < 4; t++) {
        PostgresSettlement settler = t % 2 == 0 ? first : second;
        Random random = new Random(t);
        runs.add(pool.submit(() -> {
          start.await();
          // Each thread hands over every record, in overlapping batches in its own order.
          List<UsageRecord> mine = new ArrayList<>(all);
          Collections.shuffle(mine, random);
          for (int i = 0; i < mine.size(); i += 50) {
            settler.settle(mine.subList(i, Math.min(mine.size(), i + 50)));
          }
          return null;
        }));
      }
      start.countDown();
      for (Future<?> run : runs) {
        run.get();
      }
    } finally {
      pool.shutdown();
    }

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(400);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isEqualTo(400 * 6);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.reservations")).isEqualTo(400);
    assertThat(count(ds, "SELECT sum(amount_micros) FROM pointsman.charges"
        + " WHERE scope_kind = 'TEAM' AND scope_id = 'team-1'")).isEqualTo(totalCost);
    ReconciliationReport report = first.reconcile(400, 0);
    assertThat(report.balanced()).isTrue();
    assertThat(report.chargedMicros()).isEqualTo(totalCost);
  }
}
