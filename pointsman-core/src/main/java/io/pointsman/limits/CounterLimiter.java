package io.pointsman.limits;

import io.pointsman.Clock;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.spi.Admission;
import io.pointsman.spi.Counter;
import io.pointsman.spi.CounterGrant;
import io.pointsman.spi.CounterHold;
import io.pointsman.spi.CounterReading;
import io.pointsman.spi.CounterRebuild;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.CounterStoreStaleException;
import io.pointsman.spi.CounterStoreUnavailableException;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.LimitRemaining;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Limiter} over a {@link CounterStore}: it matches a call's rules (budgets over
 * periods, concurrency, requests and tokens per minute, per key, team, org, tag, model or
 * globally), sizes the counters and has the store take all of them at once, or none. With an
 * {@link InProcessCounterStore} the counters live in this process; with a shared store (Redis)
 * several gateway instances enforce one set of limits.
 *
 * <p>A budget holds the call's worst case in the period that contains the call's start;
 * settlement charges the actual cost to that period and frees the rest. Requests per minute
 * count each admitted call; tokens per minute count its input bound plus output cap.
 *
 * <p>Every store operation carries an id (the reservation id for the hold and for its end, an
 * id per extension). When a reply is lost the limiter retries with the same id, so a shared
 * store applies each operation once ({@link Builder#storeAttempts}). An end the store does not
 * confirm within those attempts is kept pending, counted ({@link #endAlerts()}), logged at
 * ERROR and retried later ({@link #retryPendingEnds()}); the handle counts as ended only once
 * the store applied its end or it is pending.
 *
 * <p>When the store cannot be reached the limiter fails closed by default (a
 * {@link LimitsUnavailableException}, 503); with {@link Builder#failOpen(boolean)} it admits
 * the call without limits, and that call's spend reaches the counters when it ends (pending
 * until the store answers). Both are counted ({@link #storeUnavailable()},
 * {@link #failedOpen()}). When a shared store lost its data (its generation marker is gone)
 * the limiter always refuses, or, with a {@link Builder#ledger ledger}, rebuilds the counters
 * from it first: one instance rebuilds under the store's lock while the others refuse.
 *
 * <p>Thread-safe; admissions take no lock of the limiter's own.
 *
 * <pre>{@code
 * CounterLimiter limiter = CounterLimiter.builder(new InProcessCounterStore())
 *     .budget(Scope.team("t1"), Period.monthly(ZoneId.of("Europe/Berlin")), 50_000_000)
 *     .requestsPerMinute(Scope.key("key-1"), 600)
 *     .concurrency(Scope.org("acme"), 32)
 *     .clock(clock)
 *     .build();
 * }</pre>
 */
public final class CounterLimiter implements Limiter {
  private static final class Window {
    final long startMillis;
    final long endMillis;
    final String key;

    Window(long startMillis, long endMillis, String key) {
      this.startMillis = startMillis;
      this.endMillis = endMillis;
      this.key = key;
    }
  }

  private static final class Rule {
    final LimitRule rule;
    final String name;
    final String denial;
    volatile Window window;

    Rule(LimitRule rule) {
      this.rule = rule;
      this.name = rule.name();
      this.denial = rule.scope().toString();
    }

    Window window(Instant at) {
      long t = at.toEpochMilli();
      Window w = window;
      if (w != null && t >= w.startMillis && (w.endMillis == 0 || t < w.endMillis)) {
        return w;
      }
      Period p = rule.period();
      Instant start = p.start(at);
      Instant end = p.end(at);
      w = new Window(start.toEpochMilli(), end == null ? 0 : end.toEpochMilli(),
          end == null ? name : name + ":" + start.getEpochSecond());
      window = w;
      return w;
    }

    Counter counter(Instant at, long amount, long leaseMillis) {
      return switch (rule.kind()) {
        case BUDGET -> {
          Window w = window(at);
          yield Counter.budget(w.key, rule.limit(), amount, w.endMillis);
        }
        case CONCURRENCY -> Counter.concurrency(name, rule.limit(), leaseMillis);
        case REQUESTS_PER_MINUTE, TOKENS_PER_MINUTE -> Counter.rate(name, rule.limit(), amount,
            60_000L);
      };
    }
  }

  private static final Logger LOG = LoggerFactory.getLogger(CounterLimiter.class);
  private static final int OPEN = 0;
  private static final int ENDING = 1;
  private static final int ENDED = 2;
  private static final int SWEEP_BATCH = 1_000;
  private static final int DRAIN_BATCH = 256;

  /** An end the store has not confirmed yet: retried with the same reservation id. */
  private record Pending(String id, List<Counter> counters, long charge) {}

  private final List<Rule> rules;
  private final CounterStore store;
  private final Clock clock;
  private final boolean failOpen;
  private final long leaseMillis;
  private final int attempts;
  private volatile SpendSource ledger;
  private final long holdLeaseMillis;
  private final long rebuildLockMillis;
  private final long pendingRetryNanos;
  private final LongAdder unavailable = new LongAdder();
  private final LongAdder failedOpen = new LongAdder();
  private final LongAdder endAlerts = new LongAdder();
  private final LongAdder staleRefusals = new LongAdder();
  private final LongAdder rebuilds = new LongAdder();
  private final LongAdder swept = new LongAdder();
  private final LongAdder settledFromLedger = new LongAdder();
  private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
  private final AtomicInteger pendingCount = new AtomicInteger();
  private final AtomicBoolean draining = new AtomicBoolean();
  /** Pending ends whose charge a rebuild read from the ledger: ended without charging again. */
  private volatile long lastDrainNanos;
  /** Live reservations of this process, kept only for a shared store (orphan sweep, reassert). */
  private final ConcurrentHashMap<String, Held> live;
  private final ReentrantLock rebuildLock = new ReentrantLock();
  private volatile String knownGeneration;
  private final long heartbeatTtlMillis;
  /** Admissions hold it shared from the store's grant until the hold is tracked. */
  private final ReentrantReadWriteLock admitLock = new ReentrantReadWriteLock();
  private final Object beatLock = new Object();
  /** The rebuild this process last reported its live holds to. */
  private String reported;

  private CounterLimiter(Builder b) {
    List<Rule> list = new ArrayList<>(b.rules.size());
    for (LimitRule r : b.rules) {
      list.add(new Rule(r));
    }
    this.rules = List.copyOf(list);
    this.store = b.store;
    this.clock = b.clock;
    this.failOpen = b.failOpen;
    this.leaseMillis = b.lease.toMillis();
    this.attempts = b.attempts;
    this.ledger = b.ledger;
    this.holdLeaseMillis = b.holdLease.toMillis();
    this.rebuildLockMillis = b.rebuildLock.toMillis();
    this.pendingRetryNanos = b.pendingRetry.toNanos();
    this.lastDrainNanos = clock.nanoTime() - pendingRetryNanos;
    this.live = store.shared() ? new ConcurrentHashMap<>() : null;
    this.knownGeneration = store.observedGeneration();
    this.heartbeatTtlMillis = b.heartbeatTimeout.toMillis();
  }

  /**
   * Sets the ledger this limiter rebuilds lost shared counters from and keeps holds for in its
   * orphan sweep, when the builder did not set one ({@link Builder#ledger}). A durable gateway
   * calls this at build with its ledger, read after the journal drained, so that a host names
   * the ledger once. Idempotent for the same source.
   *
   * @param source the ledger
   * @return true if this source is now the ledger; false if the builder set another one, which
   *     is kept
   * @throws NullPointerException if source is null
   */
  public synchronized boolean attachLedger(SpendSource source) {
    Objects.requireNonNull(source, "source");
    if (ledger == null) {
      ledger = source;
    }
    return ledger == source;
  }

  /**
   * Returns a builder over a store.
   *
   * @param store where the counters live
   * @return an empty builder
   * @throws NullPointerException if store is null
   */
  public static Builder builder(CounterStore store) {
    return new Builder(Objects.requireNonNull(store, "store"));
  }

  @Override
  public Reservation reserve(Admission admission) {
    List<Rule> matched = null;
    List<Counter> counters = null;
    long hold = admission.worstCaseMicros();
    boolean anyBudget = false;
    for (Rule rule : rules) {
      if (!rule.rule.scope().matches(admission)) {
        continue;
      }
      if (matched == null) {
        matched = new ArrayList<>(4);
        counters = new ArrayList<>(4);
      }
      long amount;
      switch (rule.rule.kind()) {
        case BUDGET -> {
          amount = hold;
          anyBudget = true;
        }
        case TOKENS_PER_MINUTE -> amount = tokens(admission);
        default -> amount = 1;
      }
      if (amount > Counter.MAX_VALUE) {
        throw PointsmanException.badRequest(Stages.RATELIMIT_RESERVE, "the call's "
            + rule.rule.kind().unit() + " (" + amount + ") exceed what a limit can count");
      }
      matched.add(rule);
      counters.add(rule.counter(admission.at(), amount, leaseMillis));
    }
    if (matched == null) {
      return Reservation.none(admission.eventId());
    }
    String id = admission.eventId();
    CounterGrant grant;
    ReentrantReadWriteLock.ReadLock admitting = live == null ? null : admitLock.readLock();
    try {
      grant = acquire(id, counters, admitting);
    } catch (CounterStoreStaleException e) {
      unavailable.increment();
      staleRefusals.increment();
      throw new LimitsUnavailableException("limit counters are stale and the call is refused"
          + " (fail closed) until they are rebuilt from the ledger: " + e.getMessage(), e);
    } catch (CounterStoreUnavailableException e) {
      unavailable.increment();
      if (failOpen) {
        // Admitted without limits; its end still reaches the store (the spend, and the release
        // of a hold whose acquire applied although its reply was lost).
        failedOpen.increment();
        Held open = new Held(this, id, List.of(), counters, null, 0, false);
        track(open);
        return open;
      }
      if (e.outcomeUnknown()) {
        // The hold may have been applied: release it by id once the store answers again.
        queue(new Pending(id, counters, -1), e);
      }
      throw new LimitsUnavailableException("limit counters are unavailable, the call is refused"
          + " (fail closed): " + e.getMessage(), e);
    }
    Held held;
    try {
      if (!grant.granted()) {
        throw denial(matched.get(grant.denied()), grant.remaining(grant.denied()),
            counters.get(grant.denied()).amount());
      }
      held = new Held(this, id, matched, counters, grant, anyBudget ? hold : 0, anyBudget);
      track(held);
    } finally {
      if (admitting != null) {
        admitting.unlock();
      }
    }
    if (pendingCount.get() > 0) {
      drainSoon();
    }
    return held;
  }

  /** Keeps a live reservation of a shared store; counts live holds again after a rebuild. */
  private void track(Held held) {
    if (live == null) {
      return;
    }
    // The acquire's reply may have shown a new generation: count the others first.
    generationChanged();
    live.put(held.id, held);
  }

  /** Counts every live hold again under the current generation (each once). */
  private void reassertLive() {
    long now = clock.now().toEpochMilli();
    int counted = 0;
    for (Held h : live.values()) {
      if (h.unheld || h.state != OPEN) {
        continue;
      }
      try {
        if (store.reassert(h.id, h.counters, now)) {
          counted++;
        }
      } catch (CounterStoreUnavailableException e) {
        LOG.warn("live hold {} could not be counted again after a rebuild: {}", h.id,
            e.getMessage());
      }
    }
    if (counted > 0) {
      LOG.warn("the shared counters were rebuilt (generation {}): {} live holds of this process"
          + " counted again", knownGeneration, counted);
    }
  }

  /** Acquires with the same reservation id until a reply arrives, rebuilding stale counters. */
  private CounterGrant acquire(String id, List<Counter> counters,
      ReentrantReadWriteLock.ReadLock admitting) {
    if (live != null) {
      // Another reply (an end, a read) may have shown a generation this process has not
      // counted its live holds under yet: do that before admitting anything more.
      generationChanged();
    }
    for (int attempt = 1; ; attempt++) {
      CounterStoreUnavailableException failure;
      // Held from the grant until the caller tracked the hold, so that a report of live holds
      // to a rebuild never misses a hold granted and not yet tracked.
      if (admitting != null) {
        admitting.lock();
      }
      try {
        return store.acquire(id, counters, clock.now().toEpochMilli(), clock.nanoTime() / 1000);
      } catch (CounterStoreUnavailableException e) {
        failure = e;
        if (admitting != null) {
          admitting.unlock();
        }
      } catch (RuntimeException | Error e) {
        if (admitting != null) {
          admitting.unlock();
        }
        throw e;
      }
      try {
        throw failure;
      } catch (CounterStoreStaleException e) {
        if (generationChanged()) {
          // Rebuilt by another instance: count this process's live holds before admitting.
          continue;
        }
        if (attempt >= attempts || !rebuildIfStale()) {
          throw e;
        }
      } catch (CounterStoreUnavailableException e) {
        if (attempt >= attempts) {
          throw e;
        }
      }
    }
  }

  /** Notices a generation another instance committed, and counts live holds again under it. */
  private boolean generationChanged() {
    String seen = store.observedGeneration();
    if (seen == null || seen.equals(knownGeneration)) {
      return false;
    }
    knownGeneration = seen;
    if (live != null) {
      reassertLive();
    }
    return true;
  }

  private static long tokens(Admission a) {
    try {
      return Math.addExact(a.inputTokens(), a.maxOutputTokens());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  private static PointsmanException denial(Rule rule, long available, long amount) {
    LimitRule r = rule.rule;
    return switch (r.kind()) {
      case BUDGET -> PointsmanException.denied(Status.PAYMENT_REQUIRED, Stages.RATELIMIT_RESERVE,
          rule.name, "budget " + rule.denial + " (" + r.period().label() + ") exhausted: "
              + available + " of " + r.limit() + " micro-units available, this call may cost"
              + " up to " + amount);
      case CONCURRENCY -> PointsmanException.denied(Status.TOO_MANY_REQUESTS,
          Stages.RATELIMIT_RESERVE, rule.name, "concurrency limit " + rule.denial
              + " reached: " + r.limit() + " calls in flight");
      case REQUESTS_PER_MINUTE, TOKENS_PER_MINUTE -> PointsmanException.denied(
          Status.TOO_MANY_REQUESTS, Stages.RATELIMIT_RESERVE, rule.name, "rate limit "
              + rule.name + " reached: " + available + " of " + r.limit() + " "
              + r.kind().unit() + " per minute available, this call needs " + amount);
    };
  }

  /**
   * Returns the rules, in registration order.
   *
   * @return the rules
   */
  public List<LimitRule> rules() {
    List<LimitRule> out = new ArrayList<>(rules.size());
    for (Rule r : rules) {
      out.add(r.rule);
    }
    return out;
  }

  /**
   * Returns the store.
   *
   * @return the counter store
   */
  public CounterStore store() {
    return store;
  }

  /**
   * Returns the counters of the first budget on a scope (in registration order), in the period
   * that contains the clock's now. Stale counters are rebuilt first when a ledger is set.
   *
   * @param scope the budget's scope
   * @return the state, or {@code null} when no budget has that scope
   * @throws CounterStoreUnavailableException if the store cannot be reached or is stale
   */
  public BudgetState budget(Scope scope) {
    Instant now = clock.now();
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.BUDGET && r.rule.scope().equals(scope)) {
        return state(r, now);
      }
    }
    return null;
  }

  /**
   * Returns every budget's counters in the period that contains the clock's now, by rule name.
   *
   * @return the states, in registration order
   * @throws CounterStoreUnavailableException if the store cannot be reached or is stale
   */
  public Map<String, BudgetState> budgets() {
    Instant now = clock.now();
    Map<String, BudgetState> out = new LinkedHashMap<>();
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.BUDGET) {
        out.put(r.name, state(r, now));
      }
    }
    return out;
  }

  private BudgetState state(Rule r, Instant now) {
    CounterReading c = read(r.counter(now, 0, leaseMillis));
    return new BudgetState(r.rule.scope(), r.rule.limit(), c.spentMicros(), c.heldMicros());
  }

  private CounterReading read(Counter counter) {
    try {
      return store.read(counter);
    } catch (CounterStoreStaleException e) {
      if (!rebuildIfStale()) {
        throw e;
      }
      return store.read(counter);
    }
  }

  /**
   * Returns the calls in flight under the first concurrency limit on a scope.
   *
   * @param scope the limit's scope
   * @return the count, or -1 when no concurrency limit has that scope
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public long inflight(Scope scope) {
    for (Rule r : rules) {
      if (r.rule.kind() == LimitRule.Kind.CONCURRENCY && r.rule.scope().equals(scope)) {
        return read(r.counter(Instant.EPOCH, 1, leaseMillis)).inFlight();
      }
    }
    return -1;
  }

  /**
   * Returns how often the store could not be reached (by reserve, extend, settle or release,
   * counting an operation once however often it was retried).
   *
   * @return the count
   */
  public long storeUnavailable() {
    return unavailable.sum();
  }

  /**
   * Returns how many calls were admitted without limits because the store could not be
   * reached and the limiter fails open.
   *
   * @return the count
   */
  public long failedOpen() {
    return failedOpen.sum();
  }

  /**
   * Returns how many calls were refused because the shared counters were stale (lost and not
   * yet rebuilt).
   *
   * @return the count
   */
  public long staleRefusals() {
    return staleRefusals.sum();
  }

  /**
   * Returns how many ends (and releases of acquires whose outcome was unknown) the store did
   * not confirm within the retries and were kept pending: the alert counter. Each one was
   * logged at ERROR.
   *
   * @return the count, never decreasing
   */
  public long endAlerts() {
    return endAlerts.sum();
  }

  /**
   * Returns how many ends are pending now, waiting for the store to answer.
   *
   * @return the count
   */
  public int pendingEnds() {
    return pendingCount.get();
  }

  /**
   * Returns how often this limiter rebuilt stale counters from its ledger.
   *
   * @return the count
   */
  public long rebuilds() {
    return rebuilds.sum();
  }

  /**
   * Returns how many orphan holds this limiter's sweeps released.
   *
   * @return the count
   */
  public long sweptHolds() {
    return swept.sum();
  }

  /**
   * Retries every pending end once, in order, with its original reservation id (so an end the
   * store applied but whose reply was lost is not applied twice); stops at the first that still
   * fails. The limiter also calls this itself, at most once per
   * {@link Builder#pendingRetryInterval}, after an admission succeeds while ends are pending;
   * a host may call it from a timer as well.
   *
   * @return how many ends are still pending
   */
  public int retryPendingEnds() {
    return drain(pendingCount.get(), true);
  }

  private void drainSoon() {
    long t = clock.nanoTime();
    if (t - lastDrainNanos < pendingRetryNanos || !draining.compareAndSet(false, true)) {
      return;
    }
    try {
      lastDrainNanos = t;
      drain(Math.min(DRAIN_BATCH, pendingCount.get()), false);
    } catch (RuntimeException e) {
      LOG.warn("retrying pending ends failed", e);
    } finally {
      draining.set(false);
    }
  }

  private int drain(int max, boolean warn) {
    for (int i = 0; i < max; i++) {
      Pending p = pending.poll();
      if (p == null) {
        break;
      }
      try {
        endOnStore(p.id, p.counters, p.charge, 1);
        pendingCount.decrementAndGet();
        LOG.info("pending end of reservation {} applied", p.id);
      } catch (CounterStoreUnavailableException e) {
        pending.add(p);
        if (warn) {
          LOG.warn("{} ends still pending: the store did not answer ({})", pendingCount.get(),
              e.getMessage());
        }
        break;
      }
    }
    return pendingCount.get();
  }

  private void queue(Pending p, CounterStoreUnavailableException cause) {
    pending.add(p);
    pendingCount.incrementAndGet();
    endAlerts.increment();
    LOG.error("reservation {} could not be {} after {} attempts; kept pending and retried with"
        + " the same id when the store answers ({} pending): {}", p.id,
        p.charge < 0 ? "released" : "settled", attempts, pendingCount.get(),
        cause.getMessage());
  }

  /** Ends on the store with the same id until a reply arrives; stale counters are rebuilt. */
  private void endOnStore(String id, List<Counter> counters, long charge, int tries) {
    for (int attempt = 1; ; attempt++) {
      try {
        store.end(id, counters, charge, clock.now().toEpochMilli());
        return;
      } catch (CounterStoreStaleException e) {
        if (attempt >= Math.max(2, tries) || !rebuildIfStale()) {
          throw e;
        }
      } catch (CounterStoreUnavailableException e) {
        if (attempt >= tries) {
          throw e;
        }
      }
    }
  }

  /** Ends a handle: applied, or queued as pending; only then is the handle ended. */
  private void finish(Held h, long charge) {
    try {
      endOnStore(h.id, h.counters, charge, attempts);
    } catch (CounterStoreUnavailableException e) {
      unavailable.increment();
      queue(new Pending(h.id, h.counters, charge), e);
    } catch (RuntimeException | Error e) {
      STATE.set(h, OPEN);
      throw e;
    }
    STATE.set(h, ENDED);
    if (live != null) {
      live.remove(h.id, h);
    }
  }

  private boolean extendOnStore(Held h, String op, long additional) {
    for (int attempt = 1; ; attempt++) {
      try {
        return store.extend(h.id, op, h.counters, additional, clock.now().toEpochMilli());
      } catch (CounterStoreStaleException e) {
        if (attempt >= attempts || !rebuildIfStale()) {
          unavailable.increment();
          LOG.warn("reservation {} not extended: counters are stale ({})", h.id,
              e.getMessage());
          return false;
        }
      } catch (CounterStoreUnavailableException e) {
        if (attempt >= attempts) {
          unavailable.increment();
          LOG.warn("reservation {} not extended: the store did not answer after {} attempts"
              + " ({})", h.id, attempts, e.getMessage());
          return false;
        }
      }
    }
  }

  /**
   * Registers this instance with a shared store for the heartbeat timeout
   * ({@link Builder#heartbeatTimeout}) and, when a rebuild of lost counters is waiting for the
   * instances' live holds, reports this process's live holds to it (and counts those of its
   * pending ends the ledger already has as charged by it), so that the rebuilt counters
   * contain them before anything is admitted against them. Call it from a timer, at least
   * every quarter of the heartbeat timeout (the facade calls it every 250 ms); a process that
   * does not is not waited for. Does nothing for a store in the process.
   */
  public void heartbeat() {
    if (live == null) {
      return;
    }
    try {
      beat();
    } catch (CounterStoreUnavailableException e) {
      LOG.debug("heartbeat not delivered: {}", e.getMessage());
    }
    generationChanged();
  }

  private void beat() {
    synchronized (beatLock) {
      String waiting = store.heartbeat(heartbeatTtlMillis, null, List.of());
      if (waiting == null || waiting.equals(reported)) {
        return;
      }
      admitLock.writeLock().lock();
      try {
        // Every hold whose end is still to come: live calls, and ends kept pending. The
        // rebuild restores them and leaves their charges out of the spend it reads, since each
        // end adds its own charge.
        List<CounterHold> holds = new ArrayList<>();
        for (Held h : live.values()) {
          // An ending hold too: its end waits on the stale store and applies after the commit.
          if (!h.unheld && h.anyBudget && h.state != ENDED) {
            holds.add(new CounterHold(h.id, "", 0, h.counters));
          }
        }
        for (Pending p : pending) {
          holds.add(new CounterHold(p.id, "", 0, p.counters));
        }
        store.heartbeat(heartbeatTtlMillis, waiting, holds);
        reported = waiting;
        LOG.warn("the shared counters are being rebuilt: {} live holds of this process"
            + " reported to the rebuild", holds.size());
      } finally {
        admitLock.writeLock().unlock();
      }
    }
  }

  /** Waits until every live instance reported its live holds to a rebuild (fail closed). */
  private List<CounterHold> awaitLiveHolds(CounterRebuild r) {
    long deadline = System.nanoTime() + rebuildLockMillis * 500_000L;
    while (true) {
      beat();
      List<CounterHold> holds = r.liveHolds(heartbeatTtlMillis);
      if (holds != null) {
        return holds;
      }
      if (System.nanoTime() > deadline) {
        throw new CounterStoreStaleException("the rebuild of the shared counters gave up: not"
            + " every live instance reported its live holds within half the rebuild lock");
      }
      try {
        Thread.sleep(Math.max(10, Math.min(100, heartbeatTtlMillis / 8)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new CounterStoreStaleException("interrupted while the rebuild waited for the"
            + " instances' live holds");
      }
    }
  }

  /**
   * Rebuilds stale counters from the ledger when one is set: one thread of this process, and
   * one instance across all (the store's lock), rebuilds; the others refuse meanwhile.
   *
   * @return true when the counters were rebuilt here or found rebuilt
   */
  private boolean rebuildIfStale() {
    if (ledger == null || !rebuildLock.tryLock()) {
      return false;
    }
    try {
      CounterRebuild r = store.beginRebuild(rebuildLockMillis, true);
      if (r == null) {
        // Rebuilt meanwhile, or another instance holds the lock: the caller tries once more.
        return true;
      }
      try (r) {
        // Every live instance's holds still to end (this one's included), reported before the
        // spend is read.
        List<CounterHold> others = awaitLiveHolds(r);
        Instant now = clock.now();
        Collection<DispatchIntent> holds = ledger.unresolvedHolds();
        int recovered = holds(r, ledger, holds, others, now).size();
        r.commit();
        rebuilds.increment();
        LOG.warn("the shared limit counters were stale (lost by the store); rebuilt from the"
            + " ledger with {} unresolved holds", recovered);
      }
    } finally {
      rebuildLock.unlock();
    }
    knownGeneration = store.observedGeneration();
    if (live != null) {
      reassertLive();
    }
    return true;
  }

  /**
   * Ends holds in a shared store that no live call of this process explains and that are older
   * than the hold lease ({@link Builder#holdLease}, measured on the store's clock): a hold whose
   * call the configured ledger resolved ({@link SpendSource#resolvedCharge}) is settled with the
   * ledger's charge (a hold a rebuild restored for an instance that died before ending it: the
   * rebuild left its charge out of the spend, so releasing it would lose that charge); a hold
   * the ledger neither has open ({@link SpendSource#unresolvedHolds}) nor resolved is released
   * as an orphan. Run it every few minutes on one or every instance.
   *
   * @return how many holds this sweep ended (settled from the ledger or released)
   * @throws IllegalStateException if no ledger is set
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public int sweepOrphanHolds() {
    if (ledger == null) {
      throw new IllegalStateException("no ledger is set: pass the reservation ids it knows");
    }
    if (live == null) {
      return 0;
    }
    Set<String> known = new HashSet<>();
    for (DispatchIntent i : ledger.unresolvedHolds()) {
      known.add(i.reservationId());
    }
    return sweep(known::contains, ledger);
  }

  /**
   * Returns how many holds the orphan sweep settled with the ledger's charge because their
   * call was resolved while the store still held them.
   *
   * @return the count since start
   */
  public long holdsSettledFromLedger() {
    return settledFromLedger.sum();
  }

  /**
   * Releases holds in a shared store older than the hold lease that {@code knownToLedger}
   * does not name and that no live call (or pending end) of this process holds. A hold
   * released this way whose owner is alive after all is charged, not released again, when
   * that owner settles it.
   *
   * @param knownToLedger true for a reservation id the ledger still has open
   * @return how many holds this sweep released
   * @throws NullPointerException if knownToLedger is null
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public int sweepOrphanHolds(Predicate<String> knownToLedger) {
    Objects.requireNonNull(knownToLedger, "knownToLedger");
    return sweep(knownToLedger, null);
  }

  /**
   * The sweep: holds older than the lease that {@code knownToLedger} does not name and no live
   * call or pending end of this process holds are settled with the ledger's charge when
   * {@code resolved} (may be null) has one, else released.
   */
  private int sweep(Predicate<String> knownToLedger, SpendSource resolved) {
    if (live == null) {
      return 0;
    }
    Set<String> pendingIds = new HashSet<>();
    for (Pending p : pending) {
      pendingIds.add(p.id);
    }
    int n = 0;
    for (CounterHold h : store.holdsOlderThan(holdLeaseMillis, SWEEP_BATCH)) {
      String id = h.reservationId();
      if (knownToLedger.test(id) || live.containsKey(id) || pendingIds.contains(id)) {
        continue;
      }
      java.util.OptionalLong charged = resolved == null ? java.util.OptionalLong.empty()
          : resolved.resolvedCharge(id);
      if (charged.isPresent()) {
        // Once by id: an owner whose end arrives later changes nothing.
        store.end(id, h.counters(), charged.getAsLong(), clock.now().toEpochMilli());
        n++;
        settledFromLedger.increment();
        LOG.warn("settled hold {} (owner {}, taken at {}) with the ledger's charge of {}: its"
            + " call was resolved and no live call holds it", id, h.owner(),
            Instant.ofEpochMilli(h.createdAtMillis()), charged.getAsLong());
      } else if (store.sweep(h, holdLeaseMillis)) {
        n++;
        LOG.warn("released orphan hold {} (owner {}, taken at {}): no ledger row and no live"
            + " call holds it", id, h.owner(), Instant.ofEpochMilli(h.createdAtMillis()));
      }
    }
    swept.add(n);
    return n;
  }

  /**
   * Rebuilds every budget's counters for the current period from the system of record, under
   * the store's rebuild lock: spent is what {@code spend} reports for the period, held is the
   * sum of the holds of calls that were dispatched and never settled (the journal's
   * interrupted calls, or the ledger's unresolved holds) whose call started in the period. The
   * counters are overwritten and, in a shared store, a new generation begins: an end of a hold
   * taken before only charges. Call this at start, before any reservation, on a store that
   * lost its counters (always for the in-process store; a shared store is rebuilt by the
   * limiter itself when it finds it stale and a ledger is set).
   *
   * <p>Each recovered hold comes back as a {@link Reservation}: settle it with the charge the
   * ledger finally assigns (attested or expired) or release it, exactly once.
   *
   * @param spend where settled spend is read
   * @param held the dispatch intents of calls that never settled
   * @return one reservation per recovered hold that matched a budget in its current period
   * @throws NullPointerException if an argument is null
   * @throws LimitsUnavailableException if another rebuild holds the store's lock
   * @throws CounterStoreUnavailableException if the store cannot be reached
   */
  public List<Reservation> rebuild(SpendSource spend, Collection<DispatchIntent> held) {
    Objects.requireNonNull(spend, "spend");
    Objects.requireNonNull(held, "held");
    List<Reservation> out;
    rebuildLock.lock();
    try {
      CounterRebuild r = store.beginRebuild(rebuildLockMillis, false);
      if (r == null) {
        throw new LimitsUnavailableException("another instance is rebuilding the limit counters",
            null);
      }
      try (r) {
        out = holds(r, spend, held, List.of(), clock.now());
        r.commit();
      }
    } finally {
      rebuildLock.unlock();
    }
    rebuilds.increment();
    knownGeneration = store.observedGeneration();
    if (live != null) {
      reassertLive();
      for (Reservation h : out) {
        live.put(h.id(), (Held) h);
      }
    }
    return out;
  }

  /**
   * Returns a handle to each hold that a shared store still keeps for calls interrupted in
   * another process (or an earlier run of this one), without changing any counter: the shared
   * counters kept the holds when that process died. Every end is exactly once by reservation
   * id in the store, so when several instances adopt the same hold and all try to resolve it,
   * exactly one settle or release applies. Only holds that match a budget in its current
   * period come back.
   *
   * @param held the dispatch intents of calls that never settled (the ledger's unresolved
   *     holds)
   * @return one reservation per adopted hold
   * @throws NullPointerException if held is null
   */
  public List<Reservation> adopt(Collection<DispatchIntent> held) {
    Objects.requireNonNull(held, "held");
    List<Reservation> out = holds(null, null, held, List.of(), clock.now());
    if (live != null) {
      for (Reservation h : out) {
        live.put(h.id(), (Held) h);
      }
    }
    return out;
  }

  /** Rebuilds (a rebuild given: counters overwritten) or adopts (null: counters kept). */
  private List<Reservation> holds(CounterRebuild rebuild, SpendSource spend,
      Collection<DispatchIntent> held, List<CounterHold> reported, Instant now) {
    Set<String> ledgerIds = new HashSet<>();
    for (DispatchIntent i : held) {
      ledgerIds.add(i.reservationId());
    }
    // Each reported hold's end adds its own charge to the rebuilt counters: a charge the ledger
    // already has for one (its record settled before the end reached the store) stays out of
    // the spend read, or it would be counted twice.
    Set<String> toEnd = new HashSet<>();
    for (CounterHold h : reported) {
      toEnd.add(h.reservationId());
    }
    // Live holds the instances reported, except those the ledger's holds already count.
    List<CounterHold> liveHolds = new ArrayList<>();
    for (CounterHold h : reported) {
      if (!ledgerIds.contains(h.reservationId())) {
        liveHolds.add(h);
      }
    }
    Map<DispatchIntent, List<Counter>> holds = new LinkedHashMap<>();
    Map<DispatchIntent, List<Rule>> holdRules = new LinkedHashMap<>();
    for (Rule r : rules) {
      if (r.rule.kind() != LimitRule.Kind.BUDGET) {
        continue;
      }
      Period p = r.rule.period();
      Instant from = p.start(now);
      Instant to = p.end(now);
      Window w = r.window(now);
      long heldSum = 0;
      for (DispatchIntent i : held) {
        if (i.heldMicros() > 0 && r.rule.scope().matches(i.keyId(), i.teamId(), i.orgId(),
            i.tags(), i.model()) && !i.callStartedAt().isBefore(from)
            && (to == null || i.callStartedAt().isBefore(to))) {
          heldSum = Math.addExact(heldSum, i.heldMicros());
          holds.computeIfAbsent(i, k -> new ArrayList<>())
              .add(Counter.budget(w.key, r.rule.limit(), i.heldMicros(), w.endMillis));
          holdRules.computeIfAbsent(i, k -> new ArrayList<>()).add(r);
        }
      }
      for (CounterHold h : liveHolds) {
        for (Counter c : h.counters()) {
          if (c.type() == Counter.Type.BUDGET && c.key().equals(w.key)) {
            heldSum = Math.addExact(heldSum, c.amount());
          }
        }
      }
      if (rebuild != null) {
        rebuild.restore(Counter.budget(w.key, r.rule.limit(), 0, w.endMillis),
            spend.spentExcluding(r.rule.scope(), from, to, toEnd), heldSum,
            now.toEpochMilli());
      }
    }
    if (rebuild != null) {
      for (CounterHold h : liveHolds) {
        List<Counter> budgets = new ArrayList<>();
        for (Counter c : h.counters()) {
          if (c.type() == Counter.Type.BUDGET) {
            budgets.add(c);
          }
        }
        rebuild.hold(h.reservationId(), budgets, now.toEpochMilli());
      }
    }
    List<Reservation> out = new ArrayList<>(holds.size());
    for (Map.Entry<DispatchIntent, List<Counter>> e : holds.entrySet()) {
      List<Counter> cs = e.getValue();
      String id = e.getKey().reservationId();
      if (rebuild != null) {
        rebuild.hold(id, cs, now.toEpochMilli());
      }
      long[] zeros = new long[cs.size()];
      out.add(new Held(this, id, holdRules.get(e.getKey()), cs,
          CounterGrant.of(-1, zeros, zeros.clone()), e.getKey().heldMicros(), true));
    }
    return out;
  }

  private static final AtomicIntegerFieldUpdater<Held> STATE =
      AtomicIntegerFieldUpdater.newUpdater(Held.class, "state");

  private static final class Held implements Reservation {
    private final CounterLimiter limiter;
    private final String id;
    private final List<Rule> rules;
    /** The counters, with every confirmed extension added to the budgets' amounts. */
    private volatile List<Counter> counters;
    /** Null when admitted without limits (fail open). */
    private final CounterGrant grant;
    private volatile long hold;
    private final boolean anyBudget;
    private final boolean unheld;
    private int extensions;
    volatile int state;

    Held(CounterLimiter limiter, String id, List<Rule> rules, List<Counter> counters,
        CounterGrant grant, long hold, boolean anyBudget) {
      this.limiter = limiter;
      this.id = id;
      this.rules = rules;
      this.counters = counters;
      this.grant = grant;
      this.hold = hold;
      this.anyBudget = anyBudget;
      this.unheld = grant == null;
    }

    @Override
    public String id() {
      return id;
    }

    @Override
    public long heldMicros() {
      return hold;
    }

    @Override
    public void settle(long actualMicros) {
      if (actualMicros < 0) {
        throw new IllegalArgumentException("actual cost must not be negative: " + actualMicros);
      }
      end(actualMicros);
    }

    @Override
    public void release() {
      end(-1);
    }

    private void end(long charge) {
      if (!STATE.compareAndSet(this, OPEN, ENDING)) {
        throw new IllegalStateException("reservation " + id + " was already settled or released");
      }
      synchronized (this) {
        // An extension in progress finishes first, so the end covers it.
        limiter.finish(this, charge);
      }
    }

    @Override
    public synchronized boolean extend(long additionalMicros) {
      if (additionalMicros < 0) {
        throw new IllegalArgumentException("additionalMicros must be >= 0");
      }
      if (state != OPEN) {
        throw new IllegalStateException("reservation " + id + " was already settled or released");
      }
      if (additionalMicros == 0 || unheld || !anyBudget) {
        return true;
      }
      if (additionalMicros > Counter.MAX_VALUE - hold) {
        return false;
      }
      extensions++;
      if (!limiter.extendOnStore(this, id + ":x" + extensions, additionalMicros)) {
        return false;
      }
      List<Counter> extended = new ArrayList<>(counters.size());
      for (Counter c : counters) {
        extended.add(c.type() == Counter.Type.BUDGET ? new Counter(c.key(), c.type(), c.limit(),
            c.amount() + additionalMicros, c.horizonMillis()) : c);
      }
      counters = List.copyOf(extended);
      hold += additionalMicros;
      return true;
    }

    @Override
    public List<LimitRemaining> remaining() {
      if (grant == null) {
        return List.of();
      }
      List<LimitRemaining> out = new ArrayList<>(rules.size());
      for (int i = 0; i < rules.size(); i++) {
        LimitRule r = rules.get(i).rule;
        long reset = grant.resetsAtMillis(i);
        out.add(new LimitRemaining(rules.get(i).name, r.kind().unit(), r.limit(),
            grant.remaining(i), reset == 0 ? null : Instant.ofEpochMilli(reset)));
      }
      return out;
    }
  }

  /**
   * A builder of {@link CounterLimiter}. Setters fail fast; not thread-safe.
   */
  public static final class Builder {
    private final CounterStore store;
    final List<LimitRule> rules = new ArrayList<>();
    Clock clock;
    private boolean failOpen;
    private boolean failOpenSet;
    private Duration lease;
    private int attempts;
    private SpendSource ledger;
    private Duration holdLease;
    private Duration rebuildLock;
    private Duration pendingRetry;
    private Duration heartbeatTimeout;

    private Builder(CounterStore store) {
      this.store = store;
    }

    /**
     * Adds a rule.
     *
     * @param rule the rule
     * @return this builder
     * @throws NullPointerException if rule is null
     * @throws IllegalStateException if a rule with the same name was already added
     */
    public Builder rule(LimitRule rule) {
      Objects.requireNonNull(rule, "rule");
      for (LimitRule r : rules) {
        if (r.name().equals(rule.name())) {
          throw new IllegalStateException(r.name() + " was already set to " + r.limit());
        }
      }
      rules.add(rule);
      return this;
    }

    /**
     * Adds a lifetime budget.
     *
     * @param scope what it applies to
     * @param limitMicros the limit in micro-units
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is negative or too large
     * @throws IllegalStateException if the scope already has a lifetime budget
     */
    public Builder budget(Scope scope, long limitMicros) {
      return budget(scope, Period.total(), limitMicros);
    }

    /**
     * Adds a budget over a period.
     *
     * @param scope what it applies to
     * @param period the period, aligned to its zone's calendar
     * @param limitMicros the limit in micro-units per period
     * @return this builder
     * @throws NullPointerException if scope or period is null
     * @throws IllegalArgumentException if the limit is negative or too large
     * @throws IllegalStateException if the scope already has a budget over that period
     */
    public Builder budget(Scope scope, Period period, long limitMicros) {
      return rule(new LimitRule(LimitRule.Kind.BUDGET, scope, limitMicros, period));
    }

    /**
     * Adds a concurrency limit.
     *
     * @param scope what it applies to
     * @param maxInFlight the most calls in flight at once
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1
     * @throws IllegalStateException if the scope already has a concurrency limit
     */
    public Builder concurrency(Scope scope, int maxInFlight) {
      return rule(new LimitRule(LimitRule.Kind.CONCURRENCY, scope, maxInFlight, Period.total()));
    }

    /**
     * Adds a requests-per-minute limit (GCRA: smooth, with a burst of the limit).
     *
     * @param scope what it applies to
     * @param perMinute requests per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1 or above 60,000,000
     * @throws IllegalStateException if the scope already has one
     */
    public Builder requestsPerMinute(Scope scope, long perMinute) {
      return rule(new LimitRule(LimitRule.Kind.REQUESTS_PER_MINUTE, scope, perMinute,
          Period.total()));
    }

    /**
     * Adds a tokens-per-minute limit, counting each call's input bound plus output cap.
     *
     * @param scope what it applies to
     * @param perMinute tokens per minute
     * @return this builder
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is below 1 or above 60,000,000
     * @throws IllegalStateException if the scope already has one
     */
    public Builder tokensPerMinute(Scope scope, long perMinute) {
      return rule(new LimitRule(LimitRule.Kind.TOKENS_PER_MINUTE, scope, perMinute,
          Period.total()));
    }

    /**
     * Sets the clock. Default: {@link Clock#system()}.
     *
     * @param value the clock
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder clock(Clock value) {
      Objects.requireNonNull(value, "clock");
      if (clock != null) {
        throw new IllegalStateException("clock was already set to " + clock);
      }
      clock = value;
      return this;
    }

    /**
     * Sets whether calls are admitted without limits when the store cannot be reached.
     * Default: false (refused with 503).
     *
     * @param value true to fail open
     * @return this builder
     * @throws IllegalStateException if already set
     */
    public Builder failOpen(boolean value) {
      if (failOpenSet) {
        throw new IllegalStateException("failOpen was already set to " + failOpen);
      }
      failOpenSet = true;
      failOpen = value;
      return this;
    }

    /**
     * Sets how long a concurrency slot may stay taken before a shared store reclaims it (its
     * holder presumably died). Default: 10 minutes; set it above the longest call.
     *
     * @param value the lease
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder concurrencyLease(Duration value) {
      Objects.requireNonNull(value, "concurrencyLease");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("concurrencyLease must be positive: " + value);
      }
      if (lease != null) {
        throw new IllegalStateException("concurrencyLease was already set to " + lease);
      }
      lease = value;
      return this;
    }

    /**
     * Sets how often one store operation is tried, with the same operation id, before the
     * limiter gives up on it (an admission is then refused or failed open, an end kept
     * pending, an extension refused). Default: 3.
     *
     * @param value at least 1
     * @return this builder
     * @throws IllegalArgumentException if below 1
     * @throws IllegalStateException if already set
     */
    public Builder storeAttempts(int value) {
      if (value < 1) {
        throw new IllegalArgumentException("storeAttempts must be at least 1: " + value);
      }
      if (attempts != 0) {
        throw new IllegalStateException("storeAttempts was already set to " + attempts);
      }
      attempts = value;
      return this;
    }

    /**
     * Sets the system of record: a shared store found stale (its data lost) is rebuilt from it
     * before anything is admitted against it, and {@link CounterLimiter#sweepOrphanHolds()}
     * keeps the holds it names. Default: none (stale counters refuse every call until
     * {@link CounterLimiter#rebuild} is called).
     *
     * @param value the settled spend and the unresolved holds
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalStateException if already set
     */
    public Builder ledger(SpendSource value) {
      Objects.requireNonNull(value, "ledger");
      if (ledger != null) {
        throw new IllegalStateException("ledger was already set");
      }
      ledger = value;
      return this;
    }

    /**
     * Sets the age after which the orphan sweep releases a hold in a shared store that neither
     * the ledger nor a live call of this process explains, measured on the store's clock.
     * Set it above the longest call plus the time a crashed instance takes to restart and
     * record its interrupted calls. Default: 1 hour.
     *
     * @param value the lease
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder holdLease(Duration value) {
      Objects.requireNonNull(value, "holdLease");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("holdLease must be positive: " + value);
      }
      if (holdLease != null) {
        throw new IllegalStateException("holdLease was already set to " + holdLease);
      }
      holdLease = value;
      return this;
    }

    /**
     * Sets how long a rebuild's lock lasts in the store if the rebuilding process dies.
     * Default: 1 minute.
     *
     * @param value the lock's lifetime
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder rebuildLock(Duration value) {
      Objects.requireNonNull(value, "rebuildLock");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("rebuildLock must be positive: " + value);
      }
      if (rebuildLock != null) {
        throw new IllegalStateException("rebuildLock was already set to " + rebuildLock);
      }
      rebuildLock = value;
      return this;
    }

    /**
     * Sets how often, at most, an admission retries pending ends (on the admitting thread, a
     * bounded batch) once the store answers again. Default: 5 seconds.
     *
     * @param value the interval, on the clock's monotonic time
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if negative
     * @throws IllegalStateException if already set
     */
    public Builder pendingRetryInterval(Duration value) {
      Objects.requireNonNull(value, "pendingRetryInterval");
      if (value.isNegative()) {
        throw new IllegalArgumentException("pendingRetryInterval must not be negative: "
            + value);
      }
      if (pendingRetry != null) {
        throw new IllegalStateException("pendingRetryInterval was already set to "
            + pendingRetry);
      }
      pendingRetry = value;
      return this;
    }

    /**
     * Sets how long an instance's registration with a shared store lasts without a
     * {@link CounterLimiter#heartbeat() heartbeat}. A rebuild of lost counters waits at least
     * this long, and until every instance registered within it reported its live holds,
     * before it admits anything. Default: 2 seconds; call {@code heartbeat()} at least every
     * quarter of it.
     *
     * @param value the timeout
     * @return this builder
     * @throws NullPointerException if value is null
     * @throws IllegalArgumentException if not positive
     * @throws IllegalStateException if already set
     */
    public Builder heartbeatTimeout(Duration value) {
      Objects.requireNonNull(value, "heartbeatTimeout");
      if (value.isNegative() || value.isZero()) {
        throw new IllegalArgumentException("heartbeatTimeout must be positive: " + value);
      }
      if (heartbeatTimeout != null) {
        throw new IllegalStateException("heartbeatTimeout was already set to "
            + heartbeatTimeout);
      }
      heartbeatTimeout = value;
      return this;
    }

    /**
     * Builds the limiter.
     *
     * @return the limiter
     */
    public CounterLimiter build() {
      if (clock == null) {
        clock = Clock.system();
      }
      if (lease == null) {
        lease = Duration.ofMinutes(10);
      }
      if (attempts == 0) {
        attempts = 3;
      }
      if (holdLease == null) {
        holdLease = Duration.ofHours(1);
      }
      if (rebuildLock == null) {
        rebuildLock = Duration.ofMinutes(1);
      }
      if (pendingRetry == null) {
        pendingRetry = Duration.ofSeconds(5);
      }
      if (heartbeatTimeout == null) {
        heartbeatTimeout = Duration.ofSeconds(2);
      }
      return new CounterLimiter(this);
    }
  }
}
