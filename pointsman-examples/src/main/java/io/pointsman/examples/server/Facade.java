package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.accounting.Durability;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.examples.LedgerDatabase;
import io.pointsman.httpclient5.ApacheHttpTransport;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.HoldDecision;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Usage;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Identity;
import io.pointsman.testing.FixtureProvider;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Gateway} in the durable profile, assembled from a {@link FacadeConfig}: the file
 * journal (in a stable directory, never a temporary one) settling into PostgreSQL, budgets in
 * counters (in this process, or in Redis when several instances share them), the exact cache
 * (Caffeine, with a Redis tier when shared), and an OpenAI-compatible upstream or the
 * in-process fixture provider.
 *
 * <p>The gateway is one durable builder chain ({@code journal(...).ledger(...)}): building it
 * runs the library's restart protocol ({@link Durability}): the journal recovers, interrupted
 * calls are recorded {@code UNKNOWN}, the budgets are confirmed against the ledger (in-process
 * counters rebuilt from PostgreSQL's spend and unresolved holds; shared Redis counters kept,
 * their holds adopted and replayed calls' holds ended), and the hold housekeeping runs every
 * minute. When PostgreSQL does not answer at start the facade opens anyway ({@link
 * PostgresLedger} is built on first use) and calls under a budget are refused with 503 (rule
 * {@value Durability#UNCONFIRMED_RULE}) until the confirmation, retried every second,
 * succeeds.
 *
 * <p>Health ({@link #health()}) and the metrics' gauges are refreshed in the background; reading
 * them never touches a component.
 *
 * <p>Thread-safe. Closing drains the journal into PostgreSQL.
 */
public final class Facade implements AutoCloseable {
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
  private final FacadeConfig config;
  private final LedgerDatabase database;
  private final Path journalDir;
  private final PostgresLedger ledger;
  private final JournalAccounting accounting;
  private final JournalWatch journalWatch;
  private final RedisConnection redis;
  private final RedisConnection counters;
  private final CounterLimiter limiter;
  private final Durability durability;
  private final CaffeineExactCache cache;
  private final ModelCatalog models;
  private final Gateway gateway;
  private final InMemoryKeyStore keys;
  private final HealthMonitor health;
  private final FacadeGauges gauges;
  private final int recoveredInterrupted;
  private final int recoveredResettled;
  /** The upstream provider's HTTP transport; null with the in-process fixture provider. */
  private ApacheHttpTransport upstreamHttp;

  private Facade(FacadeConfig config) {
    this(config, null);
  }

  private Facade(FacadeConfig config, String upstreamSecret) {
    this.config = config;
    LedgerDatabase db = null;
    RedisConnection shared = null;
    RedisConnection countersConn = null;
    Gateway built = null;
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
      int floor = config.floorPercent();
      ledger = PostgresLedger.builder(db.dataSource())
          .settlement(b -> b.floorPolicy(call -> call.lastIntent().heldMicros() * floor / 100))
          .build();

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
        lb.budget(Scope.parse(b.scope()), b.limitMicros());
      }
      limiter = lb.build();

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

      Gateway.Builder gb = Gateway.builder().authenticator(keys).models(models).limiter(limiter)
          .cache(cache).journal(JournalAccounting.at(journalDir)).ledger(ledger)
          .maxAttempts(config.maxAttempts());
      if (config.upstream() == null) {
        gb.provider("fixture", FixtureProvider.builder().build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("fixture-" + m.name(), "fixture", m.name()));
        }
      } else {
        String secret = upstreamSecret != null ? upstreamSecret
            : System.getenv(config.upstreamKeyEnv());
        // Apache HttpClient 5 classic: each attempt is sent and read on the calling thread, no
        // hand-off to the JDK client's selector and worker threads (docs/providers.md).
        upstreamHttp = ApacheHttpTransport.builder().build();
        gb.provider("upstream", OpenAiProvider.builder().name("upstream")
            .baseUri(URI.create(config.upstream()))
            .credential(Credential.of(secret == null || secret.isBlank() ? "unset" : secret))
            .transport(upstreamHttp)
            .build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("upstream-" + m.name(), "upstream", m.name()));
        }
      }
      // Opens and recovers the journal, confirms the budgets against the ledger (before
      // returning when PostgreSQL answers, else in the background) and starts the housekeeping.
      built = gb.build();
      gateway = built;
      durability = gateway.durability();
      accounting = (JournalAccounting) durability.accounting();
      journalWatch = new JournalWatch(accounting);
      recoveredInterrupted = durability.recoveredInterrupted();
      recoveredResettled = durability.recoveredReplayed();

      monitor = new HealthMonitor(List.of(
          HealthChecks.journal(journalWatch),
          HealthChecks.settler(accounting, SETTLER_STALL),
          HealthChecks.counters(countersConn),
          HealthChecks.database(db.dataSource(), HEALTH_TIMEOUT,
              () -> ledger.settlementIfReady().isPresent() ? "ledger ready"
                  : "ledger not built yet"),
          HealthChecks.budgets(durability)), HEALTH_INTERVAL, HEALTH_TIMEOUT);
      health = monitor;
      health.start();
      sampled = new FacadeGauges(accounting, durability::recoveredHolds, durability::confirmed,
          () -> ledger.settlementIfReady().map(PostgresSettlement::unresolvedHolds)
              .orElse(null),
          JOURNAL_GAUGES, LEDGER_GAUGES);
      gauges = sampled;
      try {
        health.awaitFirstResults(HEALTH_TIMEOUT);
        if (ledger.settlementIfReady().isPresent()) {
          gauges.awaitLedgerSample(HEALTH_TIMEOUT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    } catch (RuntimeException | Error e) {
      closeQuietly(sampled, monitor, built, upstreamHttp, shared, countersConn, db);
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
    HoldDecision d = ledger.settlement().attest(eventId, usage, costMicros, evidence, epoch);
    reconcileHolds();
    return d;
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
    return durability.reconcileHolds();
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
    return ledger.settlement();
  }

  /**
   * Returns the PostgreSQL settlement if the ledger was reached, without trying.
   *
   * @return the settlement, or empty
   */
  public Optional<PostgresSettlement> settlementIfReady() {
    return ledger.settlementIfReady();
  }

  /**
   * Returns whether the budgets were confirmed against the ledger (before that, calls under a
   * budget are refused with 503).
   *
   * @return true once confirmed
   */
  public boolean budgetsConfirmed() {
    return durability.confirmed();
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
    return durability.recoveredHolds();
  }

  /**
   * Prints what the facade runs on and what recovery found.
   *
   * @param out where to print
   */
  public void describe(PrintStream out) {
    out.println("  journal:    " + journalDir);
    out.println("  PostgreSQL: " + database.description()
        + (ledger.settlementIfReady().isPresent() ? "" : " (not reachable yet: "
            + ledger.lastFailure()
            + ")"));
    out.println("  counters:   " + (counters == null ? "in process" : "Redis "
        + config.countersRedis() + " prefix " + config.redisPrefix() + ":limits"));
    out.println("  upstream:   " + (config.upstream() == null ? "in-process fixture provider"
        : config.upstream()));
    out.println("  recovery:   " + recoveredResettled + " settled records re-sent, "
        + recoveredInterrupted + " interrupted calls recorded UNKNOWN, " + (durability.confirmed()
            ? durability.recoveredHolds() + " unresolved holds counted against budgets"
            : "budgets not confirmed yet (calls under a budget get 503 until the ledger"
                + " answers)"));
  }

  @Override
  public void close() {
    closeQuietly(health, gauges);
    try {
      // Stops the housekeeping, drains the journal into PostgreSQL, closes the cache.
      gateway.close();
    } finally {
      closeQuietly(upstreamHttp, redis, counters, database);
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
