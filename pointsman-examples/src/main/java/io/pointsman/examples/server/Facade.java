package io.pointsman.examples.server;

import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.cache.redis.RedisConnection;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.examples.LedgerDatabase;
import io.pointsman.examples.TempDirectories;
import io.pointsman.ledger.Hold;
import io.pointsman.ledger.HoldDecision;
import io.pointsman.ledger.PostgresBudgetStore;
import io.pointsman.ledger.PostgresSettlement;
import io.pointsman.ledger.ReservationState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Scope;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.Usage;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Identity;
import io.pointsman.spi.Reservation;
import io.pointsman.testing.FixtureProvider;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Gateway} in the durable profile, assembled from a {@link FacadeConfig}: the file
 * journal settling into PostgreSQL, budgets in counters (in this process, or in Redis when
 * several instances share them), the exact cache (Caffeine, with a Redis tier when shared),
 * and an OpenAI-compatible upstream or the in-process fixture provider.
 *
 * <p>Opening recovers before serving: the journal hands every settled record not yet in
 * PostgreSQL to settlement again and records every call that was dispatched and never settled
 * as {@code UNKNOWN}; once that has drained, in-process budget counters are rebuilt from the
 * spend in PostgreSQL plus every unresolved hold, and each hold is kept as a reservation until
 * an {@linkplain #attest attestation} or an expiry resolves it. In shared mode the counters
 * live in Redis and are not rebuilt (the shared store kept them); every instance adopts a
 * handle to each unresolved hold, and the store applies exactly one resolution of each.
 *
 * <p>Thread-safe. Closing drains the journal into PostgreSQL.
 */
public final class Facade implements AutoCloseable {
  private static final Duration RECOVERY_DRAIN = Duration.ofSeconds(60);
  private static final long HOUSEKEEPING_SECONDS = 60;
  private static final Logger LOG = LoggerFactory.getLogger(Facade.class);

  private final FacadeConfig config;
  private final LedgerDatabase database;
  private final Path journalDir;
  private final boolean temporaryJournal;
  private final PostgresSettlement settlement;
  private final PostgresBudgetStore budgetStore;
  private final JournalAccounting accounting;
  private final RedisConnection redis;
  private final CounterLimiter limiter;
  private final CaffeineExactCache cache;
  private final ModelCatalog models;
  private final Gateway gateway;
  private final InMemoryKeyStore keys;
  private final Map<String, Reservation> recoveredHolds = new ConcurrentHashMap<>();
  private final ScheduledExecutorService housekeeping;
  private final int recoveredInterrupted;
  private final int recoveredResettled;

  private Facade(FacadeConfig config) {
    this.config = config;
    LedgerDatabase db = null;
    RedisConnection shared = null;
    JournalAccounting journal = null;
    boolean temp = config.journal() == null;
    try {
      db = LedgerDatabase.open(config.postgresUrl());
      database = db;
      DataSource dataSource = db.dataSource();
      int floorPercent = config.floorPercent();
      settlement = PostgresSettlement.builder(dataSource)
          .floorPolicy(call -> call.lastIntent().heldMicros() * floorPercent / 100)
          .build();
      budgetStore = PostgresBudgetStore.create(dataSource, Clock.system());

      journalDir = temp ? TempDirectories.create("pointsman-facade-journal")
          : Files.createDirectories(Path.of(config.journal()));
      temporaryJournal = temp;
      journal = JournalAccounting.builder(JournalConfig.builder(journalDir).build(), settlement)
          .open();
      accounting = journal;
      recoveredInterrupted = journal.recovery().interrupted().size();
      recoveredResettled = journal.recovery().resettled().size();
      if (!journal.awaitDrained(RECOVERY_DRAIN)) {
        throw new IllegalStateException("recovered records did not reach PostgreSQL within "
            + RECOVERY_DRAIN + "; is the database reachable?");
      }

      CounterStore store;
      if (config.redisUrl() != null) {
        shared = RedisConnection.builder(URI.create(config.redisUrl()))
            .keyPrefix(config.redisPrefix()).timeout(Duration.ofSeconds(2)).build();
        store = RedisCounterStore.builder(shared.client())
            .keyPrefix(config.redisPrefix() + ":limits").build();
      } else {
        store = new InProcessCounterStore();
      }
      redis = shared;
      CounterLimiter.Builder lb = CounterLimiter.builder(store);
      for (FacadeConfig.BudgetEntry b : config.budgets()) {
        lb.budget(scope(b.scope()), b.limitMicros());
      }
      limiter = lb.build();
      List<DispatchIntent> unresolved = settlement.unresolvedIntents();
      Map<String, String> eventOfReservation = new java.util.HashMap<>();
      for (DispatchIntent i : unresolved) {
        eventOfReservation.put(i.reservationId(), i.eventId());
      }
      // In process, the counters died with the last process: rebuild them. Shared, they kept
      // every hold: adopt handles to them (each resolved once, whichever instance sees it).
      List<Reservation> holds = shared == null
          ? limiter.rebuild(budgetStore::spent, unresolved) : limiter.adopt(unresolved);
      for (Reservation r : holds) {
        recoveredHolds.put(eventOfReservation.get(r.id()), r);
      }

      CaffeineExactCache.Builder cb = CaffeineExactCache.builder();
      if (shared != null) {
        cb.shared(shared);
      }
      cache = cb.build();

      ModelCatalog.Builder mb = ModelCatalog.builder();
      for (FacadeConfig.ModelEntry m : config.models()) {
        mb.model(ModelSpec.builder(m.name()).aliases(m.aliases().toArray(String[]::new))
            .contextWindow(m.contextWindow()).maxOutputTokens(m.maxOutputTokens())
            .price(new Price(m.inputPerMillion(), m.outputPerMillion(),
                m.cachedInputPerMillion()))
            .capabilities(ModelSpec.STREAMING, ModelSpec.TOOLS).build());
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
          .cache(cache).accounting(accounting);
      if (config.upstream() == null) {
        gb.provider("fixture", FixtureProvider.builder().build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("fixture-" + m.name(), "fixture", m.name()));
        }
      } else {
        String secret = System.getenv(config.upstreamKeyEnv());
        gb.provider("upstream", OpenAiProvider.builder().name("upstream")
            .baseUri(URI.create(config.upstream()))
            .credential(Credential.of(secret == null || secret.isBlank() ? "unset" : secret))
            .build());
        for (FacadeConfig.ModelEntry m : config.models()) {
          gb.deployment(Deployment.of("upstream-" + m.name(), "upstream", m.name()));
        }
      }
      gateway = gb.build();
      housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "pointsman-holds");
        t.setDaemon(true);
        return t;
      });
      housekeeping.scheduleWithFixedDelay(this::reconcileQuietly, HOUSEKEEPING_SECONDS,
          HOUSEKEEPING_SECONDS, TimeUnit.SECONDS);
    } catch (IOException e) {
      closeQuietly(journal, shared, db);
      throw new UncheckedIOException("cannot prepare the journal directory", e);
    } catch (RuntimeException | Error e) {
      closeQuietly(journal, shared, db);
      throw e;
    }
  }

  /**
   * Opens the facade's gateway: starts or connects to PostgreSQL, recovers the journal,
   * rebuilds the counters and builds the gateway.
   *
   * @param config the configuration
   * @return the open facade
   * @throws IllegalStateException if recovery cannot reach PostgreSQL
   */
  public static Facade open(FacadeConfig config) {
    return new Facade(config);
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
    HoldDecision d = settlement.attest(eventId, usage, costMicros, evidence, epoch);
    reconcileHolds();
    return d;
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
   */
  public int reconcileHolds() {
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
   */
  public PostgresSettlement settlement() {
    return settlement;
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
    out.println("  journal:    " + journalDir + (temporaryJournal ? " (temporary)" : ""));
    out.println("  PostgreSQL: " + database.description());
    out.println("  counters:   " + (redis == null ? "in process" : "Redis " + config.redisUrl()
        + " prefix " + config.redisPrefix()));
    out.println("  upstream:   " + (config.upstream() == null ? "in-process fixture provider"
        : config.upstream()));
    out.println("  recovery:   " + recoveredResettled + " settled records re-sent, "
        + recoveredInterrupted + " interrupted calls recorded UNKNOWN, " + recoveredHolds.size()
        + " unresolved holds counted against budgets");
  }

  @Override
  public void close() {
    housekeeping.shutdownNow();
    try {
      gateway.close();
    } finally {
      closeQuietly(accounting, cache, redis, database);
      if (temporaryJournal) {
        TempDirectories.delete(journalDir);
      }
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
