package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Settling batch after batch reuses a bounded number of database sessions. */
class PoolSessionsTest {
  private static final int MAX_SESSIONS = 3;

  private TestDatabase db;
  private LedgerPool pool;

  @BeforeEach
  void setUp() {
    db = TestDatabases.create();
    TestDatabases.Server server = db.server();
    LedgerPool.Builder b = LedgerPool.builder(db.jdbcUrl()).user(server.user())
        .maximumSize(MAX_SESSIONS)
        .connectTimeout(Duration.ofSeconds(5))
        .socketTimeout(Duration.ofSeconds(10))
        .statementTimeout(Duration.ofSeconds(1));
    if (server.password() != null) {
      b.password(server.password());
    }
    pool = b.build();
  }

  @AfterEach
  void tearDown() {
    pool.close();
    db.close();
  }

  @Test
  void manyBatchesFromManyProducersUseAtMostThePoolsSessions() throws Exception {
    PostgresSettlement ledger = PostgresSettlement.create(pool.dataSource());
    Set<Integer> backends = ConcurrentHashMap.newKeySet();
    ledger.probe(new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) {
        backends.add(backendPid);
      }

      @Override
      public void afterCommit() {}
    });
    List<CompletableFuture<Void>> done = new CopyOnWriteArrayList<>();
    List<Long> observed = new CopyOnWriteArrayList<>();
    try (SettlementBatcher batcher = SettlementBatcher.builder(ledger)
        .maxBatch(5).maxLag(Duration.ofMillis(2)).capacity(50).build()) {
      List<Thread> producers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int id = t;
        Thread p = new Thread(() -> {
          for (int i = 0; i < 250; i++) {
            done.add(batcher.submit(Fixtures.record("p" + id + "-" + i, 10 + i)));
            if (i % 50 == 0) {
              observed.add(sessionsOnTheDatabase());
            }
          }
        });
        producers.add(p);
        p.start();
      }
      // Other work on the same pool meanwhile: reconciliation and hold checks.
      for (int i = 0; i < 20; i++) {
        ledger.reconcile(0, 0);
        ledger.checkHolds();
      }
      for (Thread p : producers) {
        p.join();
      }
      CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(60, TimeUnit.SECONDS);
    }
    observed.add(sessionsOnTheDatabase());

    assertThat(Fixtures.count(pool.dataSource(), "SELECT count(*) FROM pointsman.ledger_entries"))
        .isEqualTo(1_000);
    // At least 200 transactions ran, every one on one of the pool's sessions.
    assertThat(backends).isNotEmpty().hasSizeLessThanOrEqualTo(MAX_SESSIONS);
    assertThat(observed).allSatisfy(n -> assertThat(n).isLessThanOrEqualTo(MAX_SESSIONS));
    assertThat(pool.totalConnections()).isBetween(1, MAX_SESSIONS);
    assertThat(pool.activeConnections()).isZero();
  }

  @Test
  void aStatementStuckOnALockIsCancelledByTheStatementTimeoutAndNotQuarantined()
      throws Exception {
    PostgresSettlement ledger = PostgresSettlement.create(pool.dataSource());
    DataSource direct = db.dataSource();
    try (Connection locker = direct.getConnection()) {
      locker.setAutoCommit(false);
      try (Statement s = locker.createStatement()) {
        s.execute("LOCK TABLE pointsman.ledger_entries IN ACCESS EXCLUSIVE MODE");
      }
      assertThatThrownBy(() -> ledger.settle(Fixtures.batch("locked", 3)))
          .isInstanceOf(PointsmanException.class)
          .hasMessageContaining("statement timeout");
      locker.rollback();
    }
    assertThat(Fixtures.count(direct, "SELECT count(*) FROM pointsman.quarantine")).isZero();
    ledger.settle(Fixtures.batch("locked", 3));
    assertThat(Fixtures.count(direct, "SELECT count(*) FROM pointsman.ledger_entries"))
        .isEqualTo(3);
  }

  @Test
  void builderRefusesTimeoutsThatCannotWork() {
    assertThatThrownBy(() -> LedgerPool.builder("jdbc:mysql://x/y"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LedgerPool.builder(db.jdbcUrl())
        .socketTimeout(Duration.ofMillis(1500))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> LedgerPool.builder(db.jdbcUrl())
        .socketTimeout(Duration.ofSeconds(5)).statementTimeout(Duration.ofSeconds(5)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("below socketTimeout");
    assertThat(pool.maximumSize()).isEqualTo(MAX_SESSIONS);
    assertThat(pool.statementTimeout()).isEqualTo(Duration.ofSeconds(1));
  }

  /** Sessions open on the test database, counted from a connection to another database. */
  private long sessionsOnTheDatabase() {
    TestDatabases.Server server = db.server();
    try (Connection admin = server.dataSource(server.adminDatabase()).getConnection();
        PreparedStatement ps = admin.prepareStatement(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = ?")) {
      ps.setString(1, db.name());
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (java.sql.SQLException e) {
      throw new IllegalStateException(e);
    }
  }
}
