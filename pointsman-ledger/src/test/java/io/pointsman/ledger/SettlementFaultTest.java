package io.pointsman.ledger;

import static io.pointsman.ledger.Fixtures.batch;
import static io.pointsman.ledger.Fixtures.count;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.spi.UsageRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class SettlementFaultTest {
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

  @Test
  void connectionTerminatedMidBatchLeavesNothingAndTheRetryCompletes() throws Exception {
    ledger.settle(batch("early", 5));
    String before = Fixtures.fingerprint(ds);
    List<UsageRecord> records = batch("t", 200);
    AtomicBoolean terminated = new AtomicBoolean();
    ledger.probe(new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) throws SQLException {
        // The batch's rows are written but not committed: an operator (or the server) kills
        // the session from another connection.
        try (Connection admin = ds.getConnection();
            PreparedStatement kill = admin.prepareStatement("SELECT pg_terminate_backend(?)")) {
          kill.setInt(1, backendPid);
          kill.execute();
          terminated.set(true);
        }
      }

      @Override
      public void afterCommit() {}
    });

    assertThatThrownBy(() -> ledger.settle(records)).isInstanceOf(PointsmanException.class);
    assertThat(terminated).isTrue();
    assertThat(Fixtures.fingerprint(ds)).isEqualTo(before);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(5);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.quarantine")).isZero();

    ledger.probe(null);
    ledger.settle(records);

    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(205);
    assertThat(count(ds, "SELECT count(*) FROM pointsman.charges")).isEqualTo(205 * 6);
    assertThat(ledger.reconcile(205, 0).balanced()).isTrue();
  }

  @Test
  void refusedRecordIsQuarantinedInsteadOfFailingItsBatch() throws Exception {
    List<UsageRecord> records = new ArrayList<>(batch("f", 100));
    // The database refuses a status outside 100..599. That record is quarantined; the other
    // 99 of its batch commit.
    records.set(73, Fixtures.withStatus(records.get(73), 1_000));

    ledger.settle(records);

    assertThat(Fixtures.tableCounts(ds)).containsExactly(99L, 594L, 99L);
    assertThat(ledger.quarantined()).singleElement().satisfies(q -> {
      assertThat(q.eventId()).isEqualTo("f73");
      assertThat(q.reason()).contains("ledger_entries_http_status_check");
    });
  }

  @Test
  void failureAfterTheStatementRollsTheBatchBack() throws Exception {
    ledger.probe(new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) {
        throw new IllegalStateException("injected failure before commit");
      }

      @Override
      public void afterCommit() {}
    });

    assertThatThrownBy(() -> ledger.settle(batch("r", 30)))
        .isInstanceOf(PointsmanException.class);
    assertThatThrownBy(() -> ledger.interrupted(List.of(Fixtures.interrupted("u", 1, 2))))
        .isInstanceOf(PointsmanException.class);
    assertThat(Fixtures.tableCounts(ds)).containsOnly(0L);

    ledger.probe(null);
    ledger.settle(batch("r", 30));
    assertThat(count(ds, "SELECT count(*) FROM pointsman.ledger_entries")).isEqualTo(30);
  }
}
