package io.pointsman.accounting;

import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.LimitRule;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.spi.Admission;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Journal;
import io.pointsman.spi.Ledger;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.RecoveringAccounting;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageRecord;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The restart protocol and housekeeping of a durable gateway, built by
 * {@code Gateway.builder().journal(journal).ledger(ledger)} and owned (and closed) by the
 * gateway. At build, in this order:
 *
 * <ol>
 *   <li>the journal opens and recovers: settled records not yet in the ledger are handed to it
 *       again, and every call dispatched and never settled is recorded as interrupted (an
 *       {@code UNKNOWN} outcome whose reservation stays held);
 *   <li>once the ledger answers and recovery's records reached it, the budgets are
 *       <em>confirmed</em>: counters in this process are rebuilt from the ledger's settled spend
 *       plus every hold it still has open; shared counters (Redis) are kept, and every instance
 *       adopts a handle to each open hold and ends the hold of each call whose record recovery
 *       replayed. Until then a call under a budget is refused with 503 at
 *       {@code ratelimit.reserve}, rule {@value #UNCONFIRMED_RULE}; other calls are served;
 *   <li>housekeeping runs in the background: the confirmation is retried every second until it
 *       succeeds; every minute the ledger's expired holds are charged and each recovered
 *       reservation the ledger resolved is settled at the ledger's charge; with shared counters,
 *       a heartbeat every 250 ms and, every 10 s, a retry of unconfirmed ends and a sweep of
 *       orphan holds.
 * </ol>
 *
 * <p>With the ledger reachable at build, the confirmation happens before {@code build()}
 * returns (after waiting up to a minute for recovery's records to settle). The journal and the
 * ledger are separate modules that meet only through {@link Journal}, {@link Ledger} and the
 * accounting SPIs. Budget counters take part when the gateway's limiter is a
 * {@link CounterLimiter}; any other limiter is used as it is.
 *
 * <p>Thread-safe.
 */
public final class Durability implements AutoCloseable {
  /** The rule a call under an unconfirmed budget is refused with. */
  public static final String UNCONFIRMED_RULE = "budget.unconfirmed";

  private static final Logger LOG = LoggerFactory.getLogger(Durability.class);
  private static final Duration RECOVERY_DRAIN = Duration.ofSeconds(60);
  private static final Duration CONFIRM_RETRY = Duration.ofSeconds(1);
  private static final long HOLD_HOUSEKEEPING_SECONDS = 60;
  private static final long LIMITER_HOUSEKEEPING_SECONDS = 10;
  private static final long HEARTBEAT_MILLIS = 250;
  private static final Duration SPEND_DRAIN = Duration.ofSeconds(10);

  private final RecoveringAccounting accounting;
  private final Ledger ledger;
  private final CounterLimiter counters;
  private final Limiter limiter;
  private final boolean shared;
  private final List<LimitRule> budgets;
  private final int recoveredInterrupted;
  private final int recoveredReplayed;
  private final Map<String, Reservation> recoveredHolds = new ConcurrentHashMap<>();
  private final ReentrantLock confirmLock = new ReentrantLock();
  private final AtomicBoolean confirmFailureLogged = new AtomicBoolean();
  private final ScheduledExecutorService housekeeping;
  private final ScheduledExecutorService heartbeats;
  private volatile boolean confirmed;
  private volatile ScheduledFuture<?> confirming;
  private volatile boolean closed;

  private Durability(RecoveringAccounting accounting, Ledger ledger, Limiter limiter) {
    this.accounting = accounting;
    this.ledger = ledger;
    this.counters = limiter instanceof CounterLimiter c ? c : null;
    this.shared = counters != null && counters.store().shared();
    this.budgets = counters == null ? List.of() : counters.rules().stream()
        .filter(r -> r.kind() == LimitRule.Kind.BUDGET).toList();
    this.limiter = counters == null ? limiter : new Gate();
    this.recoveredInterrupted = accounting.interrupted().size();
    this.recoveredReplayed = accounting.replayed().size();
    // Without budgets there is nothing to confirm.
    this.confirmed = budgets.isEmpty();
    if (shared) {
      counters.attachLedger(new DrainedLedger());
    }
    this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> daemon(r,
        "pointsman-durability"));
    this.heartbeats = shared ? Executors.newSingleThreadScheduledExecutor(r -> daemon(r,
        "pointsman-counters-heartbeat")) : null;
  }

  /**
   * Opens the journal over the ledger, then runs the restart protocol: confirms the budgets
   * before returning when the ledger answers, else in the background, and starts the
   * housekeeping. The gateway builder calls this; a host does not.
   *
   * @param journal the journal
   * @param ledger the ledger
   * @param limiter the gateway's limiter
   * @return the running protocol; {@link #limiter()} is the limiter the gateway must use
   * @throws NullPointerException if an argument is null
   * @throws RuntimeException if the journal cannot be opened
   */
  public static Durability start(Journal journal, Ledger ledger, Limiter limiter) {
    Objects.requireNonNull(journal, "journal");
    Objects.requireNonNull(ledger, "ledger");
    Objects.requireNonNull(limiter, "limiter");
    boolean reachable = ledger.reachable();
    if (!reachable) {
      LOG.warn("the ledger is not reachable at start; serving calls no budget governs,"
          + " refusing budgeted calls until it answers");
    }
    RecoveringAccounting accounting = Objects.requireNonNull(journal.open(ledger),
        "journal.open returned null");
    Durability d;
    try {
      d = new Durability(accounting, ledger, limiter);
    } catch (RuntimeException | Error e) {
      accounting.close();
      throw e;
    }
    try {
      d.begin(reachable);
    } catch (RuntimeException | Error e) {
      d.close();
      throw e;
    }
    return d;
  }

  private void begin(boolean reachable) {
    // With the ledger reachable, confirm before serving (the counters are right from the first
    // call); otherwise keep trying in the background.
    if (reachable && accounting.awaitDrained(RECOVERY_DRAIN)) {
      try {
        tryConfirm();
      } catch (RuntimeException e) {
        LOG.warn("budgets not confirmed at start ({}); retrying in the background",
            e.getMessage());
      }
    }
    if (!confirmed || recoveryPending()) {
      confirming = housekeeping.scheduleWithFixedDelay(this::confirmInBackground, 0,
          CONFIRM_RETRY.toMillis(), TimeUnit.MILLISECONDS);
    }
    housekeeping.scheduleWithFixedDelay(this::reconcileQuietly, HOLD_HOUSEKEEPING_SECONDS,
        HOLD_HOUSEKEEPING_SECONDS, TimeUnit.SECONDS);
    if (shared) {
      // Registers this instance with the shared counters and reports its live holds to a
      // rebuild of lost counters, which waits for them before admitting anything.
      heartbeats.scheduleWithFixedDelay(this::heartbeat, 0, HEARTBEAT_MILLIS,
          TimeUnit.MILLISECONDS);
      housekeeping.scheduleWithFixedDelay(this::limiterHousekeeping,
          LIMITER_HOUSEKEEPING_SECONDS, LIMITER_HOUSEKEEPING_SECONDS, TimeUnit.SECONDS);
    }
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }

  /**
   * Returns the limiter the gateway admits through: the {@link CounterLimiter} behind the
   * budget gate, or the given limiter unchanged when it is not one.
   *
   * @return the limiter
   */
  public Limiter limiter() {
    return limiter;
  }

  /**
   * Returns the journal's accounting.
   *
   * @return the accounting
   */
  public RecoveringAccounting accounting() {
    return accounting;
  }

  /**
   * Returns the ledger.
   *
   * @return the ledger
   */
  public Ledger ledger() {
    return ledger;
  }

  /**
   * Returns whether the budgets were confirmed against the ledger (before that, calls under a
   * budget are refused with 503).
   *
   * @return true once confirmed
   */
  public boolean confirmed() {
    return confirmed;
  }

  /**
   * Returns how many recovered holds are still held as reservations in the counters.
   *
   * @return the count
   */
  public int recoveredHolds() {
    return recoveredHolds.size();
  }

  /**
   * Returns how many interrupted calls recovery found at start.
   *
   * @return the count
   */
  public int recoveredInterrupted() {
    return recoveredInterrupted;
  }

  /**
   * Returns how many settled records recovery handed to the ledger again at start.
   *
   * @return the count
   */
  public int recoveredReplayed() {
    return recoveredReplayed;
  }

  private void confirmInBackground() {
    try {
      if (tryConfirm()) {
        ScheduledFuture<?> f = confirming;
        if (f != null) {
          f.cancel(false);
        }
      }
    } catch (RuntimeException e) {
      if (confirmFailureLogged.compareAndSet(false, true)) {
        LOG.warn("budgets not confirmed yet ({}); retrying every {} ms", e.getMessage(),
            CONFIRM_RETRY.toMillis());
      }
    }
  }

  /**
   * Confirms the budgets when the ledger answers and recovery's records reached it. Never runs
   * concurrently with itself.
   *
   * @return true when confirmed
   */
  private boolean tryConfirm() {
    confirmLock.lock();
    try {
      if (confirmed && !recoveryPending()) {
        return true;
      }
      if (!ledger.reachable() || recoveryPending()) {
        return false;
      }
      if (!confirmed) {
        Collection<DispatchIntent> unresolved = ledger.unresolvedHolds();
        Map<String, String> eventOfReservation = new HashMap<>();
        for (DispatchIntent i : unresolved) {
          eventOfReservation.put(i.reservationId(), i.eventId());
        }
        // In process, the counters died with the last process: rebuild them. Shared, they
        // kept every hold: adopt handles to them (each resolved once, whichever instance sees
        // it). No budgeted call holds anything yet (the gate refused them), so rebuilding
        // overwrites nothing a running call needs.
        List<Reservation> holds = shared ? counters.adopt(unresolved)
            : counters.rebuild(ledger, unresolved);
        for (Reservation r : holds) {
          recoveredHolds.put(eventOfReservation.get(r.id()), r);
        }
        if (shared) {
          endReplayedHolds();
          try {
            // Shared counters without a generation (a new namespace, or Redis lost them) are
            // rebuilt from the ledger now rather than by the first call.
            counters.budgets();
          } catch (RuntimeException e) {
            LOG.warn("the shared counters cannot be read yet: {}", e.getMessage());
          }
        }
        confirmed = true;
        LOG.info("budgets confirmed against the ledger: {} unresolved holds counted",
            recoveredHolds.size());
      }
      return true;
    } finally {
      confirmLock.unlock();
    }
  }

  /**
   * Ends, in the shared counters, the hold of every call whose usage record recovery replayed:
   * its record was durable before the process died, but its hold may not have been ended in
   * the store yet (the gateway ends it after the record), and the ledger's row being final,
   * neither adoption nor the orphan sweep would ever end it. Ends are exactly once by
   * reservation id in the store, so a hold ended before the crash is not ended again.
   */
  private void endReplayedHolds() {
    int ended = 0;
    for (UsageRecord r : accounting.replayed()) {
      if (r.reservationId() == null || r.heldMicros() <= 0 || r.keyId() == null
          || r.model() == null) {
        continue;
      }
      DispatchIntent intent = DispatchIntent.builder()
          .eventId(r.eventId()).requestId(r.requestId()).attempt(Math.max(1, r.attempts()))
          .keyId(r.keyId()).userId(r.userId()).teamId(r.teamId()).orgId(r.orgId())
          .tags(r.tags()).model(r.model())
          .deploymentId(r.deploymentId() == null ? "unknown" : r.deploymentId())
          .provider("unknown").reservationId(r.reservationId())
          .heldMicros(r.heldMicros()).worstCaseMicros(r.heldMicros())
          .at(r.startedAt()).callStartedAt(r.startedAt())
          .build();
      for (Reservation h : counters.adopt(List.of(intent))) {
        try {
          if (r.attempts() > 0) {
            h.settle(r.costMicros(), r.usage());
          } else {
            h.release();
          }
          ended++;
        } catch (RuntimeException e) {
          LOG.warn("the hold {} of replayed call {} could not be ended yet: {}",
              r.reservationId(), r.eventId(), e.getMessage());
        }
      }
    }
    if (ended > 0) {
      LOG.info("ended the shared holds of {} calls whose records recovery replayed", ended);
    }
  }

  private boolean recoveryPending() {
    return accounting.recoveryPending();
  }

  private void reconcileQuietly() {
    try {
      int left = reconcileHolds();
      if (left > 0) {
        LOG.warn("{} interrupted calls still hold budget awaiting attestation or expiry", left);
      }
    } catch (RuntimeException e) {
      LOG.warn("hold housekeeping failed; retried in {} s: {}", HOLD_HOUSEKEEPING_SECONDS,
          e.getMessage());
    }
  }

  /**
   * Charges the holds whose window ended, then settles every recovered reservation whose hold
   * the ledger resolved (attested or expired, by this process or another) at the ledger's
   * charge. Runs every minute; a host calls it after an attestation to apply it at once.
   *
   * @return how many recovered reservations are still unresolved
   * @throws RuntimeException if the ledger cannot be reached
   */
  public int reconcileHolds() {
    ledger.expireHolds();
    for (Map.Entry<String, Reservation> e : recoveredHolds.entrySet()) {
      OptionalLong charged = ledger.resolvedCharge(e.getKey());
      if (charged.isPresent() && recoveredHolds.remove(e.getKey(), e.getValue())) {
        e.getValue().settle(charged.getAsLong());
      }
    }
    return recoveredHolds.size();
  }

  private void heartbeat() {
    try {
      counters.heartbeat();
    } catch (RuntimeException e) {
      LOG.debug("counters heartbeat failed: {}", e.getMessage());
    }
  }

  /** Retries ends the shared counters did not confirm, and releases orphan holds. */
  private void limiterHousekeeping() {
    try {
      int left = counters.retryPendingEnds();
      if (left > 0) {
        LOG.warn("{} ends of reservations still pending: the shared counters do not answer",
            left);
      }
      if (ledger.reachable()) {
        int swept = counters.sweepOrphanHolds();
        if (swept > 0) {
          LOG.warn("{} orphan holds released from the shared counters", swept);
        }
      }
    } catch (RuntimeException e) {
      LOG.warn("limiter housekeeping failed; retried in {} s: {}", LIMITER_HOUSEKEEPING_SECONDS,
          e.getMessage());
    }
  }

  /**
   * Stops the housekeeping, then closes the journal's accounting (which drains what it can
   * into the ledger) and the ledger. Idempotent.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    housekeeping.shutdownNow();
    if (heartbeats != null) {
      heartbeats.shutdownNow();
    }
    try {
      accounting.close();
    } finally {
      ledger.close();
    }
  }

  /**
   * The counters' limiter, closed for calls under a budget until the budgets are confirmed:
   * before that the counters do not know what was spent, and admitting on them could
   * overspend (fail closed). Calls no budget governs pass through.
   */
  private final class Gate implements Limiter {
    @Override
    public Reservation reserve(Admission admission) {
      if (!confirmed) {
        for (LimitRule r : budgets) {
          if (r.scope().matches(admission)) {
            throw PointsmanException.denied(Status.UNAVAILABLE, Stages.RATELIMIT_RESERVE,
                UNCONFIRMED_RULE, "budget " + r.scope() + " is not confirmed against the"
                    + " ledger yet (ledger unreachable, or recovered records still settling):"
                    + " calls under a budget are refused until it is");
          }
        }
      }
      return counters.reserve(admission);
    }

    @Override
    public String toString() {
      return "Durability.Gate(" + counters + ")";
    }
  }

  /**
   * The ledger as the shared counters' system of record: spend and inclusion read after the
   * journal drained, so they include every record this process made durable.
   */
  private final class DrainedLedger implements SpendSource {
    private void drain() {
      if (!accounting.awaitDrained(SPEND_DRAIN)) {
        LOG.warn("the journal did not drain within {} before the ledger's spend was read",
            SPEND_DRAIN);
      }
    }

    @Override
    public long spent(Scope scope, Instant from, Instant to) {
      drain();
      return ledger.spent(scope, from, to);
    }

    @Override
    public long spentExcluding(Scope scope, Instant from, Instant to,
        java.util.Set<String> reservationIds) {
      drain();
      return ledger.spentExcluding(scope, from, to, reservationIds);
    }

    @Override
    public Collection<DispatchIntent> unresolvedHolds() {
      return ledger.unresolvedHolds();
    }

    @Override
    public boolean includes(String reservationId) {
      drain();
      return ledger.includes(reservationId);
    }

    @Override
    public java.util.OptionalLong resolvedCharge(String reservationId) {
      return ledger.resolvedCharge(reservationId);
    }
  }
}
