package io.pointsman.ledger;

import io.pointsman.Clock;
import io.pointsman.model.Usage;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Settlement;
import io.pointsman.spi.UsageRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * {@link Settlement} into PostgreSQL: the system of record for spend. Each call of
 * {@link #settle} or {@link #interrupted} is one transaction made of one statement: a
 * multi-row insert of ledger rows with {@code ON CONFLICT (event_id) DO NOTHING}, and, for the
 * rows it actually inserted, their budget charges ({@code ON CONFLICT (event_id, scope)}) and
 * their reservations. Handing the same batch again, from this instance or another one on the
 * same database, changes nothing.
 *
 * <p>Budget scopes a row charges: its key always; its team, its org and its model when they
 * are present and non-empty; and each distinct non-empty tag. A settled row charges its cost;
 * a row of cost zero charges nothing. An interrupted call charges nothing until an attestation
 * resolves it ({@link #attest}) or its hold window ends ({@link #expireHolds}), when it is
 * charged its worst case.
 *
 * <p>Settlement runs after acknowledgement, in batches handed over by the journal (or by a
 * {@link SettlementBatcher}). A host that needs settlement before acknowledgement calls
 * {@link #settle} itself with the one record, on the request thread, before answering.
 *
 * <pre>{@code
 * PostgresSettlement ledger = PostgresSettlement.builder(dataSource)
 *     .holdWindow(Duration.ofMinutes(15))
 *     .holdAlert(summary -> log.warn("{} unresolved holds", summary.unresolved()))
 *     .build();                 // migrates the schema
 * ledger.settle(records);       // one transaction, idempotent on event id
 * }</pre>
 *
 * <p>Thread-safe: every method runs its own transaction on a connection of the data source;
 * any number of threads and instances may settle into one database.
 */
public final class PostgresSettlement implements Settlement {
  /** The longest evidence string kept with an attestation. */
  public static final int MAX_EVIDENCE_LENGTH = 4096;

  /** The hold window used unless the builder sets one. */
  public static final Duration DEFAULT_HOLD_WINDOW = Duration.ofMinutes(15);

  private static final String SETTLE_SQL = "WITH input AS ("
      + " SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
      + " ?::text[], ?::text[], ?::text[], ?::int4[], ?::text[], ?::int4[], ?::text[], ?::text[],"
      + " ?::int8[], ?::int8[], ?::int8[], ?::int8[], ?::bool[], ?::text[], ?::int8[], ?::text[],"
      + " ?::text[], ?::int8[])"
      + " AS u(event_id, request_id, key_id, user_id, team_id, org_id, tags, model,"
      + " deployment_id, attempts, outcome, http_status, decided_by, rule, prompt_tokens,"
      + " completion_tokens, cached_tokens, cost_micros, cost_estimated, reservation_id,"
      + " held_micros, cache_outcome, started_at, duration_nanos)"
      + "), written AS ("
      + " INSERT INTO pointsman.ledger_entries (event_id, request_id, key_id, user_id, team_id,"
      + " org_id, tags, model, deployment_id, attempts, outcome, status, http_status,"
      + " decided_by, rule, prompt_tokens, completion_tokens, cached_tokens, cost_micros,"
      + " cost_estimated, reservation_id, held_micros, cache_outcome, started_at,"
      + " duration_nanos, recorded_at)"
      + " SELECT event_id, request_id, key_id, user_id, team_id, org_id, tags::text[], model,"
      + " deployment_id, attempts, outcome, 'SETTLED', http_status, decided_by, rule,"
      + " prompt_tokens, completion_tokens, cached_tokens, cost_micros, cost_estimated,"
      + " reservation_id, held_micros, cache_outcome, started_at::timestamptz, duration_nanos,"
      + " ?::timestamptz"
      // One insertion order for every settler, so that two batches sharing event ids wait for
      // each other instead of deadlocking.
      + " FROM input ORDER BY event_id"
      + " ON CONFLICT (event_id) DO NOTHING"
      + " RETURNING event_id, key_id, team_id, org_id, tags, model, cost_micros, started_at,"
      + " reservation_id, held_micros, attempts"
      + "), charged AS ("
      + " INSERT INTO pointsman.charges (event_id, scope_kind, scope_id, amount_micros,"
      + " occurred_at)"
      + " SELECT w.event_id, s.scope_kind, s.scope_id, w.cost_micros, w.started_at"
      + " FROM written w CROSS JOIN LATERAL"
      + " pointsman.scopes_of(w.key_id, w.team_id, w.org_id, w.tags, w.model) s"
      + " WHERE w.cost_micros > 0 ORDER BY 1, 2, 3"
      + " ON CONFLICT (event_id, scope_kind, scope_id) DO NOTHING RETURNING 1"
      + "), reserved AS ("
      + " INSERT INTO pointsman.reservations (reservation_id, event_id, state, held_micros,"
      + " worst_case_micros, charged_micros, held_since, resolved_at)"
      + " SELECT w.reservation_id, w.event_id,"
      + " CASE WHEN w.attempts = 0 AND w.cost_micros = 0 THEN 'RELEASED' ELSE 'SETTLED' END,"
      + " w.held_micros, w.held_micros, w.cost_micros, w.started_at, ?::timestamptz"
      + " FROM written w WHERE w.reservation_id IS NOT NULL ORDER BY w.reservation_id"
      + " ON CONFLICT DO NOTHING RETURNING 1"
      + ") SELECT (SELECT count(*) FROM written), (SELECT count(*) FROM charged),"
      + " (SELECT count(*) FROM reserved)";

  private static final String INTERRUPTED_SQL = "WITH input AS ("
      + " SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
      + " ?::text[], ?::text[], ?::text[], ?::int4[], ?::text[], ?::int8[], ?::int8[],"
      + " ?::int8[], ?::text[], ?::text[], ?::text[])"
      + " AS u(event_id, request_id, key_id, user_id, team_id, org_id, tags, model,"
      + " deployment_id, attempts, reservation_id, held_micros, worst_case_micros,"
      + " floor_micros, started_at, held_since, hold_until)"
      + "), written AS ("
      + " INSERT INTO pointsman.ledger_entries (event_id, request_id, key_id, user_id, team_id,"
      + " org_id, tags, model, deployment_id, attempts, outcome, status, cost_micros,"
      + " cost_estimated, reservation_id, held_micros, started_at, recorded_at)"
      + " SELECT event_id, request_id, key_id, user_id, team_id, org_id, tags::text[], model,"
      + " deployment_id, attempts, 'UNKNOWN', 'UNKNOWN', 0, true, reservation_id, held_micros,"
      + " started_at::timestamptz, ?::timestamptz"
      + " FROM input ORDER BY event_id"
      + " ON CONFLICT (event_id) DO NOTHING RETURNING event_id"
      + "), held AS ("
      + " INSERT INTO pointsman.reservations (reservation_id, event_id, state, held_micros,"
      + " worst_case_micros, floor_micros, held_since, hold_until)"
      + " SELECT i.reservation_id, i.event_id, 'UNKNOWN', i.held_micros, i.worst_case_micros,"
      + " i.floor_micros, i.held_since::timestamptz, i.hold_until::timestamptz"
      + " FROM input i JOIN written w ON w.event_id = i.event_id ORDER BY i.reservation_id"
      + " ON CONFLICT DO NOTHING RETURNING 1"
      + ") SELECT (SELECT count(*) FROM written), (SELECT count(*) FROM held)";

  private static final String UNRESOLVED_SQL = "SELECT e.event_id, e.request_id,"
      + " e.attempts, e.key_id, e.user_id, e.team_id, e.org_id, e.tags, e.model,"
      + " e.deployment_id, r.reservation_id, r.held_micros, r.worst_case_micros, r.held_since,"
      + " e.started_at FROM pointsman.reservations r JOIN pointsman.ledger_entries e"
      + " ON e.event_id = r.event_id WHERE r.state = 'UNKNOWN'"
      + " ORDER BY e.started_at, e.event_id";

  private static final String HOLD_SQL = "SELECT event_id, reservation_id, state, held_micros,"
      + " worst_case_micros, floor_micros, charged_micros, epoch, held_since, hold_until"
      + " FROM pointsman.reservations WHERE event_id = ?";

  private static final String EXPIRE_SQL = "WITH expired AS ("
      + " UPDATE pointsman.reservations SET state = 'EXPIRED',"
      + " charged_micros = worst_case_micros, epoch = epoch + 1, resolved_at = ?::timestamptz"
      + " WHERE state = 'UNKNOWN' AND hold_until <= ?::timestamptz"
      + " RETURNING event_id, charged_micros"
      + "), entries AS ("
      + " UPDATE pointsman.ledger_entries e SET status = 'EXPIRED',"
      + " cost_micros = x.charged_micros, cost_estimated = true, resolved_at = ?::timestamptz"
      + " FROM expired x WHERE e.event_id = x.event_id AND e.status = 'UNKNOWN'"
      + " RETURNING e.event_id, e.key_id, e.team_id, e.org_id, e.tags, e.model, e.cost_micros,"
      + " e.started_at"
      + "), charged AS ("
      + " INSERT INTO pointsman.charges (event_id, scope_kind, scope_id, amount_micros,"
      + " occurred_at)"
      + " SELECT n.event_id, s.scope_kind, s.scope_id, n.cost_micros, n.started_at"
      + " FROM entries n CROSS JOIN LATERAL"
      + " pointsman.scopes_of(n.key_id, n.team_id, n.org_id, n.tags, n.model) s"
      + " WHERE n.cost_micros > 0 ORDER BY 1, 2, 3"
      + " ON CONFLICT (event_id, scope_kind, scope_id) DO NOTHING RETURNING 1"
      + ") SELECT (SELECT count(*) FROM expired), (SELECT count(*) FROM charged)";

  private static final String CHARGE_ONE_SQL = "INSERT INTO pointsman.charges (event_id,"
      + " scope_kind, scope_id, amount_micros, occurred_at)"
      + " SELECT e.event_id, s.scope_kind, s.scope_id, e.cost_micros, e.started_at"
      + " FROM pointsman.ledger_entries e CROSS JOIN LATERAL"
      + " pointsman.scopes_of(e.key_id, e.team_id, e.org_id, e.tags, e.model) s"
      + " WHERE e.event_id = ? AND e.cost_micros > 0 ORDER BY 1, 2, 3"
      + " ON CONFLICT (event_id, scope_kind, scope_id) DO NOTHING";

  private static final String SUMMARY_SQL = "SELECT count(*), coalesce(sum(held_micros), 0),"
      + " coalesce(sum(worst_case_micros), 0), min(held_since), min(hold_until)"
      + " FROM pointsman.reservations WHERE state IN ('HELD', 'UNKNOWN')";

  /** Test seam: observes a transaction between its last statement and its commit. */
  interface TransactionProbe {
    /** Called inside the transaction, after its statements, before it commits. */
    void beforeCommit(int backendPid) throws SQLException;

    /** Called after the transaction committed, before the method returns. */
    void afterCommit();
  }

  private final Jdbi jdbi;
  private final Clock clock;
  private final Duration holdWindow;
  private final FloorPolicy floorPolicy;
  private final HoldAlert holdAlert;
  private volatile TransactionProbe probe;

  private PostgresSettlement(Builder b) {
    this.jdbi = Jdbi.create(b.dataSource);
    this.clock = b.clock == null ? Clock.system() : b.clock;
    this.holdWindow = b.holdWindow == null ? DEFAULT_HOLD_WINDOW : b.holdWindow;
    this.floorPolicy = b.floorPolicy == null ? FloorPolicy.zero() : b.floorPolicy;
    this.holdAlert = b.holdAlert == null ? HoldAlert.NONE : b.holdAlert;
  }

  /**
   * Starts a builder.
   *
   * @param dataSource the ledger's database; a pooled data source is strongly advised, as
   *     every call takes one connection for one transaction
   * @return a builder with the defaults: system clock, 15-minute hold window, zero floor, no
   *     alert, schema migrated at build
   * @throws NullPointerException if dataSource is null
   */
  public static Builder builder(DataSource dataSource) {
    return new Builder(Objects.requireNonNull(dataSource, "dataSource"));
  }

  /**
   * Builds a settlement with the defaults, migrating the schema.
   *
   * @param dataSource the ledger's database
   * @return the settlement
   * @throws NullPointerException if dataSource is null
   * @throws LedgerSchemaException if the database's schema cannot be used by this code
   */
  public static PostgresSettlement create(DataSource dataSource) {
    return builder(dataSource).build();
  }

  /**
   * Returns the hold window: how long an interrupted call's hold waits for an attestation.
   *
   * @return the window
   */
  public Duration holdWindow() {
    return holdWindow;
  }

  void probe(TransactionProbe value) {
    this.probe = value;
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: the rows not yet present are inserted with their charges and
   * reservations; rows already present (from an earlier hand-over, from another settler, or
   * recorded as {@code UNKNOWN} at recovery) are left as they are.
   *
   * @throws NullPointerException if records or one of them is null
   * @throws io.pointsman.PointsmanException with status 503 when the batch did not commit;
   *     nothing of it is written
   */
  @Override
  public void settle(List<UsageRecord> records) {
    Objects.requireNonNull(records, "records");
    if (records.isEmpty()) {
      return;
    }
    int n = records.size();
    String[] eventId = new String[n];
    String[] requestId = new String[n];
    String[] keyId = new String[n];
    String[] userId = new String[n];
    String[] teamId = new String[n];
    String[] orgId = new String[n];
    String[] tags = new String[n];
    String[] model = new String[n];
    String[] deployment = new String[n];
    Integer[] attempts = new Integer[n];
    String[] outcome = new String[n];
    Integer[] httpStatus = new Integer[n];
    String[] decidedBy = new String[n];
    String[] rule = new String[n];
    Long[] promptTokens = new Long[n];
    Long[] completionTokens = new Long[n];
    Long[] cachedTokens = new Long[n];
    Long[] cost = new Long[n];
    Boolean[] estimated = new Boolean[n];
    String[] reservation = new String[n];
    Long[] held = new Long[n];
    String[] cache = new String[n];
    String[] startedAt = new String[n];
    Long[] duration = new Long[n];
    for (int i = 0; i < n; i++) {
      UsageRecord r = Objects.requireNonNull(records.get(i), "records contains null");
      eventId[i] = r.eventId();
      requestId[i] = r.requestId();
      keyId[i] = r.keyId();
      userId[i] = r.userId();
      teamId[i] = r.teamId();
      orgId[i] = r.orgId();
      tags[i] = Sql.arrayLiteral(r.tags());
      model[i] = r.model();
      deployment[i] = r.deploymentId();
      attempts[i] = r.attempts();
      outcome[i] = r.outcome().name();
      httpStatus[i] = r.httpStatus();
      decidedBy[i] = r.decidedBy();
      rule[i] = r.rule();
      Usage usage = r.usage();
      if (usage != null) {
        promptTokens[i] = usage.promptTokens();
        completionTokens[i] = usage.completionTokens();
        cachedTokens[i] = usage.cachedTokens();
      }
      cost[i] = r.costMicros();
      estimated[i] = r.costEstimated();
      reservation[i] = r.reservationId();
      held[i] = r.heldMicros();
      cache[i] = r.cacheOutcome().name();
      startedAt[i] = r.startedAt().toString();
      duration[i] = r.durationNanos();
    }
    String now = clock.now().toString();
    transaction("settlement batch of " + n + " records", (h, c) -> {
      try (PreparedStatement ps = c.prepareStatement(SETTLE_SQL)) {
        int p = 1;
        ps.setArray(p++, Sql.text(c, eventId));
        ps.setArray(p++, Sql.text(c, requestId));
        ps.setArray(p++, Sql.text(c, keyId));
        ps.setArray(p++, Sql.text(c, userId));
        ps.setArray(p++, Sql.text(c, teamId));
        ps.setArray(p++, Sql.text(c, orgId));
        ps.setArray(p++, Sql.text(c, tags));
        ps.setArray(p++, Sql.text(c, model));
        ps.setArray(p++, Sql.text(c, deployment));
        ps.setArray(p++, Sql.int4(c, attempts));
        ps.setArray(p++, Sql.text(c, outcome));
        ps.setArray(p++, Sql.int4(c, httpStatus));
        ps.setArray(p++, Sql.text(c, decidedBy));
        ps.setArray(p++, Sql.text(c, rule));
        ps.setArray(p++, Sql.int8(c, promptTokens));
        ps.setArray(p++, Sql.int8(c, completionTokens));
        ps.setArray(p++, Sql.int8(c, cachedTokens));
        ps.setArray(p++, Sql.int8(c, cost));
        ps.setArray(p++, Sql.bool(c, estimated));
        ps.setArray(p++, Sql.text(c, reservation));
        ps.setArray(p++, Sql.int8(c, held));
        ps.setArray(p++, Sql.text(c, cache));
        ps.setArray(p++, Sql.text(c, startedAt));
        ps.setArray(p++, Sql.int8(c, duration));
        ps.setString(p++, now);
        ps.setString(p, now);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
        }
      }
      return null;
    });
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: each call not yet in the ledger becomes an {@code UNKNOWN} row (cost
   * zero, estimated) with a reservation in state {@code UNKNOWN} holding its
   * {@link DispatchIntent#heldMicros()}, epoch 1, its floor from the {@link FloorPolicy}, and a
   * hold window starting at {@link InterruptedCall#recoveredAt()}. A call already in the
   * ledger, settled or not, is left as it is.
   *
   * @throws NullPointerException if calls or one of them is null
   * @throws IllegalArgumentException if the floor policy returns a negative floor
   * @throws io.pointsman.PointsmanException with status 503 when the batch did not commit;
   *     nothing of it is written
   */
  @Override
  public void interrupted(List<InterruptedCall> calls) {
    Objects.requireNonNull(calls, "calls");
    if (calls.isEmpty()) {
      return;
    }
    int n = calls.size();
    String[] eventId = new String[n];
    String[] requestId = new String[n];
    String[] keyId = new String[n];
    String[] userId = new String[n];
    String[] teamId = new String[n];
    String[] orgId = new String[n];
    String[] tags = new String[n];
    String[] model = new String[n];
    String[] deployment = new String[n];
    Integer[] attempts = new Integer[n];
    String[] reservation = new String[n];
    Long[] held = new Long[n];
    Long[] worstCase = new Long[n];
    Long[] floor = new Long[n];
    String[] startedAt = new String[n];
    String[] heldSince = new String[n];
    String[] holdUntil = new String[n];
    for (int i = 0; i < n; i++) {
      InterruptedCall call = Objects.requireNonNull(calls.get(i), "calls contains null");
      DispatchIntent d = call.lastIntent();
      long f = floorPolicy.floorMicros(call);
      if (f < 0) {
        throw new IllegalArgumentException("floor policy returned a negative floor " + f
            + " for event " + d.eventId());
      }
      eventId[i] = d.eventId();
      requestId[i] = d.requestId();
      keyId[i] = d.keyId();
      userId[i] = d.userId();
      teamId[i] = d.teamId();
      orgId[i] = d.orgId();
      tags[i] = Sql.arrayLiteral(d.tags());
      model[i] = d.model();
      deployment[i] = d.deploymentId();
      attempts[i] = call.attemptsSeen();
      reservation[i] = d.reservationId();
      held[i] = d.heldMicros();
      worstCase[i] = d.worstCaseMicros();
      floor[i] = f;
      startedAt[i] = d.callStartedAt().toString();
      heldSince[i] = call.recoveredAt().toString();
      holdUntil[i] = call.recoveredAt().plus(holdWindow).toString();
    }
    String now = clock.now().toString();
    transaction("interrupted batch of " + n + " calls", (h, c) -> {
      try (PreparedStatement ps = c.prepareStatement(INTERRUPTED_SQL)) {
        int p = 1;
        ps.setArray(p++, Sql.text(c, eventId));
        ps.setArray(p++, Sql.text(c, requestId));
        ps.setArray(p++, Sql.text(c, keyId));
        ps.setArray(p++, Sql.text(c, userId));
        ps.setArray(p++, Sql.text(c, teamId));
        ps.setArray(p++, Sql.text(c, orgId));
        ps.setArray(p++, Sql.text(c, tags));
        ps.setArray(p++, Sql.text(c, model));
        ps.setArray(p++, Sql.text(c, deployment));
        ps.setArray(p++, Sql.int4(c, attempts));
        ps.setArray(p++, Sql.text(c, reservation));
        ps.setArray(p++, Sql.int8(c, held));
        ps.setArray(p++, Sql.int8(c, worstCase));
        ps.setArray(p++, Sql.int8(c, floor));
        ps.setArray(p++, Sql.text(c, startedAt));
        ps.setArray(p++, Sql.text(c, heldSince));
        ps.setArray(p++, Sql.text(c, holdUntil));
        ps.setString(p, now);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
        }
      }
      return null;
    });
  }

  /**
   * Returns the reservation recorded for a call, if any.
   *
   * @param eventId the call's event id
   * @return the hold, or empty when the call has no reservation in the ledger
   * @throws NullPointerException if eventId is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public Optional<Hold> hold(String eventId) {
    Objects.requireNonNull(eventId, "eventId");
    return Sql.inTransaction(jdbi, "reading hold " + eventId, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement(HOLD_SQL)) {
        ps.setString(1, eventId);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next() ? Optional.of(hold(rs)) : Optional.<Hold>empty();
        }
      }
    });
  }

  /**
   * Returns the dispatch intents of every unresolved hold ({@code UNKNOWN} calls not yet
   * attested or expired), rebuilt from their ledger rows, oldest first. A host that keeps
   * budget counters in its own process rebuilds them at start from the spend in the ledger
   * plus these holds ({@code CounterLimiter.rebuild}); unlike the journal's interrupted calls,
   * this also covers holds recorded by an earlier start whose journal records were since
   * reclaimed. The provider name is not kept in the ledger and comes back as
   * {@code "unknown"}; the attempt is the number of attempts recorded.
   *
   * @return the intents
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public List<DispatchIntent> unresolvedIntents() {
    return Sql.inTransaction(jdbi, "reading unresolved holds", h -> {
      List<DispatchIntent> out = new ArrayList<>();
      try (PreparedStatement ps = h.getConnection().prepareStatement(UNRESOLVED_SQL);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          java.sql.Array tags = rs.getArray(8);
          Set<String> tagSet = tags == null ? Set.of()
              : Set.of((String[]) tags.getArray());
          Instant started = Sql.instant(rs.getTimestamp(15));
          out.add(new DispatchIntent(rs.getString(1), rs.getString(2),
              Math.max(1, rs.getInt(3)), rs.getString(4), rs.getString(5), rs.getString(6),
              rs.getString(7), tagSet, rs.getString(9), rs.getString(10), "unknown",
              rs.getString(11), rs.getLong(12), rs.getLong(13),
              Sql.instant(rs.getTimestamp(14)), started));
        }
      }
      return out;
    });
  }

  /**
   * Resolves an interrupted call with evidence of what it really did: the call is charged the
   * attested cost in every scope it belongs to, its row and reservation become
   * {@code ATTESTED}, and the hold's epoch moves on. Accepted only when the hold is still
   * unresolved, {@code epoch} equals its current {@link Hold#epoch()}, and {@code costMicros}
   * is at least its {@link Hold#floorMicros()}; otherwise refused, writing nothing. An
   * attestation may exceed the worst case (the provider's word wins).
   *
   * @param eventId the call's event id
   * @param usage the attested token usage, or {@code null} when the provider did no work
   * @param costMicros the attested cost
   * @param evidence where the attestation comes from (for example a provider usage export
   *     line); kept with the row, never a key or a prompt
   * @param epoch the hold's epoch the attestation was made against
   * @return the decision
   * @throws NullPointerException if eventId or evidence is null
   * @throws IllegalArgumentException if costMicros is negative, evidence is blank or longer
   *     than {@value #MAX_EVIDENCE_LENGTH} characters
   * @throws io.pointsman.PointsmanException with status 503 if the decision did not commit
   */
  public HoldDecision attest(
      String eventId, Usage usage, long costMicros, String evidence, long epoch) {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(evidence, "evidence");
    if (costMicros < 0) {
      throw new IllegalArgumentException("attested cost must not be negative: " + costMicros);
    }
    if (evidence.isBlank() || evidence.length() > MAX_EVIDENCE_LENGTH) {
      throw new IllegalArgumentException(
          "evidence must be 1 to " + MAX_EVIDENCE_LENGTH + " characters, not blank");
    }
    String now = clock.now().toString();
    return transaction("attestation of " + eventId, (h, c) -> {
      Hold hold = lockHold(c, eventId);
      HoldDecision refusal = refusal(hold, eventId, epoch);
      if (refusal != null) {
        return refusal;
      }
      if (costMicros < hold.floorMicros()) {
        return new HoldDecision(HoldDecision.Verdict.UNDER_FLOOR, eventId, hold.epoch(),
            "attested cost " + costMicros + " is below the call's floor " + hold.floorMicros());
      }
      try (PreparedStatement r = c.prepareStatement("UPDATE pointsman.reservations"
              + " SET state = 'ATTESTED', charged_micros = ?, epoch = epoch + 1,"
              + " resolved_at = ?::timestamptz, evidence = ? WHERE reservation_id = ?");
          PreparedStatement e = c.prepareStatement("UPDATE pointsman.ledger_entries"
              + " SET status = 'ATTESTED', cost_micros = ?, cost_estimated = false,"
              + " prompt_tokens = ?, completion_tokens = ?, cached_tokens = ?,"
              + " resolved_at = ?::timestamptz, evidence = ? WHERE event_id = ?");
          PreparedStatement charge = c.prepareStatement(CHARGE_ONE_SQL)) {
        r.setLong(1, costMicros);
        r.setString(2, now);
        r.setString(3, evidence);
        r.setString(4, hold.reservationId());
        r.executeUpdate();
        e.setLong(1, costMicros);
        e.setObject(2, usage == null ? null : usage.promptTokens(), java.sql.Types.BIGINT);
        e.setObject(3, usage == null ? null : usage.completionTokens(), java.sql.Types.BIGINT);
        e.setObject(4, usage == null ? null : usage.cachedTokens(), java.sql.Types.BIGINT);
        e.setString(5, now);
        e.setString(6, evidence);
        e.setString(7, eventId);
        e.executeUpdate();
        charge.setString(1, eventId);
        charge.executeUpdate();
      }
      return new HoldDecision(HoldDecision.Verdict.ACCEPTED, eventId, hold.epoch() + 1,
          "attested at " + costMicros);
    });
  }

  /**
   * Moves an unresolved hold's expiry later, for example while a provider's usage export is
   * awaited. The hold's epoch moves on, so an attestation prepared against the earlier epoch
   * is refused as stale.
   *
   * @param eventId the call's event id
   * @param epoch the hold's epoch the extension was decided against
   * @param extra how much longer to hold
   * @return the decision ({@link HoldDecision.Verdict#UNDER_FLOOR} is never returned)
   * @throws NullPointerException if eventId or extra is null
   * @throws IllegalArgumentException if extra is not positive
   * @throws io.pointsman.PointsmanException with status 503 if the decision did not commit
   */
  public HoldDecision extendHold(String eventId, long epoch, Duration extra) {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(extra, "extra");
    if (extra.isNegative() || extra.isZero()) {
      throw new IllegalArgumentException("extra must be positive: " + extra);
    }
    return transaction("hold extension of " + eventId, (h, c) -> {
      Hold hold = lockHold(c, eventId);
      HoldDecision refusal = refusal(hold, eventId, epoch);
      if (refusal != null) {
        return refusal;
      }
      Instant until = hold.holdUntil().plus(extra);
      try (PreparedStatement r = c.prepareStatement("UPDATE pointsman.reservations"
          + " SET hold_until = ?::timestamptz, epoch = epoch + 1 WHERE reservation_id = ?")) {
        r.setString(1, until.toString());
        r.setString(2, hold.reservationId());
        r.executeUpdate();
      }
      return new HoldDecision(HoldDecision.Verdict.ACCEPTED, eventId, hold.epoch() + 1,
          "held until " + until);
    });
  }

  /**
   * Charges every unresolved hold whose window has ended its worst case, in every scope it
   * belongs to, and flags it {@code EXPIRED} (row and reservation; the epoch moves on). One
   * transaction; running it again changes nothing.
   *
   * @return how many holds expired
   * @throws io.pointsman.PointsmanException with status 503 if the expiry did not commit
   */
  public int expireHolds() {
    String now = clock.now().toString();
    return transaction("hold expiry", (h, c) -> {
      try (PreparedStatement ps = c.prepareStatement(EXPIRE_SQL)) {
        ps.setString(1, now);
        ps.setString(2, now);
        ps.setString(3, now);
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return rs.getInt(1);
        }
      }
    });
  }

  /**
   * Summarises the unresolved holds without changing anything.
   *
   * @return the summary ({@link HoldSummary#expiredNow()} is zero)
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public HoldSummary unresolvedHolds() {
    return summary(0);
  }

  /**
   * Expires ended holds ({@link #expireHolds()}), then, if unresolved holds remain, tells the
   * {@link HoldAlert}. A host runs it periodically, for example every minute on its own
   * scheduler.
   *
   * @return the unresolved holds after expiry
   * @throws io.pointsman.PointsmanException with status 503 if the expiry did not commit
   */
  public HoldSummary checkHolds() {
    int expired = expireHolds();
    HoldSummary summary = summary(expired);
    if (summary.any()) {
      holdAlert.unresolved(summary);
    }
    return summary;
  }

  /**
   * Reconciles the ledger: rows against the responses the host acknowledged and the journal's
   * backlog, charges against costs in every scope, resolved reservations against their rows,
   * and the totals still held. Reads in one snapshot.
   *
   * @param acknowledgedResponses how many responses the host acknowledged (every one has a
   *     settled record)
   * @param journalBacklog how many settled records the journal holds that were not yet
   *     handed to settlement
   * @return the report
   * @throws IllegalArgumentException if a figure is negative
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public ReconciliationReport reconcile(long acknowledgedResponses, long journalBacklog) {
    if (acknowledgedResponses < 0 || journalBacklog < 0) {
      throw new IllegalArgumentException("figures must not be negative");
    }
    return Sql.inTransaction(jdbi, "reconciliation", h -> {
      Connection c = h.getConnection();
      try (PreparedStatement snapshot = c.prepareStatement(
          "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")) {
        snapshot.execute();
      }
      long settled;
      long unknown;
      long attested;
      long expired;
      long cost;
      try (PreparedStatement ps = c.prepareStatement("SELECT"
              + " count(*) FILTER (WHERE status = 'SETTLED'),"
              + " count(*) FILTER (WHERE status = 'UNKNOWN'),"
              + " count(*) FILTER (WHERE status = 'ATTESTED'),"
              + " count(*) FILTER (WHERE status = 'EXPIRED'),"
              + " coalesce(sum(cost_micros) FILTER (WHERE status <> 'UNKNOWN'), 0)"
              + " FROM pointsman.ledger_entries");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        settled = rs.getLong(1);
        unknown = rs.getLong(2);
        attested = rs.getLong(3);
        expired = rs.getLong(4);
        cost = rs.getLong(5);
      }
      long charged = single(c, "SELECT coalesce(sum(amount_micros), 0)"
          + " FROM pointsman.charges WHERE scope_kind = 'KEY'");
      // Every scope a resolved, costed row belongs to must carry exactly its cost, and no
      // charge may exist outside those scopes.
      long chargeMismatches = single(c, "SELECT count(*) FROM ("
          + " SELECT e.event_id FROM pointsman.ledger_entries e"
          + " CROSS JOIN LATERAL"
          + " pointsman.scopes_of(e.key_id, e.team_id, e.org_id, e.tags, e.model) s"
          + " LEFT JOIN pointsman.charges ch ON ch.event_id = e.event_id"
          + " AND ch.scope_kind = s.scope_kind AND ch.scope_id = s.scope_id"
          + " WHERE e.status <> 'UNKNOWN' AND e.cost_micros > 0"
          + " AND ch.amount_micros IS DISTINCT FROM e.cost_micros"
          + " UNION"
          + " SELECT ch.event_id FROM pointsman.charges ch"
          + " JOIN pointsman.ledger_entries e ON e.event_id = ch.event_id"
          + " WHERE e.status = 'UNKNOWN' OR e.cost_micros = 0"
          + " OR NOT EXISTS (SELECT 1 FROM"
          + " pointsman.scopes_of(e.key_id, e.team_id, e.org_id, e.tags, e.model) s"
          + " WHERE s.scope_kind = ch.scope_kind AND s.scope_id = ch.scope_id)"
          + ") AS bad");
      long reservationCharged;
      long reservationMismatches;
      try (PreparedStatement ps = c.prepareStatement("SELECT"
              + " coalesce(sum(r.charged_micros), 0),"
              + " count(*) FILTER (WHERE r.charged_micros IS DISTINCT FROM e.cost_micros)"
              + " FROM pointsman.reservations r"
              + " LEFT JOIN pointsman.ledger_entries e ON e.event_id = r.event_id"
              + " WHERE r.state NOT IN ('HELD', 'UNKNOWN')");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        reservationCharged = rs.getLong(1);
        reservationMismatches = rs.getLong(2);
      }
      long heldCount;
      long heldMicros;
      try (PreparedStatement ps = c.prepareStatement(SUMMARY_SQL);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        heldCount = rs.getLong(1);
        heldMicros = rs.getLong(2);
      }
      return new ReconciliationReport(acknowledgedResponses, journalBacklog, settled, unknown,
          attested, expired, acknowledgedResponses - settled - journalBacklog, cost, charged,
          chargeMismatches, reservationCharged, reservationMismatches, heldCount, heldMicros);
    });
  }

  /** The data source belongs to the host; nothing to release. */
  @Override
  public void close() {}

  @Override
  public String toString() {
    return "PostgresSettlement{holdWindow=" + holdWindow + "}";
  }

  private HoldSummary summary(int expiredNow) {
    return Sql.inTransaction(jdbi, "hold summary", h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement(SUMMARY_SQL);
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        return new HoldSummary(rs.getLong(1), rs.getLong(2), rs.getLong(3),
            Sql.instant(rs.getTimestamp(4)), Sql.instant(rs.getTimestamp(5)), expiredNow);
      }
    });
  }

  private static HoldDecision refusal(Hold hold, String eventId, long epoch) {
    if (hold == null) {
      return new HoldDecision(HoldDecision.Verdict.NOT_FOUND, eventId, 0,
          "no reservation is recorded for this event");
    }
    if (hold.state() != ReservationState.UNKNOWN) {
      return new HoldDecision(HoldDecision.Verdict.ALREADY_RESOLVED, eventId, hold.epoch(),
          "the hold is already " + hold.state());
    }
    if (epoch != hold.epoch()) {
      return new HoldDecision(HoldDecision.Verdict.STALE_EPOCH, eventId, hold.epoch(),
          "epoch " + epoch + " is not the hold's current epoch " + hold.epoch());
    }
    return null;
  }

  private static Hold lockHold(Connection c, String eventId) throws SQLException {
    // The row lock orders this decision against expiry and against other attesters: whoever
    // comes second sees the first one's epoch and state.
    try (PreparedStatement ps = c.prepareStatement(HOLD_SQL + " FOR UPDATE")) {
      ps.setString(1, eventId);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? hold(rs) : null;
      }
    }
  }

  private static Hold hold(ResultSet rs) throws SQLException {
    long charged = rs.getLong(7);
    return new Hold(rs.getString(1), rs.getString(2), ReservationState.valueOf(rs.getString(3)),
        rs.getLong(4), rs.getLong(5), rs.getLong(6), rs.wasNull() ? 0 : charged, rs.getLong(8),
        Sql.instant(rs.getTimestamp(9)), Sql.instant(rs.getTimestamp(10)));
  }

  private static long single(Connection c, String sql) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /** One transaction's work with its connection at hand. */
  @FunctionalInterface
  private interface Work<T> {
    T run(Handle handle, Connection connection) throws SQLException;
  }

  private <T> T transaction(String what, Work<T> work) {
    TransactionProbe p = probe;
    T result = Sql.inTransaction(jdbi, what, h -> {
      Connection c = h.getConnection();
      T value = work.run(h, c);
      if (p != null) {
        p.beforeCommit(backendPid(c));
      }
      return value;
    });
    if (p != null) {
      p.afterCommit();
    }
    return result;
  }

  private static int backendPid(Connection c) throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT pg_backend_pid()");
        ResultSet rs = ps.executeQuery()) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /**
   * Builds a {@link PostgresSettlement}. Not thread-safe. Each setter may be called once; a
   * second call throws {@link IllegalStateException}.
   */
  public static final class Builder {
    private final DataSource dataSource;
    private Clock clock;
    private Duration holdWindow;
    private FloorPolicy floorPolicy;
    private HoldAlert holdAlert;
    private Boolean migrate;

    private Builder(DataSource dataSource) {
      this.dataSource = dataSource;
    }

    /**
     * Sets the clock that stamps rows and decides hold expiry.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder clock(Clock value) {
      Objects.requireNonNull(value, "clock");
      once(clock, "clock");
      this.clock = value;
      return this;
    }

    /**
     * Sets how long an interrupted call's hold waits for an attestation before it is charged
     * its worst case.
     *
     * @param value the window, positive
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if value is not positive
     * @throws IllegalStateException if already set
     */
    public Builder holdWindow(Duration value) {
      Objects.requireNonNull(value, "holdWindow");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("holdWindow must be positive: " + value);
      }
      once(holdWindow, "holdWindow");
      this.holdWindow = value;
      return this;
    }

    /**
     * Sets the policy that decides an interrupted call's floor.
     *
     * @param value the policy
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder floorPolicy(FloorPolicy value) {
      Objects.requireNonNull(value, "floorPolicy");
      once(floorPolicy, "floorPolicy");
      this.floorPolicy = value;
      return this;
    }

    /**
     * Sets the alert told by {@link #checkHolds()} while unresolved holds exist.
     *
     * @param value the alert
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder holdAlert(HoldAlert value) {
      Objects.requireNonNull(value, "holdAlert");
      once(holdAlert, "holdAlert");
      this.holdAlert = value;
      return this;
    }

    /**
     * Sets whether {@link #build()} migrates the schema (default true). A host that migrates
     * with {@link LedgerSchema#migrate} itself turns it off.
     *
     * @param value whether to migrate
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder migrate(boolean value) {
      once(migrate, "migrate");
      this.migrate = value;
      return this;
    }

    /**
     * Builds the settlement, migrating the schema unless told not to.
     *
     * @return the settlement
     * @throws LedgerSchemaException if the database's schema cannot be used by this code
     * @throws io.pointsman.PointsmanException with status 503 if the database cannot be
     *     reached for migration
     */
    public PostgresSettlement build() {
      if (migrate == null || migrate) {
        LedgerSchema.migrate(dataSource);
      }
      return new PostgresSettlement(this);
    }

    private static void once(Object current, String name) {
      if (current != null) {
        throw new IllegalStateException(name + " was already set to " + current);
      }
    }
  }
}
