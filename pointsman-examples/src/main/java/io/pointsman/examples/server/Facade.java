package io.pointsman.examples.server;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.examples.LedgerDatabase;
import io.pointsman.ledger.Hold;
import io.pointsman.ledger.HoldDecision;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.ledger.ReservationState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.limits.SpendSource;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.Usage;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Identity;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FixtureProvider;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Collection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Gateway} in the durable profile, assembled from a {@link FacadeConfig}: the file
 * journal (in a stable directory, never a temporary one) settling into PostgreSQL, budgets in
 * counters (in this process, or in Redis when several instances share them), the exact cache
 * (Caffeine, with a Redis tier when shared), and an OpenAI-compatible upstream or the
 * in-process fixture provider.
 *
 * <p>Opening recovers before serving: the journal hands every settled record not yet in
 * PostgreSQL to settlement again and records every call that was dispatched and never settled
 * as {@code UNKNOWN}. Budgets are then <em>confirmed</em> against the ledger: once that has
 * drained, in-process budget counters are rebuilt from the spend in PostgreSQL plus every
 * unresolved hold, and each hold is kept as a reservation until an {@linkplain #attest
 * attestation} or an expiry resolves it. In shared mode the counters live in Redis and are not
 * rebuilt (the shared store kept them); every instance adopts a handle to each unresolved hold,
 * and the store applies exactly one resolution of each.
 *
 * <p>When PostgreSQL answers at start, the confirmation happens before {@link #open} returns,
 * as it always did. When it does not, the facade opens anyway: the ledger is built lazily
 * ({@link LazyLedger}), the journal keeps the recovered records and retries them, and the
 * confirmation is retried in the background every second. Until it succeeds, calls under a
 * budget are refused with 503 ({@code ratelimit.reserve}, rule {@value BudgetGate#RULE}); calls
 * no budget governs are served and their records wait in the journal.
 *
 * <p>Health ({@link #health()}) and the metrics' gauges are refreshed in the background; reading
 * them never touches a component.
 *
 * <p>Thread-safe. Closing drains the journal into PostgreSQL.
 */
public final class Facade implements AutoCloseable {
  private static final Duration RECOVERY_DRAIN = Duration.ofSeconds(60);
  private static final long HOUSEKEEPING_SECONDS = 60;
  private static final Duration CONFIRM_RETRY = Duration.ofSeconds(1);
  /** How often health checks run, and how long one may take before its component is down. */
  static final Duration HEALTH_INTERVAL = Duration.ofSeconds(1);
  static final Duration HEALTH_TIMEOUT = Duration.ofSeconds(3);
  /** How long records may wait with none settled before the settler is reported stalled. */
  static final Duration SETTLER_STALL = Duration.ofSeconds(30);
  private static final Duration JOURNAL_GAUGES = Duration.ofSeconds(1);
  private static final Duration LEDGER_GAUGES = Duration.ofSeconds(5);
  private static final Logger LOG = LoggerFactory.getLogger(Facade.class);
  /** The cache's Redis: a cache miss is cheaper than a slow lookup. */
  private static final Duration CACHE_REDIS_TIMEOUT = Duration.ofMillis(500);
  /** The counters' Redis: an admission may wait longer than a cache lookup. */
  private static final Duration COUNTERS_REDIS_TIMEOUT = Duration.ofSeconds(2);
  /** How often the limiter's housekeeping runs: pending ends, orphan sweep. */
  private static final long LIMITER_HOUSEKEEPING_SECONDS = 10;
  /** How often this instance heartbeats to the shared counters (a quarter of the timeout). */
  private static final long HEARTBEAT_MILLIS = 250;
  /** How long a drain of the journal may take before the ledger's spend is read. */
  private static final Duration SPEND_DRAIN = Duration.ofSeconds(10);

  private final FacadeConfig config;
  private final LedgerDatabase database;
  private final Path journalDir;
  private final LazyLedger ledger;
  private final JournalAccounting accounting;
  private final JournalWatch journalWatch;
  private final RedisConnection redis;
  private final RedisConnection counters;
  private final CounterLimiter limiter;
  private final BudgetGate gate;
  private final CaffeineExactCache cache;
  private final ModelCatalog models;
  private final Gateway gateway;
  private final InMemoryKeyStore keys;
  private final Map<String, Reservation> recoveredHolds = new ConcurrentHashMap<>();
  private final ScheduledExecutorService housekeeping;
  private volatile ScheduledExecutorService heartbeats;
  private final HealthMonitor health;
  private final FacadeGauges gauges;
  private final int recoveredInterrupted;
  private final int recoveredResettled;
  private final AtomicBoolean confirmFailureLogged = new AtomicBoolean();
  private volatile ScheduledFuture<?> confirming;

  private Facade(FacadeConfig config) {
    this(config, null);
  }

  private Facade(FacadeConfig config, String upstreamSecret) {
    this.config = config;
    LedgerDatabase db = null;
    RedisConnection shared = null;
    RedisConnection countersConn = null;
    JournalAccounting journal = null;
    ScheduledExecutorService house = null;
    HealthMonitor monitor = null;
    FacadeGauges sampled = null;
    try {
      journalDir = config.journalDirectory();
      Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath();
      if (journalDir.startsWith(tmp)) {
        LOG.warn("the journal {} is under the temporary directory {}: records waiting there"
            + " are lost if the system cleans it", journalDir, tmp);
      }
      db = LedgerDatabase.open(config.postgresUrl(), config.embeddedPostgresDirectory());
      database = db;
      ledger = new LazyLedger(db.dataSource(), config.floorPercent());
      try {
        ledger.require();
      } catch (PointsmanException e) {
        LOG.warn("PostgreSQL is not reachable at start ({}); serving calls no budget governs,"
            + " refusing budgeted calls until the ledger answers", ledger.lastFailure());
      }

      Files.createDirectories(journalDir);
      journal = JournalAccounting.builder(JournalConfig.builder(journalDir).build(), ledger)
          .open();
      accounting = journal;
      journalWatch = new JournalWatch(journal);
      recoveredInterrupted = journal.recovery().interrupted().size();
      recoveredResettled = journal.recovery().resettled().size();

      CounterStore store;
      if (config.redisUrl() != null) {
        shared = RedisConnection.builder(URI.create(config.redisUrl()))
            .keyPrefix(config.redisPrefix()).timeout(CACHE_REDIS_TIMEOUT).build();
      }
      redis = shared;
      if (config.countersRedis() != null) {
        // The counters' own connection: a limiter's time-out, never the cache's, and a
        // server that must not evict (checked by the store unless explicitly allowed).
        countersConn = RedisConnection.builder(URI.create(config.countersRedis()))
            .keyPrefix(config.redisPrefix() + ":limits").timeout(COUNTERS_REDIS_TIMEOUT)
            .build();
        store = RedisCounterStore.builder(countersConn)
            .allowEvictionPolicy(config.allowEvictionPolicy()).build();
      } else {
        store = new InProcessCounterStore();
      }
      counters = countersConn;
      CounterLimiter.Builder lb = CounterLimiter.builder(store);
      for (FacadeConfig.BudgetEntry b : config.budgets()) {
        lb.budget(scope(b.scope()), b.limitMicros());
      }
      if (countersConn != null) {
        lb.ledger(new LedgerSpend(this));
      }
      limiter = lb.build();
      gate = new BudgetGate(limiter);

      CaffeineExactCache.Builder cb = CaffeineExactCache.builder();
      if (shared != null) {
        cb.shared(shared);
      }
      cache = cb.build();

      ModelCatalog.Builder mb = ModelCatalog.builder();
      for (FacadeConfig.ModelEntry m : config.models()) {
        mb.model(m.spec());
      }
      models = mb.build();

      keys = new InMemoryKeyStore(Clock.system());
      for (FacadeConfig.KeyEntry k : config.keys()) {
        KeySpec.Builder kb = KeySpec.builder(k.id());
        if (k.team() != null) {
          kb.team(k.team());
        }
        if (k.org() != null) {
          kb.org(k.org());
        }
        if (!k.models().isEmpty()) {
          kb.models(io.pointsman.spi.Grant.only(k.models().toArray(String[]::new)));
        }
        keys.addKey(k.key(), kb.build());
      }

      Gateway.Builder gb = Gateway.builder().authenticator(keys).models(models).limiter(gate)
          .cache(cache).accounting(journalWatch).maxAttempts(config.maxAttempts());
      if (config.upstream() == null) {
        gb.provider("fixture", FixtureProvider.builder().build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("fixture-" + m.name(), "fixture", m.name()));
        }
      } else {
        String secret = upstreamSecret != null ? upstreamSecret
            : System.getenv(config.upstreamKeyEnv());
        gb.provider("upstream", OpenAiProvider.builder().name("upstream")
            .baseUri(URI.create(config.upstream()))
            .credential(Credential.of(secret == null || secret.isBlank() ? "unset" : secret))
            .build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("upstream-" + m.name(), "upstream", m.name()));
        }
      }
      gateway = gb.build();
      house = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pointsman-holds");
        t.setDaemon(true);
        return t;
      });
      housekeeping = house;

      // With the ledger reachable, confirm before serving (the counters are right from the
      // first call); otherwise keep trying in the background.
      if (ledger.ifReady().isPresent() && journal.awaitDrained(RECOVERY_DRAIN)) {
        tryConfirm();
      }
      if (!gate.confirmed()) {
        confirming = housekeeping.scheduleWithFixedDelay(this::confirmInBackground, 0,
            CONFIRM_RETRY.toMillis(), TimeUnit.MILLISECONDS);
      }
      housekeeping.scheduleWithFixedDelay(this::reconcileQuietly, HOUSEKEEPING_SECONDS,
          HOUSEKEEPING_SECONDS, TimeUnit.SECONDS);
      if (counters != null) {
        heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "pointsman-counters-heartbeat");
          t.setDaemon(true);
          return t;
        });
        // Registers this instance with the shared counters and reports its live holds to a
        // rebuild of lost counters, which waits for them before admitting anything.
        heartbeats.scheduleWithFixedDelay(limiter::heartbeat, 0, HEARTBEAT_MILLIS,
            TimeUnit.MILLISECONDS);
        housekeeping.scheduleWithFixedDelay(this::limiterHousekeeping,
            LIMITER_HOUSEKEEPING_SECONDS, LIMITER_HOUSEKEEPING_SECONDS, TimeUnit.SECONDS);
      }

      monitor = new HealthMonitor(List.of(
          HealthChecks.journal(journalWatch),
          HealthChecks.settler(journal, SETTLER_STALL),
          HealthChecks.counters(countersConn),
          HealthChecks.database(db.dataSource(), HEALTH_TIMEOUT,
              () -> ledger.ifReady().isPresent() ? "ledger ready" : "ledger not built yet"),
          HealthChecks.budgets(gate)), HEALTH_INTERVAL, HEALTH_TIMEOUT);
      health = monitor;
      health.start();
      sampled = new FacadeGauges(journal, recoveredHolds::size, gate::confirmed,
          () -> ledger.ifReady().map(l -> l.settlement().unresolvedHolds()).orElse(null),
          JOURNAL_GAUGES, LEDGER_GAUGES);
      gauges = sampled;
      try {
        health.awaitFirstResults(HEALTH_TIMEOUT);
        if (ledger.ifReady().isPresent()) {
          gauges.awaitLedgerSample(HEALTH_TIMEOUT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } catch (IOException e) {
      shutdownQuietly(house);
      shutdownQuietly(heartbeats);
      closeQuietly(sampled, monitor, journal, shared, countersConn, db);
      throw new UncheckedIOException("cannot prepare the journal directory", e);
    } catch (RuntimeException | Error e) {
      shutdownQuietly(house);
      shutdownQuietly(heartbeats);
      closeQuietly(sampled, monitor, journal, shared, countersConn, db);
      throw e;
    }
  }

  /**
   * Opens the facade's gateway: starts or connects to PostgreSQL, recovers the journal,
   * confirms the budgets (before returning when PostgreSQL answers, else in the background)
   * and builds the gateway.
   *
   * @param config the configuration
   * @return the open facade
   * @throws UncheckedIOException if the journal directory cannot be prepared
   */
  public static Facade open(FacadeConfig config) {
    return new Facade(config);
  }

  /**
   * Opens the facade with the upstream's API key given rather than read from
   * {@link FacadeConfig#upstreamKeyEnv()} (tests of what the facade does with it).
   */
  static Facade open(FacadeConfig config, String upstreamSecret) {
    return new Facade(config, upstreamSecret);
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
   * Confirms the budgets when the ledger answers and recovery's records reached it: rebuilds
   * (in process) or adopts (shared) the counters from the ledger, then opens the gate.
   * Runs on the housekeeping thread or during open, never concurrently with itself.
   *
   * @return true when confirmed
   * @throws RuntimeException when the ledger cannot be read
   */
  private synchronized boolean tryConfirm() {
    if (gate.confirmed() && !recoveryPending()) {
      return true;
    }
    LazyLedger.Ledger l = ledger.require();
    if (recoveryPending()) {
      return false;
    }
    if (!gate.confirmed()) {
      List<DispatchIntent> unresolved = l.settlement().unresolvedIntents();
      Map<String, String> eventOfReservation = new java.util.HashMap<>();
      for (DispatchIntent i : unresolved) {
        eventOfReservation.put(i.reservationId(), i.eventId());
      }
      // In process, the counters died with the last process: rebuild them. Shared, they kept
      // every hold: adopt handles to them (each resolved once, whichever instance sees it).
      // No budgeted call holds anything yet (the gate refused them), so rebuilding overwrites
      // nothing a running call needs.
      List<Reservation> holds = counters == null
          ? limiter.rebuild(l.budgets()::spent, unresolved) : limiter.adopt(unresolved);
      for (Reservation r : holds) {
        recoveredHolds.put(eventOfReservation.get(r.id()), r);
      }
      if (counters != null) {
        endReplayedHolds();
      }
      if (counters != null) {
        try {
          // Shared counters without a generation (a new namespace, or Redis lost them) are
          // rebuilt from the ledger now rather than by the first call.
          limiter.budgets();
        } catch (RuntimeException e) {
          LOG.warn("the shared counters cannot be read yet: {}", e.getMessage());
        }
      }
      gate.confirm();
      LOG.info("budgets confirmed against the ledger: {} unresolved holds counted",
          recoveredHolds.size());
    }
    return true;
  }

  /**
   * Ends, in the shared counters, the hold of every call whose usage record recovery replayed:
   * such a call's record was durable before the process died, but its hold may not have been
   * ended in Redis yet (the gateway ends it after the record), and the ledger's row being
   * final, neither adoption nor the orphan sweep would ever end it. Ends are exactly once by
   * reservation id in the store, so a hold that was ended before the crash is not ended again.
   */
  private void endReplayedHolds() {
    int ended = 0;
    for (UsageRecord r : accounting.recovery().resettled()) {
      if (r.reservationId() == null || r.heldMicros() <= 0 || r.keyId() == null
          || r.model() == null) {
        continue;
      }
      DispatchIntent intent = new DispatchIntent(r.eventId(), r.requestId(),
          Math.max(1, r.attempts()), r.keyId(), r.userId(), r.teamId(), r.orgId(), r.tags(),
          r.model(), r.deploymentId() == null ? "unknown" : r.deploymentId(), "unknown",
          r.reservationId(), r.heldMicros(), r.heldMicros(), r.startedAt(), r.startedAt());
      for (Reservation h : limiter.adopt(List.of(intent))) {
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

  /**
   * Whether records recovery handed to settlement are still waiting: the journal's settler
   * takes its queue in order (one settler), so once as many records and interrupted calls as
   * recovery found have committed, all of recovery's have.
   */
  private boolean recoveryPending() {
    return accounting.settledCount() < recoveredResettled
        || accounting.interruptedCount() < recoveredInterrupted;
  }

  private static Scope scope(String text) {
    if ("global".equals(text)) {
      return Scope.global();
    }
    int colon = text.indexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("budget scope must be kind:id or global: " + text);
    }
    String id = text.substring(colon + 1);
    return switch (text.substring(0, colon)) {
      case "key" -> Scope.key(id);
      case "team" -> Scope.team(id);
      case "org" -> Scope.org(id);
      case "tag" -> Scope.tag(id);
      case "model" -> Scope.model(id);
      default -> throw new IllegalArgumentException("unknown budget scope kind: " + text);
    };
  }

  /**
   * Resolves an interrupted call's hold with an attestation ({@link PostgresSettlement#attest})
   * and, when accepted, settles the call's recovered reservation in the counters at the
   * attested cost.
   *
   * @param eventId the call's event id
   * @param usage the attested usage, or null
   * @param costMicros the attested cost
   * @param evidence where the attestation comes from
   * @param epoch the hold's epoch the attestation was made against
   * @return the decision
   */
  public HoldDecision attest(String eventId, Usage usage, long costMicros, String evidence,
      long epoch) {
    HoldDecision d = ledger.require().settlement().attest(eventId, usage, costMicros, evidence,
        epoch);
    reconcileHolds();
    return d;
  }

  /** Retries ends the counters' Redis did not confirm, and releases orphan holds. */
  private void limiterHousekeeping() {
    try {
      int left = limiter.retryPendingEnds();
      if (left > 0) {
        LOG.warn("{} ends of reservations still pending: the counters' Redis does not answer",
            left);
      }
      if (ledger.ifReady().isPresent()) {
        int swept = limiter.sweepOrphanHolds();
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
   * The ledger as the shared counters' system of record: settled spend read after the journal
   * drained (so it includes every record this process made durable), the ledger's unresolved
   * holds, and whether a reservation's call has a settled row.
   */
  private static final class LedgerSpend implements SpendSource {
    private final Facade facade;

    LedgerSpend(Facade facade) {
      this.facade = facade;
    }

    private void drain() {
      if (!facade.accounting.awaitDrained(SPEND_DRAIN)) {
        LOG.warn("the journal did not drain within {} before the ledger's spend was read",
            SPEND_DRAIN);
      }
    }

    @Override
    public long spent(Scope scope, Instant from, Instant to) {
      drain();
      return facade.ledger.require().budgets().spent(scope, from, to);
    }

    @Override
    public Collection<DispatchIntent> unresolvedHolds() {
      return facade.ledger.require().settlement().unresolvedIntents();
    }

    @Override
    public boolean includes(String reservationId) {
      drain();
      try (Connection c = facade.database.dataSource().getConnection();
          PreparedStatement s = c.prepareStatement("SELECT 1 FROM pointsman.reservations"
              + " WHERE reservation_id = ? AND state IN ('SETTLED', 'RELEASED', 'ATTESTED',"
              + " 'EXPIRED')")) {
        s.setString(1, reservationId);
        try (ResultSet rs = s.executeQuery()) {
          return rs.next();
        }
      } catch (SQLException e) {
        throw new IllegalStateException("cannot read the ledger: " + e.getMessage(), e);
      }
    }
  }

  private void reconcileQuietly() {
    try {
      int left = reconcileHolds();
      if (left > 0) {
        LOG.warn("{} interrupted calls still hold budget awaiting attestation or expiry", left);
      }
    } catch (RuntimeException e) {
      LOG.warn("hold housekeeping failed; retried in {} s", HOUSEKEEPING_SECONDS, e);
    }
  }

  /**
   * Expires holds whose window ended, then settles every recovered reservation whose hold the
   * ledger resolved (attested or expired, by this process or another) at the charge the ledger
   * assigned. Runs every minute and after each attestation.
   *
   * @return how many recovered reservations are still unresolved
   * @throws PointsmanException with status 503 when the ledger cannot be reached
   */
  public int reconcileHolds() {
    PostgresSettlement settlement = ledger.require().settlement();
    settlement.expireHolds();
    for (Map.Entry<String, Reservation> e : recoveredHolds.entrySet()) {
      Optional<Hold> hold = settlement.hold(e.getKey());
      if (hold.isPresent() && hold.get().state() != ReservationState.UNKNOWN
          && recoveredHolds.remove(e.getKey(), e.getValue())) {
        e.getValue().settle(hold.get().chargedMicros());
      }
    }
    return recoveredHolds.size();
  }

  /**
   * Returns the gateway.
   *
   * @return the gateway
   */
  public Gateway gateway() {
    return gateway;
  }

  /**
   * Authenticates a virtual key, as the gateway's first stage does.
   *
   * @param key the presented key
   * @return the identity
   * @throws io.pointsman.PointsmanException with status 401 when the key is not valid
   */
  public Identity authenticate(String key) {
    return keys.authenticate(key);
  }

  /**
   * Returns the model catalog served.
   *
   * @return the catalog
   */
  public ModelCatalog models() {
    return models;
  }

  /**
   * Refuses a request for a capability its model was not configured with and that the
   * gateway's own model resolution does not check: structured output
   * ({@code response_format} of type {@code json_schema}) needs
   * {@value FacadeConfig.ModelEntry#JSON_SCHEMA}. An unknown model is left to the gateway
   * (404). Tools, streaming and images are checked by the gateway against the same
   * configured capabilities.
   *
   * @param request the request
   * @throws PointsmanException with status 400, stage {@code model.resolve} and rule
   *     {@code capability:json_schema}
   */
  public void checkCapabilities(ChatRequest request) {
    ModelSpec spec = request.model() == null ? null : models.find(request.model());
    if (spec == null || spec.supports(FacadeConfig.ModelEntry.JSON_SCHEMA)) {
      return;
    }
    JsonNode format = request.responseFormat();
    if (format != null && "json_schema".equals(format.path("type").asText())) {
      throw PointsmanException.denied(Status.BAD_REQUEST, Stages.MODEL_RESOLVE,
          "capability:" + FacadeConfig.ModelEntry.JSON_SCHEMA, spec.name()
              + " does not support " + FacadeConfig.ModelEntry.JSON_SCHEMA);
    }
  }

  /**
   * Returns the budget counters.
   *
   * @return the limiter
   */
  public CounterLimiter limiter() {
    return limiter;
  }

  /**
   * Returns the journal accounting.
   *
   * @return the accounting
   */
  public JournalAccounting accounting() {
    return accounting;
  }

  /**
   * Returns the PostgreSQL settlement.
   *
   * @return the settlement
   * @throws PointsmanException with status 503 when the ledger has not been reached yet
   */
  public PostgresSettlement settlement() {
    return ledger.require().settlement();
  }

  /**
   * Returns the PostgreSQL settlement if the ledger was reached, without trying.
   *
   * @return the settlement, or empty
   */
  public Optional<PostgresSettlement> settlementIfReady() {
    return ledger.ifReady().map(LazyLedger.Ledger::settlement);
  }

  /**
   * Returns whether the budgets were confirmed against the ledger (before that, calls under a
   * budget are refused with 503).
   *
   * @return true once confirmed
   */
  public boolean budgetsConfirmed() {
    return gate.confirmed();
  }

  /**
   * Returns the health of each component, refreshed in the background.
   *
   * @return the monitor
   */
  public HealthMonitor health() {
    return health;
  }

  FacadeGauges gauges() {
    return gauges;
  }

  /**
   * Returns the journal directory.
   *
   * @return the absolute directory
   */
  public Path journalDirectory() {
    return journalDir;
  }

  /**
   * Returns the exact cache.
   *
   * @return the cache
   */
  public CaffeineExactCache cache() {
    return cache;
  }

  /**
   * Returns the configuration.
   *
   * @return the configuration
   */
  public FacadeConfig config() {
    return config;
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
   * Prints what the facade runs on and what recovery found.
   *
   * @param out where to print
   */
  public void describe(PrintStream out) {
    out.println("  journal:    " + journalDir);
    out.println("  PostgreSQL: " + database.description()
        + (ledger.ifReady().isPresent() ? "" : " (not reachable yet: " + ledger.lastFailure()
            + ")"));
    out.println("  counters:   " + (counters == null ? "in process" : "Redis "
        + config.countersRedis() + " prefix " + config.redisPrefix() + ":limits"));
    out.println("  upstream:   " + (config.upstream() == null ? "in-process fixture provider"
        : config.upstream()));
    out.println("  recovery:   " + recoveredResettled + " settled records re-sent, "
        + recoveredInterrupted + " interrupted calls recorded UNKNOWN, " + (gate.confirmed()
            ? recoveredHolds.size() + " unresolved holds counted against budgets"
            : "budgets not confirmed yet (calls under a budget get 503 until the ledger"
                + " answers)"));
  }

  @Override
  public void close() {
    housekeeping.shutdownNow();
    shutdownQuietly(heartbeats);
    closeQuietly(health, gauges);
    try {
      gateway.close();
    } finally {
      closeQuietly(accounting, cache, redis, counters, database);
    }
  }

  private static void shutdownQuietly(ScheduledExecutorService executor) {
    if (executor != null) {
      executor.shutdownNow();
    }
  }

  private static void closeQuietly(AutoCloseable... resources) {
    for (AutoCloseable r : resources) {
      if (r == null) {
        continue;
      }
      try {
        r.close();
      } catch (Exception e) {
        // Closing the rest matters more; the journal reports its own drain failures.
      }
    }
  }
}
