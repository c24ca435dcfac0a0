package io.pointsman.ledger;

import io.pointsman.CacheOutcome;
import io.pointsman.model.PromptTokensDetails;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;

/** Records, calls and queries shared by the ledger tests. */
final class Fixtures {
  static final Instant T0 = Instant.parse("2026-03-01T10:00:00Z");

  private Fixtures() {}

  static UsageRecord record(String eventId, long cost) {
    return new UsageRecord(eventId, "req-" + eventId, "key-1", "user-1", "team-1", "org-1",
        Set.of("prod", "chat"), "gpt-4o-mini", "dep-1", 1, UsageOutcome.SUCCESS, 200, null, null,
        Usage.of(100, 20), cost, false, "res-" + eventId, cost * 2, CacheOutcome.MISS, T0,
        1_000_000L);
  }

  static UsageRecord withStatus(UsageRecord r, int httpStatus) {
    return new UsageRecord(r.eventId(), r.requestId(), r.keyId(), r.userId(), r.teamId(),
        r.orgId(), r.tags(), r.model(), r.deploymentId(), r.attempts(), r.outcome(), httpStatus,
        r.decidedBy(), r.rule(), r.usage(), r.costMicros(), r.costEstimated(), r.reservationId(),
        r.heldMicros(), r.cacheOutcome(), r.startedAt(), r.durationNanos());
  }

  static List<UsageRecord> batch(String prefix, int n) {
    List<UsageRecord> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(record(prefix + i, 1_000 + i));
    }
    return out;
  }

  /** A record the schema refuses: a negative cached-token count, on a model without a price. */
  static UsageRecord negativeCachedTokens(String eventId) {
    Usage usage = new Usage(100, 20, 120, new PromptTokensDetails(-5L, null), null, null);
    return new UsageRecord(eventId, "req-" + eventId, "key-1", "user-1", "team-1", "org-1",
        Set.of("prod"), "unpriced-model", "dep-1", 1, UsageOutcome.SUCCESS, 200, null, null,
        usage, 700, true, "res-" + eventId, 700, CacheOutcome.MISS, T0, 1_000_000L);
  }

  /** The same record with other usage, cost and reservation. */
  static UsageRecord with(UsageRecord r, Usage usage, long cost, String reservationId) {
    return new UsageRecord(r.eventId(), r.requestId(), r.keyId(), r.userId(), r.teamId(),
        r.orgId(), r.tags(), r.model(), r.deploymentId(), r.attempts(), r.outcome(),
        r.httpStatus(), r.decidedBy(), r.rule(), usage, cost, r.costEstimated(), reservationId,
        r.heldMicros(), r.cacheOutcome(), r.startedAt(), r.durationNanos());
  }

  /** An interrupted call seen with its given attempt count, its last intent as given. */
  static InterruptedCall interrupted(String eventId, String reservationId, int attemptsSeen,
      long held, long worstCase) {
    DispatchIntent intent = new DispatchIntent(eventId, "req-" + eventId, attemptsSeen,
        "key-1", "user-1", "team-1", "org-1", Set.of("prod"), "gpt-4o-mini", "dep-1", "openai",
        reservationId, held, worstCase, T0);
    return new InterruptedCall(intent, attemptsSeen, true, T0.plusSeconds(60));
  }

  static InterruptedCall interrupted(String eventId, long held, long worstCase) {
    DispatchIntent intent = new DispatchIntent(eventId, "req-" + eventId, 1, "key-1", "user-1",
        "team-1", "org-1", Set.of("prod"), "gpt-4o-mini", "dep-1", "openai", "res-" + eventId,
        held, worstCase, T0);
    return new InterruptedCall(intent, 1, true, T0.plusSeconds(60));
  }

  static long count(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  static String string(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  static void execute(DataSource ds, String sql) throws SQLException {
    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }

  /** Counts of every ledger table, to prove that something wrote nothing. */
  static List<Long> tableCounts(DataSource ds) throws SQLException {
    return List.of(
        count(ds, "SELECT count(*) FROM pointsman.ledger_entries"),
        count(ds, "SELECT count(*) FROM pointsman.charges"),
        count(ds, "SELECT count(*) FROM pointsman.reservations"));
  }

  /** A fingerprint of every ledger row, to prove that something changed nothing. */
  static String fingerprint(DataSource ds) throws SQLException {
    return string(ds, "SELECT md5(coalesce(string_agg(x, '|' ORDER BY x), '')) FROM ("
        + " SELECT e::text AS x FROM pointsman.ledger_entries e"
        + " UNION ALL SELECT c::text FROM pointsman.charges c"
        + " UNION ALL SELECT r::text FROM pointsman.reservations r) t");
  }
}
