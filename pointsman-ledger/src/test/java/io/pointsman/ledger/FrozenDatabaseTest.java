package io.pointsman.ledger;

import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.PointsmanException;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A server that stops answering (SIGSTOP to this test's own embedded PostgreSQL) fails a
 * settle after the pool's socket timeout instead of blocking the settler for ever; once it
 * answers again the pool recovers and the batch, handed over again, commits.
 */
class FrozenDatabaseTest {
  /** Far above the 5 s socket timeout: only a settle that never returns reaches it. */
  private static final long NEVER_SECONDS = 120;

  private EmbeddedPostgres pg;
  private LedgerPool pool;
  private PostgresSettlement ledger;

  @BeforeEach
  void setUp() {
    pg = EmbeddedPostgres.start();
    pool = LedgerPool.builder(pg.jdbcUrl("postgres"))
        .maximumSize(2).minimumIdle(1)
        .connectTimeout(Duration.ofSeconds(5))
        .socketTimeout(Duration.ofSeconds(5))
        .statementTimeout(Duration.ofSeconds(3))
        .build();
    ledger = PostgresSettlement.create(pool.dataSource());
    ledger.settle(Fixtures.batch("warm", 3));
  }

  @AfterEach
  void tearDown() {
    pool.close();
    pg.close();
  }

  @Test
  void serverFrozenInTheMiddleOfABatchFailsTheSettleAndTheRetryCommits() throws Exception {
    AtomicReference<Frozen> frozen = new AtomicReference<>();
    ledger.probe(new PostgresSettlement.TransactionProbe() {
      @Override
      public void beforeCommit(int backendPid) {
        try {
          // The batch is written, its commit not yet sent: the server stops answering.
          frozen.set(Frozen.freeze(pg));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }

      @Override
      public void afterCommit() {}
    });
    List<UsageRecord> batch = Fixtures.batch("mid", 10);
    CompletableFuture<Void> settle = CompletableFuture.runAsync(() -> ledger.settle(batch));
    Throwable failure;
    try {
      settle.get(NEVER_SECONDS, TimeUnit.SECONDS);
      failure = null;
    } catch (ExecutionException e) {
      failure = e.getCause();
    } finally {
      if (frozen.get() != null) {
        frozen.get().close();
      }
    }
    assertThat(frozen.get()).isNotNull();
    assertThat(failure).isInstanceOf(PointsmanException.class);
    assertThat(((PointsmanException) failure).status()).isEqualTo(io.pointsman.Status.UNAVAILABLE);

    ledger.probe(null);
    ledger.settle(batch);
    assertThat(Fixtures.count(pool.dataSource(), "SELECT count(*) FROM pointsman.ledger_entries"))
        .isEqualTo(13);
    assertThat(Fixtures.count(pool.dataSource(), "SELECT count(*) FROM pointsman.quarantine"))
        .isZero();
    assertThat(pool.totalConnections()).isLessThanOrEqualTo(2);
  }

  @Test
  void serverFrozenBetweenBatchesFailsTheNextSettleInsteadOfBlocking() throws Exception {
    Throwable failure;
    try (Frozen frozen = Frozen.freeze(pg)) {
      assertThat(frozen.pids()).isNotEmpty();
      CompletableFuture<Void> settle =
          CompletableFuture.runAsync(() -> ledger.settle(Fixtures.batch("next", 5)));
      try {
        settle.get(NEVER_SECONDS, TimeUnit.SECONDS);
        failure = null;
      } catch (ExecutionException e) {
        failure = e.getCause();
      }
    }
    assertThat(failure).isInstanceOf(PointsmanException.class);

    ledger.settle(Fixtures.batch("next", 5));
    assertThat(Fixtures.count(pool.dataSource(), "SELECT count(*) FROM pointsman.ledger_entries"))
        .isEqualTo(8);
  }
}
