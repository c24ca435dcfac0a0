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
import java.sql.Savepoint;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import javax.sql.DataSource;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * resolves it ({@link #attest}) or its hold window ends ({@link #expireHolds}, on the
 * database's clock), when it is charged its worst case: one worst case per attempt seen.
 *
 * <p>An item the schema refuses (a negative token count, a NUL character, a reservation id
 * another event holds) does not fail its batch: it is quarantined ({@link #quarantined()},
 * {@link #redriveQuarantined(QuarantineFix)}) and the rest of the batch commits. A replayed
 * record that disagrees with its stored row is recorded as a conflict ({@link #conflicts()})
 * and unbalances {@link #reconcile}. Hosts pass a pooled data source with timeouts
 * ({@link LedgerPool}).
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
      + " ?::text[], ?::int8[], ?::text[], ?::int8[], ?::int8[])"
      + " AS u(event_id, request_id, key_id, user_id, team_id, org_id, tags, model,"
      + " deployment_id, attempts, outcome, http_status, decided_by, rule, prompt_tokens,"
      + " completion_tokens, cached_tokens, cost_micros, cost_estimated, reservation_id,"
      + " held_micros, cache_outcome, started_at, duration_nanos, price_version,"
      + " cache_write_tokens, reasoning_tokens)"
      + "), written AS ("
      + " INSERT INTO pointsman.ledger_entries (event_id, request_id, key_id, user_id, team_id,"
      + " org_id, tags, model, deployment_id, attempts, outcome, status, http_status,"
      + " decided_by, rule, prompt_tokens, completion_tokens, cached_tokens, cost_micros,"
      + " cost_estimated, reservation_id, held_micros, cache_outcome, started_at,"
      + " duration_nanos, price_version, cache_write_tokens, reasoning_tokens, recorded_at)"
      + " SELECT event_id, request_id, key_id, user_id, team_id, org_id, tags::text[], model,"
      + " deployment_id, attempts, outcome, 'SETTLED', http_status, decided_by, rule,"
      + " prompt_tokens, completion_tokens, cached_tokens, cost_micros, cost_estimated,"
      + " reservation_id, held_micros, cache_outcome, started_at::timestamptz, duration_nanos,"
      + " price_version, cache_write_tokens, reasoning_tokens, ?::timestamptz"
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
      // Only the event's own reservation may already exist. A reservation id that another
      // event holds raises a unique violation, and the record is quarantined instead of
      // silently losing one of the two reservations.
      + " ON CONFLICT (event_id) DO NOTHING RETURNING 1"
      + ") SELECT (SELECT count(*) FROM written), (SELECT count(*) FROM charged),"
      + " (SELECT count(*) FROM reserved)";

  /**
   * Records every replayed record that disagrees with the row already stored for its event:
   * another cost or usage, or a stored row that is not {@code SETTLED}. Runs in the settling
   * transaction, only when some records of the batch were already present.
   */
  private static final String CONFLICT_SQL = "INSERT INTO pointsman.ledger_conflicts"
      + " (event_id, stored_status, stored_cost_micros, stored_prompt_tokens,"
      + " stored_completion_tokens, stored_cached_tokens, replayed_cost_micros,"
      + " replayed_prompt_tokens, replayed_completion_tokens, replayed_cached_tokens,"
      + " replayed_digest)"
      + " SELECT DISTINCT ON (x.event_id, x.digest) x.event_id, x.status, x.s_cost, x.s_prompt,"
      + " x.s_completion, x.s_cached, x.cost_micros, x.prompt_tokens, x.completion_tokens,"
      + " x.cached_tokens, x.digest FROM ("
      + " SELECT e.event_id, e.status, e.cost_micros AS s_cost, e.prompt_tokens AS s_prompt,"
      + " e.completion_tokens AS s_completion, e.cached_tokens AS s_cached, u.cost_micros,"
      + " u.prompt_tokens, u.completion_tokens, u.cached_tokens,"
      + " md5(concat_ws('|', u.cost_micros, coalesce(u.prompt_tokens::text, '-'),"
      + " coalesce(u.completion_tokens::text, '-'), coalesce(u.cached_tokens::text, '-')))"
      + " AS digest"
      + " FROM unnest(?::text[], ?::int8[], ?::int8[], ?::int8[], ?::int8[])"
      + " AS u(event_id, cost_micros, prompt_tokens, completion_tokens, cached_tokens)"
      + " JOIN pointsman.ledger_entries e ON e.event_id = u.event_id"
      + " WHERE e.status <> 'SETTLED' OR e.cost_micros <> u.cost_micros"
      + " OR e.prompt_tokens IS DISTINCT FROM u.prompt_tokens"
      + " OR e.completion_tokens IS DISTINCT FROM u.completion_tokens"
      + " OR e.cached_tokens IS DISTINCT FROM u.cached_tokens) x"
      + " ORDER BY x.event_id, x.digest"
      + " ON CONFLICT (event_id, replayed_digest) DO UPDATE SET last_seen_at = now(),"
      + " times_seen = pointsman.ledger_conflicts.times_seen + 1"
      + " RETURNING event_id";

  private static final String QUARANTINE_SQL = "INSERT INTO pointsman.quarantine (kind,"
      + " event_id, reservation_id, key_id, user_id, team_id, org_id, tags, model, held_micros,"
      + " payload, reason_kind, reason, sql_state)"
      + " VALUES (?, ?, ?, ?, ?, ?, ?, ?::text[], ?, ?, ?::json, ?, ?, ?)"
      + " ON CONFLICT (kind, event_id) DO UPDATE SET reservation_id = excluded.reservation_id,"
      + " key_id = excluded.key_id, user_id = excluded.user_id, team_id = excluded.team_id,"
      + " org_id = excluded.org_id, tags = excluded.tags, model = excluded.model,"
      + " held_micros = excluded.held_micros, payload = excluded.payload,"
      + " reason_kind = excluded.reason_kind, reason = excluded.reason,"
      + " sql_state = excluded.sql_state, last_tried_at = now(),"
      + " tries = pointsman.quarantine.tries + 1, redriven_at = NULL, redriven_payload = NULL";

  private static final String QUARANTINED_SQL = "SELECT quarantine_id, kind, event_id,"
      + " reason_kind, reason, sql_state, held_micros, quarantined_at, last_tried_at, tries,"
      + " payload FROM pointsman.quarantine WHERE redriven_at IS NULL ORDER BY quarantine_id";

  private static final String CONFLICTS_SQL = "SELECT conflict_id, event_id, stored_status,"
      + " stored_cost_micros, stored_prompt_tokens, stored_completion_tokens,"
      + " stored_cached_tokens, replayed_cost_micros, replayed_prompt_tokens,"
      + " replayed_completion_tokens, replayed_cached_tokens, first_seen_at, last_seen_at,"
      + " times_seen, resolved_at, resolution FROM pointsman.ledger_conflicts"
      + " WHERE resolved_at IS NULL ORDER BY conflict_id";

  private static final String INTERRUPTED_SQL = "WITH input AS ("
      + " SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],"
      + " ?::text[], ?::text[], ?::text[], ?::int4[], ?::text[], ?::int8[], ?::int8[],"
      + " ?::int8[], ?::text[])"
      + " AS u(event_id, request_id, key_id, user_id, team_id, org_id, tags, model,"
      + " deployment_id, attempts, reservation_id, held_micros, worst_case_micros,"
      + " floor_micros, started_at)"
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
      // The hold window runs on the database's clock, as does expiry: every instance
      // judges a hold by the same time, whatever its own clock says.
      + " SELECT i.reservation_id, i.event_id, 'UNKNOWN', i.held_micros, i.worst_case_micros,"
      + " i.floor_micros, now(), now() + ?::bigint * interval '1 microsecond'"
      + " FROM input i JOIN written w ON w.event_id = i.event_id ORDER BY i.reservation_id"
      + " ON CONFLICT (event_id) DO NOTHING RETURNING 1"
      + ") SELECT (SELECT count(*) FROM written), (SELECT count(*) FROM held)";

  private static final String UNRESOLVED_SQL = "SELECT e.event_id, e.request_id,"
      + " e.attempts, e.key_id, e.user_id, e.team_id, e.org_id, e.tags, e.model,"
      + " e.deployment_id, r.reservation_id, r.held_micros, r.worst_case_micros, r.held_since,"
      + " e.started_at FROM pointsman.reservations r JOIN pointsman.ledger_entries e"
      + " ON e.event_id = r.event_id WHERE r.state = 'UNKNOWN'"
      + " ORDER BY e.started_at, e.event_id";

  private static final String INCLUDES_SQL = "SELECT 1 FROM pointsman.reservations"
      + " WHERE reservation_id = ? AND state IN ('SETTLED', 'RELEASED', 'ATTESTED', 'EXPIRED')";
  private static final String HOLD_SQL = "SELECT event_id, reservation_id, state, held_micros,"
      + " worst_case_micros, floor_micros, charged_micros, epoch, held_since, hold_until"
      + " FROM pointsman.reservations WHERE event_id = ?";

  private static final String EXPIRE_SQL = "WITH expired AS ("
      + " UPDATE pointsman.reservations SET state = 'EXPIRED',"
      + " charged_micros = worst_case_micros, epoch = epoch + 1, resolved_at = now()"
      // The database's clock decides, never an instance's: a host whose clock runs ahead
      // must not expire holds early, one whose clock lags must not keep them late.
      + " WHERE state = 'UNKNOWN'"
      + " AND hold_until <= now() + ?::bigint * interval '1 microsecond'"
      + " RETURNING event_id, charged_micros"
      + "), entries AS ("
      + " UPDATE pointsman.ledger_entries e SET status = 'EXPIRED',"
      + " cost_micros = x.charged_micros, cost_estimated = true, resolved_at = now()"
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

  private static final Logger LOG = LoggerFactory.getLogger(PostgresSettlement.class);

  /** The longest list of event ids a log line names. */
  private static final int LOGGED_IDS = 20;

  private final Jdbi jdbi;
  private final Clock clock;
  private final Duration holdWindow;
  private final FloorPolicy floorPolicy;
  private final HoldAlert holdAlert;
  private final AtomicLong quarantinedTotal = new AtomicLong();
  private final AtomicLong conflictsTotal = new AtomicLong();
  private final AtomicLong redrivenTotal = new AtomicLong();
  private volatile TransactionProbe probe;
  /** Test seam: added to the database's clock when expiry decides (zero in production). */
  private volatile long expiryClockSkewMicros;

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

  /** Test seam: expiry judges holds as if the database's clock were this much later. */
  void expiryClockSkew(Duration skew) {
    this.expiryClockSkewMicros = micros(skew);
  }

  /**
   * Returns how many items (settled records and interrupted calls) this instance has
   * quarantined since it was built; a counter for the host's metrics. The quarantine table
   * itself is listed by {@link #quarantined()}.
   *
   * @return the count
   */
  public long quarantinedTotal() {
    return quarantinedTotal.get();
  }

  /**
   * Returns how many replay conflicts this instance has recorded (or seen again) since it was
   * built; a counter for the host's metrics. Open conflicts are listed by {@link #conflicts()}.
   *
   * @return the count
   */
  public long conflictsTotal() {
    return conflictsTotal.get();
  }

  /**
   * Returns how many quarantined items this instance has re-driven into the ledger since it
   * was built.
   *
   * @return the count
   */
  public long redrivenTotal() {
    return redrivenTotal.get();
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: the rows not yet present are inserted with their charges and
   * reservations; rows already present (from an earlier hand-over, from another settler, or
   * recorded as {@code UNKNOWN} at recovery) are left as they are, and a replayed record that
   * disagrees with its stored row (another cost or usage, or a stored row that is not
   * {@code SETTLED}) is recorded as a conflict ({@link #conflicts()}).
   *
   * <p>When the schema refuses a record (SQLSTATE class 22 or 23: a negative token count, an
   * HTTP status outside 100..599, a NUL character, a reservation id another event holds), the
   * batch is written again record by record, each under a savepoint, in one transaction: the
   * records the ledger accepts are settled, each refused one is kept in the quarantine table
   * ({@link #quarantined()}) with its payload and reason, and the method returns normally, so
   * the journal may reclaim the batch. Any other failure (a lost connection, a timeout, a
   * failed commit) quarantines nothing and throws.
   *
   * @throws NullPointerException if records or one of them is null
   * @throws io.pointsman.PointsmanException with status 503 when the batch did not commit;
   *     nothing of it is written
   */
  @Override
  public void settle(List<UsageRecord> records) {
    Objects.requireNonNull(records, "records");
    for (UsageRecord r : records) {
      Objects.requireNonNull(r, "records contains null");
    }
    if (records.isEmpty()) {
      return;
    }
    String now = clock.now().toString();
    writeOrQuarantine("settlement batch of " + records.size() + " records", records,
        UsageRecord::eventId, (c, batch) -> settleRows(c, batch, now), this::quarantineRecord);
  }

  /**
   * {@inheritDoc}
   *
   * <p>One transaction: each call not yet in the ledger becomes an {@code UNKNOWN} row (cost
   * zero, estimated) with a reservation in state {@code UNKNOWN}, epoch 1, its floor from the
   * {@link FloorPolicy}, and a hold window that starts now on the database's clock. The hold
   * keeps {@link DispatchIntent#heldMicros()} of the last intent (the largest: the gateway
   * only extends a hold before a retry); its worst case, charged if the hold expires, is the
   * sum of the worst cases of every attempt seen ({@link InterruptedCall#attemptsSeen()} times
   * {@link DispatchIntent#worstCaseMicros()}, and never below the held amount), because each
   * attempt whose outcome is unknown may have been billed. A call already in the ledger,
   * settled or not, is left as it is. A call the schema refuses (for example a reservation id
   * another event holds) is quarantined as {@link #settle} does, and the rest is recorded.
   *
   * @throws NullPointerException if calls or one of them is null
   * @throws IllegalArgumentException if the floor policy returns a negative floor
   * @throws io.pointsman.PointsmanException with status 503 when the batch did not commit;
   *     nothing of it is written
   */
  @Override
  public void interrupted(List<InterruptedCall> calls) {
    Objects.requireNonNull(calls, "calls");
    Map<InterruptedCall, Long> floors = new IdentityHashMap<>();
    for (InterruptedCall call : calls) {
      Objects.requireNonNull(call, "calls contains null");
      long f = floorPolicy.floorMicros(call);
      if (f < 0) {
        throw new IllegalArgumentException("floor policy returned a negative floor " + f
            + " for event " + call.eventId());
      }
      floors.put(call, f);
    }
    if (calls.isEmpty()) {
      return;
    }
    String now = clock.now().toString();
    writeOrQuarantine("interrupted batch of " + calls.size() + " calls", calls,
        InterruptedCall::eventId, (c, batch) -> interruptedRows(c, batch, floors, now),
        this::quarantineCall);
  }

  /**
   * The worst case an interrupted call is charged if its hold expires: one worst case per
   * attempt seen, each of which may have been billed, and never less than what is held.
   */
  static long worstCaseOf(InterruptedCall call) {
    DispatchIntent d = call.lastIntent();
    long sum;
    try {
      sum = Math.multiplyExact(d.worstCaseMicros(), (long) call.attemptsSeen());
    } catch (ArithmeticException e) {
      sum = Long.MAX_VALUE;
    }
    return Math.max(sum, d.heldMicros());
  }

  /** Writes one batch; returns the event ids of replay conflicts it recorded. */
  @FunctionalInterface
  private interface Rows<T> {
    List<String> write(Connection c, List<T> batch) throws SQLException;
  }

  /** Keeps one refused item in the quarantine table. */
  @FunctionalInterface
  private interface Quarantine<T> {
    void write(Connection c, T item, Refusal why) throws SQLException;
  }

  /** What one write did: conflicts recorded, items quarantined with their reasons. */
  private record Written(List<String> conflicts, List<String> quarantined, List<Refusal> why) {}

  /**
   * Writes a batch in one statement; when the schema refuses part of it, writes it again item
   * by item under savepoints in one transaction and quarantines what is refused. A failure
   * that is not a refusal fails the batch.
   */
  private <T> void writeOrQuarantine(String what, List<T> items, Function<T, String> eventId,
      Rows<T> rows, Quarantine<T> quarantine) {
    Written done;
    try {
      done = transaction(what, (h, c) -> new Written(rows.write(c, items), List.of(), List.of()));
    } catch (io.pointsman.PointsmanException e) {
      Refusal why = Refusal.of(e);
      if (why == null) {
        throw e;
      }
      LOG.warn("{} was refused ({}); writing it item by item, quarantining what the ledger"
          + " refuses", what, why.reason());
      List<T> sorted = new ArrayList<>(items);
      // One order for every settler, as the batch statement has, so that two settlers wait
      // for each other instead of deadlocking.
      sorted.sort(Comparator.comparing(eventId));
      done = transaction(what + " item by item", (h, c) -> {
        List<String> conflicts = new ArrayList<>();
        List<String> quarantined = new ArrayList<>();
        List<Refusal> reasons = new ArrayList<>();
        for (T item : sorted) {
          Savepoint sp = c.setSavepoint();
          try {
            conflicts.addAll(rows.write(c, List.of(item)));
            c.releaseSavepoint(sp);
          } catch (SQLException failure) {
            Refusal refused = Refusal.of(failure);
            if (refused == null) {
              throw failure;
            }
            c.rollback(sp);
            c.releaseSavepoint(sp);
            quarantine.write(c, item, refused);
            quarantined.add(eventId.apply(item));
            reasons.add(refused);
          }
        }
        return new Written(conflicts, quarantined, reasons);
      });
    }
    report(what, done);
  }

  private void report(String what, Written done) {
    if (!done.conflicts().isEmpty()) {
      conflictsTotal.addAndGet(done.conflicts().size());
      LOG.warn("{}: {} replayed records disagree with the rows already in the ledger (kept as"
          + " they were; recorded in pointsman.ledger_conflicts): {}", what,
          done.conflicts().size(), firstIds(done.conflicts()));
    }
    for (int i = 0; i < done.quarantined().size(); i++) {
      quarantinedTotal.incrementAndGet();
      Refusal why = done.why().get(i);
      LOG.error("{}: event {} refused by the ledger ({}, SQLSTATE {}: {}); quarantined in"
          + " pointsman.quarantine, its hold stays held until it is re-driven", what,
          done.quarantined().get(i), why.kind(), why.sqlState(), why.reason());
    }
  }

  private static List<String> firstIds(List<String> ids) {
    return ids.size() <= LOGGED_IDS ? ids : ids.subList(0, LOGGED_IDS);
  }

  private List<String> settleRows(Connection c, List<UsageRecord> records, String now)
      throws SQLException {
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
    String[] priceVersion = new String[n];
    Long[] cacheWriteTokens = new Long[n];
    Long[] reasoningTokens = new Long[n];
    for (int i = 0; i < n; i++) {
      UsageRecord r = records.get(i);
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
        // A malformed count (-1) was charged as impossible usage: the row keeps no count.
        long write = usage.cacheCreationTokens();
        long reasoning = usage.reasoningTokens();
        cacheWriteTokens[i] = write < 0 ? null : write;
        reasoningTokens[i] = reasoning < 0 ? null : reasoning;
      }
      cost[i] = r.costMicros();
      estimated[i] = r.costEstimated();
      reservation[i] = r.reservationId();
      held[i] = r.heldMicros();
      cache[i] = r.cacheOutcome().name();
      startedAt[i] = r.startedAt().toString();
      duration[i] = r.durationNanos();
      priceVersion[i] = r.priceVersion();
    }
    java.sql.Array eventIds = Sql.text(c, eventId);
    java.sql.Array costs = Sql.int8(c, cost);
    java.sql.Array prompts = Sql.int8(c, promptTokens);
    java.sql.Array completions = Sql.int8(c, completionTokens);
    java.sql.Array cached = Sql.int8(c, cachedTokens);
    long written;
    try (PreparedStatement ps = c.prepareStatement(SETTLE_SQL)) {
      int p = 1;
      ps.setArray(p++, eventIds);
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
      ps.setArray(p++, prompts);
      ps.setArray(p++, completions);
      ps.setArray(p++, cached);
      ps.setArray(p++, costs);
      ps.setArray(p++, Sql.bool(c, estimated));
      ps.setArray(p++, Sql.text(c, reservation));
      ps.setArray(p++, Sql.int8(c, held));
      ps.setArray(p++, Sql.text(c, cache));
      ps.setArray(p++, Sql.text(c, startedAt));
      ps.setArray(p++, Sql.int8(c, duration));
      ps.setArray(p++, Sql.text(c, priceVersion));
      ps.setArray(p++, Sql.int8(c, cacheWriteTokens));
      ps.setArray(p++, Sql.int8(c, reasoningTokens));
      ps.setString(p++, now);
      ps.setString(p, now);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        written = rs.getLong(1);
      }
    }
    if (written == n) {
      // Every record was new: nothing was replayed, so nothing can disagree.
      return List.of();
    }
    List<String> conflicts = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(CONFLICT_SQL)) {
      ps.setArray(1, eventIds);
      ps.setArray(2, costs);
      ps.setArray(3, prompts);
      ps.setArray(4, completions);
      ps.setArray(5, cached);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          conflicts.add(rs.getString(1));
        }
      }
    }
    return conflicts;
  }

  private List<String> interruptedRows(Connection c, List<InterruptedCall> calls,
      Map<InterruptedCall, Long> floors, String now) throws SQLException {
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
    for (int i = 0; i < n; i++) {
      InterruptedCall call = calls.get(i);
      DispatchIntent d = call.lastIntent();
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
      worstCase[i] = worstCaseOf(call);
      floor[i] = floors.get(call);
      startedAt[i] = d.callStartedAt().toString();
    }
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
      ps.setString(p++, now);
      ps.setLong(p, micros(holdWindow));
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
      }
    }
    return List.of();
  }

  private void quarantineRecord(Connection c, UsageRecord r, Refusal why) throws SQLException {
    // While quarantined the record keeps held the larger of what its reservation held and
    // what it claims to cost: it is in no budget's spend, and must not vanish from them.
    quarantine(c, QuarantinedItem.Kind.SETTLED_RECORD, r.eventId(), r.reservationId(),
        r.keyId(), r.userId(), r.teamId(), r.orgId(), r.tags(), r.model(),
        Math.max(r.heldMicros(), r.costMicros()), QuarantineCodec.json(r), why);
  }

  private void quarantineCall(Connection c, InterruptedCall call, Refusal why)
      throws SQLException {
    DispatchIntent d = call.lastIntent();
    quarantine(c, QuarantinedItem.Kind.INTERRUPTED_CALL, d.eventId(), d.reservationId(),
        d.keyId(), d.userId(), d.teamId(), d.orgId(), d.tags(), d.model(), d.heldMicros(),
        QuarantineCodec.json(call), why);
  }

  private static void quarantine(Connection c, QuarantinedItem.Kind kind, String eventId,
      String reservationId, String keyId, String userId, String teamId, String orgId,
      Set<String> tags, String model, long heldMicros, String payload, Refusal why)
      throws SQLException {
    List<String> cleanTags = new ArrayList<>();
    for (String t : tags) {
      cleanTags.add(clean(t));
    }
    try (PreparedStatement ps = c.prepareStatement(QUARANTINE_SQL)) {
      int p = 1;
      ps.setString(p++, kind.name());
      ps.setString(p++, clean(eventId));
      ps.setString(p++, clean(reservationId));
      ps.setString(p++, clean(keyId));
      ps.setString(p++, clean(userId));
      ps.setString(p++, clean(teamId));
      ps.setString(p++, clean(orgId));
      ps.setString(p++, Sql.arrayLiteral(cleanTags));
      ps.setString(p++, clean(model));
      ps.setLong(p++, heldMicros);
      ps.setString(p++, payload);
      ps.setString(p++, why.kind().name());
      ps.setString(p++, clean(why.reason()));
      ps.setString(p, why.sqlState());
      ps.executeUpdate();
    }
  }

  /** PostgreSQL text cannot hold NUL; the payload keeps the exact value as a JSON escape. */
  private static String clean(String s) {
    return s == null ? null : s.replace('\0', '\uFFFD');
  }

  private static long micros(Duration d) {
    return Math.addExact(Math.multiplyExact(d.getSeconds(), 1_000_000L), d.getNano() / 1_000);
  }

  /**
   * A failure the schema decided (SQLSTATE class 22, a value PostgreSQL cannot take, or 23, a
   * constraint): writing the same item again would fail again, so it is quarantined. Every
   * other failure (connection, timeout, resources, serialization) may pass and fails the
   * batch for a retry.
   */
  record Refusal(QuarantineReason kind, String reason, String sqlState) {
    static Refusal of(Throwable failure) {
      for (Throwable t = failure; t != null; t = t.getCause()) {
        if (t instanceof SQLException sql && sql.getSQLState() != null) {
          String state = sql.getSQLState();
          boolean invalid = state.startsWith("22");
          if (!invalid && !state.startsWith("23")) {
            return null;
          }
          String constraint = null;
          if (sql instanceof PSQLException psql) {
            ServerErrorMessage m = psql.getServerErrorMessage();
            constraint = m == null ? null : m.getConstraint();
          }
          QuarantineReason kind = invalid ? QuarantineReason.INVALID_VALUE
              : "23505".equals(state) && "reservations_pkey".equals(constraint)
                  ? QuarantineReason.DUPLICATE_RESERVATION_ID
                  : QuarantineReason.CONSTRAINT_VIOLATION;
          String message = sql.getMessage() == null ? state : sql.getMessage();
          return new Refusal(kind, message, state);
        }
        if (t.getCause() == t) {
          break;
        }
      }
      return null;
    }
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
   * Returns whether a reservation's call has its final charge in the ledger: its reservation
   * is settled, released, attested or expired. A rebuild of shared counters asks this for the
   * ends it still has pending, so that it does not count a charge twice.
   *
   * @param reservationId the reservation's id
   * @return true when the spend includes its charge
   * @throws NullPointerException if reservationId is null
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public boolean includes(String reservationId) {
    Objects.requireNonNull(reservationId, "reservationId");
    return Sql.inTransaction(jdbi, "reading reservation " + reservationId, h -> {
      try (PreparedStatement ps = h.getConnection().prepareStatement(INCLUDES_SQL)) {
        ps.setString(1, reservationId);
        try (ResultSet rs = ps.executeQuery()) {
          return rs.next();
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
   * {@code "unknown"}; the attempt is the number of attempts recorded; the worst case is the
   * one expiry would charge (the sum over the attempts seen).
   *
   * <p>Quarantined items ({@link #quarantined()}) that hold something come last: their hold
   * stays held until they are re-driven. A quarantined settled record holds the larger of its
   * held amount and its cost, under its reservation id (or {@code quarantined-<event id>}
   * when it had none), with an empty model or deployment when it had none.
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
          out.add(DispatchIntent.builder()
              .eventId(rs.getString(1)).requestId(rs.getString(2))
              .attempt(Math.max(1, rs.getInt(3))).keyId(rs.getString(4))
              .userId(rs.getString(5)).teamId(rs.getString(6)).orgId(rs.getString(7))
              .tags(tagSet).model(rs.getString(9)).deploymentId(rs.getString(10))
              .provider("unknown").reservationId(rs.getString(11))
              .heldMicros(rs.getLong(12)).worstCaseMicros(rs.getLong(13))
              .at(Sql.instant(rs.getTimestamp(14))).callStartedAt(started)
              .build());
        }
      }
      // A quarantined item's hold stays held until it is re-driven.
      try (PreparedStatement ps = h.getConnection().prepareStatement(QUARANTINED_SQL);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          DispatchIntent held = quarantinedHold(QuarantinedItem.Kind.valueOf(rs.getString(2)),
              rs.getLong(7), rs.getString(11));
          if (held != null) {
            out.add(held);
          }
        }
      }
      return out;
    });
  }

  /** The hold a quarantined item keeps, as a dispatch intent; null when it holds nothing. */
  private static DispatchIntent quarantinedHold(QuarantinedItem.Kind kind, long heldMicros,
      String payload) {
    if (heldMicros <= 0) {
      return null;
    }
    if (kind == QuarantinedItem.Kind.INTERRUPTED_CALL) {
      InterruptedCall call = QuarantineCodec.call(payload);
      DispatchIntent d = call.lastIntent();
      return d.toBuilder().heldMicros(heldMicros).worstCaseMicros(worstCaseOf(call)).build();
    }
    UsageRecord r = QuarantineCodec.record(payload);
    return DispatchIntent.builder()
        .eventId(r.eventId()).requestId(r.requestId()).attempt(Math.max(1, r.attempts()))
        .keyId(r.keyId()).userId(r.userId()).teamId(r.teamId()).orgId(r.orgId())
        .tags(r.tags()).model(r.model() == null ? "" : r.model())
        .deploymentId(r.deploymentId() == null ? "" : r.deploymentId()).provider("unknown")
        .reservationId(r.reservationId() == null ? "quarantined-" + r.eventId()
            : r.reservationId())
        .heldMicros(heldMicros).worstCaseMicros(heldMicros)
        .at(r.startedAt()).callStartedAt(r.startedAt())
        .build();
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
   * Charges every unresolved hold whose window has ended its worst case (the sum of its
   * attempts' worst cases), in every scope it belongs to, and flags it {@code EXPIRED} (row
   * and reservation; the epoch moves on). Whether a window has ended is decided by the
   * database's clock ({@code now()}), so every instance decides alike whatever its own clock
   * says. One transaction; running it again changes nothing.
   *
   * @return how many holds expired
   * @throws io.pointsman.PointsmanException with status 503 if the expiry did not commit
   */
  public int expireHolds() {
    long skew = expiryClockSkewMicros;
    return transaction("hold expiry", (h, c) -> {
      try (PreparedStatement ps = c.prepareStatement(EXPIRE_SQL)) {
        ps.setLong(1, skew);
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
   * Lists the quarantined items not yet re-driven, oldest first.
   *
   * @return the items
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public List<QuarantinedItem> quarantined() {
    return Sql.inTransaction(jdbi, "reading the quarantine", h -> {
      List<QuarantinedItem> out = new ArrayList<>();
      try (PreparedStatement ps = h.getConnection().prepareStatement(QUARANTINED_SQL);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new QuarantinedItem(rs.getLong(1),
              QuarantinedItem.Kind.valueOf(rs.getString(2)), rs.getString(3),
              QuarantineReason.valueOf(rs.getString(4)), rs.getString(5), rs.getString(6),
              rs.getLong(7), Sql.instant(rs.getTimestamp(8)), Sql.instant(rs.getTimestamp(9)),
              rs.getInt(10), rs.getString(11)));
        }
      }
      return out;
    });
  }

  /**
   * Hands every quarantined item to the ledger again, as it was stored. For use once the
   * cause is fixed outside the item (a schema or data change).
   *
   * @return what was re-driven and what is still refused
   * @throws io.pointsman.PointsmanException with status 503 if the database fails (items
   *     re-driven before the failure stay re-driven)
   */
  public RedriveReport redriveQuarantined() {
    return redriveQuarantined(QuarantineFix.NONE);
  }

  /**
   * Hands every quarantined item to the ledger again after the fix has corrected it. Each item
   * is its own transaction: it is settled (or recorded as interrupted) as {@link #settle} and
   * {@link #interrupted} would, and its quarantine row is marked re-driven with the payload
   * actually written; if the ledger refuses it again, it stays quarantined with the new
   * reason. An item another instance re-drives at the same time is written once.
   *
   * @param fix corrects each item before it is written
   * @return what was re-driven and what is still refused
   * @throws NullPointerException if fix is null or returns null
   * @throws IllegalArgumentException if fix changes an item's event id
   * @throws io.pointsman.PointsmanException with status 503 if the database fails (items
   *     re-driven before the failure stay re-driven)
   */
  public RedriveReport redriveQuarantined(QuarantineFix fix) {
    Objects.requireNonNull(fix, "fix");
    List<String> redriven = new ArrayList<>();
    List<String> still = new ArrayList<>();
    String now = clock.now().toString();
    for (QuarantinedItem item : quarantined()) {
      Rows<Void> rows;
      String payload;
      String eventId;
      if (item.kind() == QuarantinedItem.Kind.SETTLED_RECORD) {
        UsageRecord r = Objects.requireNonNull(fix.record(item.record()), "fixed record");
        eventId = r.eventId();
        payload = QuarantineCodec.json(r);
        rows = (c, ignored) -> settleRows(c, List.of(r), now);
      } else {
        InterruptedCall call = Objects.requireNonNull(fix.call(item.call()), "fixed call");
        long f = floorPolicy.floorMicros(call);
        if (f < 0) {
          throw new IllegalArgumentException("floor policy returned a negative floor " + f
              + " for event " + call.eventId());
        }
        Map<InterruptedCall, Long> floors = new IdentityHashMap<>();
        floors.put(call, f);
        eventId = call.eventId();
        payload = QuarantineCodec.json(call);
        rows = (c, ignored) -> interruptedRows(c, List.of(call), floors, now);
      }
      if (!eventId.equals(item.eventId())) {
        throw new IllegalArgumentException("a fix must keep the event id: quarantined "
            + item.eventId() + ", fixed " + eventId);
      }
      Written done = transaction("re-drive of quarantined event " + eventId, (h, c) -> {
        try (PreparedStatement lock = c.prepareStatement("SELECT 1 FROM pointsman.quarantine"
            + " WHERE quarantine_id = ? AND redriven_at IS NULL FOR UPDATE")) {
          lock.setLong(1, item.quarantineId());
          try (ResultSet rs = lock.executeQuery()) {
            if (!rs.next()) {
              return null;
            }
          }
        }
        Savepoint sp = c.setSavepoint();
        try {
          List<String> conflicts = rows.write(c, List.of());
          c.releaseSavepoint(sp);
          try (PreparedStatement done1 = c.prepareStatement("UPDATE pointsman.quarantine"
              + " SET redriven_at = now(), redriven_payload = ?::json WHERE quarantine_id = ?")) {
            done1.setString(1, payload);
            done1.setLong(2, item.quarantineId());
            done1.executeUpdate();
          }
          return new Written(conflicts, List.of(), List.of());
        } catch (SQLException failure) {
          Refusal why = Refusal.of(failure);
          if (why == null) {
            throw failure;
          }
          c.rollback(sp);
          c.releaseSavepoint(sp);
          try (PreparedStatement again = c.prepareStatement("UPDATE pointsman.quarantine"
              + " SET reason_kind = ?, reason = ?, sql_state = ?, last_tried_at = now(),"
              + " tries = tries + 1 WHERE quarantine_id = ?")) {
            again.setString(1, why.kind().name());
            again.setString(2, clean(why.reason()));
            again.setString(3, why.sqlState());
            again.setLong(4, item.quarantineId());
            again.executeUpdate();
          }
          return new Written(List.of(), List.of(eventId), List.of(why));
        }
      });
      if (done == null) {
        continue;
      }
      if (done.quarantined().isEmpty()) {
        redriven.add(eventId);
        redrivenTotal.incrementAndGet();
        report("re-drive", done);
      } else {
        still.add(eventId);
        Refusal why = done.why().get(0);
        LOG.warn("re-drive: event {} is still refused by the ledger ({}, SQLSTATE {}: {})",
            eventId, why.kind(), why.sqlState(), why.reason());
      }
    }
    if (!redriven.isEmpty()) {
      LOG.info("re-drive: {} quarantined items written to the ledger, {} still refused",
          redriven.size(), still.size());
    }
    return new RedriveReport(redriven, still);
  }

  /**
   * Lists the open replay conflicts, oldest first.
   *
   * @return the conflicts
   * @throws io.pointsman.PointsmanException with status 503 if the database cannot be read
   */
  public List<LedgerConflict> conflicts() {
    return Sql.inTransaction(jdbi, "reading replay conflicts", h -> {
      List<LedgerConflict> out = new ArrayList<>();
      try (PreparedStatement ps = h.getConnection().prepareStatement(CONFLICTS_SQL);
          ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          out.add(new LedgerConflict(rs.getLong(1), rs.getString(2), rs.getString(3),
              rs.getLong(4), nullableLong(rs, 5), nullableLong(rs, 6), nullableLong(rs, 7),
              rs.getLong(8), nullableLong(rs, 9), nullableLong(rs, 10), nullableLong(rs, 11),
              Sql.instant(rs.getTimestamp(12)), Sql.instant(rs.getTimestamp(13)), rs.getInt(14),
              Sql.instant(rs.getTimestamp(15)), rs.getString(16)));
        }
      }
      return out;
    });
  }

  /**
   * Resolves every open conflict of an event once an operator has decided which figures are
   * true (and corrected the ledger if the stored row was wrong): they leave
   * {@link #conflicts()} and stop unbalancing {@link #reconcile}. Nothing else changes.
   *
   * @param eventId the event
   * @param resolution the operator's note, kept with the conflict
   * @return how many conflicts were resolved
   * @throws NullPointerException if an argument is null
   * @throws IllegalArgumentException if resolution is blank
   * @throws io.pointsman.PointsmanException with status 503 if the change did not commit
   */
  public int resolveConflicts(String eventId, String resolution) {
    Objects.requireNonNull(eventId, "eventId");
    Objects.requireNonNull(resolution, "resolution");
    if (resolution.isBlank()) {
      throw new IllegalArgumentException("resolution must not be blank");
    }
    return transaction("resolving conflicts of " + eventId, (h, c) -> {
      try (PreparedStatement ps = c.prepareStatement("UPDATE pointsman.ledger_conflicts"
          + " SET resolved_at = now(), resolution = ?"
          + " WHERE event_id = ? AND resolved_at IS NULL")) {
        ps.setString(1, resolution);
        ps.setString(2, eventId);
        return ps.executeUpdate();
      }
    });
  }

  private static Long nullableLong(ResultSet rs, int column) throws SQLException {
    long v = rs.getLong(column);
    return rs.wasNull() ? null : v;
  }

  /**
   * Re-rates the settled rows of a model that were charged at one price version: what the
   * corrected price would have charged them, from the token counts each row keeps (plain,
   * cached and cache-write input; plain and reasoning output), with each row rounded up to the
   * next micro-unit as the gateway rounds. Rows whose cost was an estimate are counted apart.
   * Read-only, in one snapshot.
   *
   * @param model the canonical model
   * @param priceVersion the version the rows were charged at (see
   *     {@link io.pointsman.catalog.Price#version()})
   * @param corrected the corrected price
   * @param from the earliest call start included, or {@code null} for no bound
   * @param to the call start bound, exclusive, or {@code null} for no bound
   * @return the figures
   * @throws NullPointerException if model, priceVersion or corrected is null
   * @throws io.pointsman.PointsmanException if the database cannot be reached (status
   *     {@code UNAVAILABLE})
   */
  public RerateReport rerate(String model, String priceVersion,
      io.pointsman.catalog.Price corrected, Instant from, Instant to) {
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(priceVersion, "priceVersion");
    Objects.requireNonNull(corrected, "corrected");
    String sql = "WITH rows AS (SELECT cost_micros, cost_estimated,"
        + " prompt_tokens - coalesce(cached_tokens, 0) - coalesce(cache_write_tokens, 0)"
        + " AS plain_in,"
        + " coalesce(cached_tokens, 0) AS cached_in, coalesce(cache_write_tokens, 0) AS write_in,"
        + " completion_tokens - coalesce(reasoning_tokens, 0) AS plain_out,"
        + " coalesce(reasoning_tokens, 0) AS reasoning_out"
        + " FROM pointsman.ledger_entries WHERE status = 'SETTLED' AND model = ?"
        + " AND price_version = ? AND (?::timestamptz IS NULL OR started_at >= ?::timestamptz)"
        + " AND (?::timestamptz IS NULL OR started_at < ?::timestamptz))"
        + " SELECT count(*) FILTER (WHERE NOT cost_estimated AND plain_in IS NOT NULL"
        + " AND plain_out IS NOT NULL),"
        + " coalesce(sum(cost_micros) FILTER (WHERE NOT cost_estimated AND plain_in IS NOT NULL"
        + " AND plain_out IS NOT NULL), 0),"
        + " coalesce(sum(ceil((plain_in::numeric * ? + cached_in::numeric * ?"
        + " + write_in::numeric * ? + plain_out::numeric * ? + reasoning_out::numeric * ?)"
        + " / 1000000)) FILTER (WHERE NOT cost_estimated AND plain_in IS NOT NULL"
        + " AND plain_out IS NOT NULL), 0),"
        + " count(*) FILTER (WHERE cost_estimated OR plain_in IS NULL OR plain_out IS NULL),"
        + " coalesce(sum(cost_micros) FILTER (WHERE cost_estimated OR plain_in IS NULL"
        + " OR plain_out IS NULL), 0)"
        + " FROM rows";
    String fromText = from == null ? null : from.toString();
    String toText = to == null ? null : to.toString();
    return Sql.inTransaction(jdbi, "re-rating", h -> {
      Connection c = h.getConnection();
      try (PreparedStatement ps = c.prepareStatement(sql)) {
        int p = 1;
        ps.setString(p++, model);
        ps.setString(p++, priceVersion);
        ps.setString(p++, fromText);
        ps.setString(p++, fromText);
        ps.setString(p++, toText);
        ps.setString(p++, toText);
        ps.setLong(p++, corrected.inputPerMillion());
        ps.setLong(p++, corrected.cachedInputPerMillion());
        ps.setLong(p++, corrected.cacheWritePerMillion());
        ps.setLong(p++, corrected.outputPerMillion());
        ps.setLong(p, corrected.reasoningPerMillion());
        try (ResultSet rs = ps.executeQuery()) {
          rs.next();
          return new RerateReport(model, priceVersion, corrected.version(), rs.getLong(1),
              rs.getLong(2), rs.getBigDecimal(3).longValueExact(), rs.getLong(4), rs.getLong(5));
        }
      }
    });
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
      long quarantinedRecords;
      long quarantinedCalls;
      try (PreparedStatement ps = c.prepareStatement("SELECT"
              + " count(*) FILTER (WHERE kind = 'SETTLED_RECORD'),"
              + " count(*) FILTER (WHERE kind = 'INTERRUPTED_CALL')"
              + " FROM pointsman.quarantine WHERE redriven_at IS NULL");
          ResultSet rs = ps.executeQuery()) {
        rs.next();
        quarantinedRecords = rs.getLong(1);
        quarantinedCalls = rs.getLong(2);
      }
      long conflicts = single(c, "SELECT count(*) FROM pointsman.ledger_conflicts"
          + " WHERE resolved_at IS NULL");
      return new ReconciliationReport(acknowledgedResponses, journalBacklog, settled, unknown,
          attested, expired,
          acknowledgedResponses - settled - quarantinedRecords - journalBacklog, cost, charged,
          chargeMismatches, reservationCharged, reservationMismatches, heldCount, heldMicros,
          quarantinedRecords, quarantinedCalls, conflicts);
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
     * Sets the clock that stamps the rows' {@code recorded_at} (and the resolution time of
     * settled and attested rows). Hold windows and expiry run on the database's clock.
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
