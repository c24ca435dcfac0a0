package io.pointsman.examples.sim;

import io.pointsman.CacheControl;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.StreamControl;
import io.pointsman.StreamObserver;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.journal.JournalConfig;
import io.pointsman.limits.BudgetState;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.Scope;
import io.pointsman.model.ChatChunk;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Choice;
import io.pointsman.model.ChunkChoice;
import io.pointsman.model.ChunkDelta;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.StreamOptions;
import io.pointsman.model.Usage;
import io.pointsman.router.BackoffRetryPolicy;
import io.pointsman.router.Cooldown;
import io.pointsman.router.DeploymentRouter;
import io.pointsman.router.RoutedDeployment;
import io.pointsman.spi.ChunkSink;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.DispatchIntent;
import io.pointsman.spi.Exchange;
import io.pointsman.spi.InsertionPoint;
import io.pointsman.spi.InterruptedCall;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderReply;
import io.pointsman.spi.Reply;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.UsageRecord;
import io.pointsman.testing.FakeClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * One seeded run of the whole-gateway simulation: the real {@link Gateway}, the real
 * {@link DeploymentRouter} with retries and a fallback model, the real {@link CounterLimiter}
 * over a fault-injecting {@link FaultyCounterStore}, and the real {@link JournalAccounting} on
 * a temporary directory over a fault-injecting settlement ({@link SimLedger}), with a
 * fault-injecting provider, stream observers and custom stages at every insertion point.
 *
 * <p>The seed fixes the configuration (budgets, attempts, synchronous or batched settlement),
 * the fault profile (which {@link Fault} classes may be injected), the workload (a short
 * sequence of plain and streamed calls, some with n &gt; 1, various max tokens, repeats for
 * cache hits, an unknown key now and then), every fault and every restart. Calls run one at a
 * time on the calling thread against a {@link FakeClock}, so a seed replays exactly (the
 * journal's settler thread runs in the background, but nothing checked depends on its timing).
 *
 * <p>Invariants, checked at every provider send, after every call, after every restart and at
 * the end (names as reported):
 *
 * <ul>
 *   <li>{@code one-record}: an authenticated call hands exactly one usage record to accounting
 *       before it returns or throws (none for an unknown key), under the call's event id;
 *   <li>{@code typed-error}: a call fails only with a PointsmanException, or with the Error a
 *       seam threw deliberately;
 *   <li>{@code unaccounted-success}: a call whose record could not be made durable fails;
 *   <li>{@code result-matches-record}: a successful result reports the recorded cost;
 *   <li>{@code hold-ended-once}: every reservation is ended exactly once before the call
 *       returns; {@code settle-matches-record}: settled at the recorded cost when anything was
 *       dispatched, released otherwise;
 *   <li>{@code intent-before-send}: no provider send without a durable dispatch intent;
 *   <li>{@code retry-held}: at every send, the reservation holds the worst case of this attempt
 *       and of every earlier attempt that may have been billed (retries after an unknown
 *       outcome take an extra hold through {@code Reservation.extend});
 *   <li>{@code charge-covers-billed}: the recorded charge is never below what the provider
 *       billed (for an unknown outcome it may have billed up to the worst case);
 *   <li>{@code budget-store}: spent + held, read from the counter store at every send and after
 *       every call, never exceeds a limit, except the documented overshoot of calls whose
 *       provider reported usage above the cap it was sent (excluded explicitly, counted);
 *   <li>{@code budget-ledger}: the same bound for what the usage records charge;
 *   <li>{@code store-drift}: while budgets are confirmed, the store holds exactly what the
 *       gateway's reservations say (spent, held, in flight), store faults included (pending
 *       ends are applied by the host's timer after each call, before the check);
 *   <li>{@code rebuild-complete}: counters rebuilt when budgets are confirmed (after a restart
 *       or a store wipe, once settlement answers and the journal drained into it) cover every
 *       usage record and every interrupted hold the journal recovered;
 *   <li>{@code ledger-exactly-once}: after the final recovery every usage record is settled
 *       exactly once with its cost, nothing else is, and replays change nothing;
 *   <li>{@code nothing-held}: at the end, once recovered holds are resolved, nothing is held
 *       and no concurrency slot is taken.
 * </ul>
 */
final class Simulation {
  /** How one run is set up. */
  record Options(Mutant mutant, Set<Fault> faults, boolean multiChoice, boolean trace) {
    static Options standard() {
      return new Options(Mutant.NONE, EnumSet.allOf(Fault.class), true, false);
    }
  }

  /** One broken invariant. */
  record Violation(long seed, int step, String invariant, String detail, Set<String> tags) {
    @Override
    public String toString() {
      return "seed " + seed + " step " + step + " [" + invariant + "] " + detail + " tags="
          + tags;
    }
  }

  /** What a run did. */
  static final class Stats {
    int calls;
    int sends;
    int restarts;
    int wipes;
    int overshootCalls;
    long overshootMicros;
    final Map<String, Integer> outcomes = new LinkedHashMap<>();
    final Map<String, Integer> tags = new LinkedHashMap<>();

    void add(Stats o) {
      calls += o.calls;
      sends += o.sends;
      restarts += o.restarts;
      wipes += o.wipes;
      overshootCalls += o.overshootCalls;
      overshootMicros += o.overshootMicros;
      o.outcomes.forEach((k, v) -> outcomes.merge(k, v, Integer::sum));
      o.tags.forEach((k, v) -> tags.merge(k, v, Integer::sum));
    }
  }

  /** A run's result. */
  record Result(long seed, Set<Fault> profile, List<Violation> violations, Stats stats) {}

  static final String KEY1 = "sk-sim-key-one-0001";
  static final String KEY2 = "sk-sim-key-two-0002";
  static final String KEY3 = "sk-sim-key-three-0003";
  static final String BAD_KEY = "sk-sim-unknown-key-9999";
  static final Price PRICE_M1 = Price.of(2_000_000, 8_000_000);
  static final Price PRICE_D2 = Price.of(3_000_000, 12_000_000);
  static final Price PRICE_M2 = Price.of(500_000, 2_000_000);
  static final int WINDOW = 4096;
  static final int MAX_OUT = 512;
  /** The limiter's tries of one store operation (its default). */
  static final int STORE_ATTEMPTS = 3;
  private static final int[] STATUSES = {400, 401, 403, 404, 408, 409, 413, 422, 429, 500, 502,
      503, 504, 529};
  private static final String[] WORDS = {" hello", " world", " budget", " ledger", " token",
      " answer", " stream", " route"};

  // ---------------------------------------------------------------------------------------
  // Configuration drawn from the seed

  private final long seed;
  private final Options options;
  private final Random random;
  private final Set<Fault> profile;
  private final boolean synchronous;
  private final int maxAttempts;
  private final Map<Scope, Long> limits = new LinkedHashMap<>();
  private final Path directory;

  // ---------------------------------------------------------------------------------------
  // The world

  private final FakeClock clock = new FakeClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final SimLedger ledger = new SimLedger(clock);
  private final FaultyCounterStore store = new FaultyCounterStore(this::tag);
  private final CounterLimiter limiter;
  private final TrackingLimiter tracking;
  private final RecordingAccounting recording;
  private final ModelCatalog catalog;
  private final InMemoryKeyStore keys;
  private JournalAccounting journal;
  private Gateway gateway;
  private final Map<String, DispatchIntent> unresolved = new LinkedHashMap<>();
  private List<Reservation> recoveredHolds = new ArrayList<>();

  // ---------------------------------------------------------------------------------------
  // What the checks compare against

  private final List<Violation> violations = new ArrayList<>();
  private final Stats stats = new Stats();
  private final Map<Scope, Long> allowance = new LinkedHashMap<>();
  private final Map<Scope, long[]> expected = new LinkedHashMap<>();
  private final Map<String, RecordingAccounting.RecordCall> allRecords = new LinkedHashMap<>();
  private boolean slotLeakReported;
  /** Budgets confirmed against settlement (the facade's gate open). */
  private boolean confirmed;
  private int stepIndex;
  private Step step;

  private Simulation(long seed, Options options, Path root) {
    this.seed = seed;
    this.options = options;
    this.random = new Random(seed);
    this.profile = drawProfile();
    boolean needsSync = profile.contains(Fault.SETTLEMENT_FLAKY)
        || (profile.contains(Fault.SETTLEMENT_SLOW) && random.nextBoolean());
    this.synchronous = needsSync || random.nextInt(4) == 0;
    this.maxAttempts = 1 + random.nextInt(4);
    limits.put(Scope.key("k1"), 15_000L + random.nextInt(45_000));
    limits.put(Scope.team("t1"), 25_000L + random.nextInt(65_000));
    limits.put(Scope.org("o"), 40_000L + random.nextInt(110_000));
    for (Scope s : limits.keySet()) {
      allowance.put(s, 0L);
      expected.put(s, new long[2]);
    }
    CounterLimiter.Builder lb = CounterLimiter.builder(store).clock(clock)
        .storeAttempts(STORE_ATTEMPTS).concurrency(Scope.key("k2"), 1);
    limits.forEach(lb::budget);
    this.limiter = lb.build();
    this.tracking = new TrackingLimiter(new Gate(), new Listener(), options.mutant());
    this.recording = new RecordingAccounting(null, options.mutant());
    this.catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("m1").contextWindow(WINDOW).maxOutputTokens(MAX_OUT)
            .price(PRICE_M1).capabilities(ModelSpec.STREAMING).build())
        .model(ModelSpec.builder("m2").contextWindow(WINDOW).maxOutputTokens(MAX_OUT)
            .price(PRICE_M2).capabilities(ModelSpec.STREAMING).build())
        .build();
    this.keys = new InMemoryKeyStore(clock);
    keys.addKey(KEY1, KeySpec.builder("k1").team("t1").org("o").build());
    keys.addKey(KEY2, KeySpec.builder("k2").team("t1").org("o").build());
    keys.addKey(KEY3, KeySpec.builder("k3").team("t2").org("o").build());
    try {
      this.directory = Files.createTempDirectory(root, "sim-" + seed + "-");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Set<Fault> drawProfile() {
    List<Fault> enabled = new ArrayList<>(options.faults());
    Set<Fault> p = EnumSet.noneOf(Fault.class);
    if (enabled.isEmpty() || random.nextInt(10) == 0) {
      return p;
    }
    p.add(enabled.get(random.nextInt(enabled.size())));
    if (random.nextInt(3) == 0) {
      int more = 1 + random.nextInt(2);
      for (int i = 0; i < more; i++) {
        p.add(enabled.get(random.nextInt(enabled.size())));
      }
    }
    return p;
  }

  /**
   * Runs one seed.
   *
   * @param seed the seed
   * @param options the setup
   * @param root where temporary journal directories go
   * @return what happened
   */
  static Result run(long seed, Options options, Path root) {
    Simulation sim = new Simulation(seed, options, root);
    try {
      sim.runAll();
    } catch (Throwable e) {
      sim.violation("harness", "unexpected " + e + " at " + firstFrames(e));
    } finally {
      sim.cleanUp();
    }
    return new Result(seed, sim.profile, sim.violations, sim.stats);
  }

  private static String firstFrames(Throwable e) {
    StringBuilder b = new StringBuilder();
    StackTraceElement[] st = e.getStackTrace();
    for (int i = 0; i < Math.min(4, st.length); i++) {
      b.append(i == 0 ? "" : " < ").append(st[i]);
    }
    return b.toString();
  }

  // ---------------------------------------------------------------------------------------
  // The run

  private void runAll() {
    int calls = 8 + random.nextInt(17);
    // Drawn up front, so a run's workload and faults do not depend on what the gateway did.
    List<Plan> plans = new ArrayList<>();
    List<Boolean> restartsBefore = new ArrayList<>();
    List<Boolean> wipesBefore = new ArrayList<>();
    List<SimLedger.Mode> modes = new ArrayList<>();
    List<SimLedger.Mode> switches = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      plans.add(drawPlan(plans));
      restartsBefore.add(i > 0 && profile.contains(Fault.RESTART) && random.nextInt(6) == 0);
      wipesBefore.add(i > 0 && profile.contains(Fault.STORE_WIPE) && random.nextInt(6) == 0);
      modes.add(drawMode());
      // Settlement changes state while the process runs (an outage starts or ends), or across
      // a restart.
      int change = settlementFaults() ? random.nextInt(10) : 9;
      switches.add(change < 2 ? drawMode() : null);
      if (change == 2) {
        restartsBefore.set(i, true);
      }
    }
    ledger.mode(drawMode());
    openEpoch();
    store.wipe();
    confirmIfPossible("start");
    for (int i = 0; i < calls; i++) {
      stepIndex = i + 1;
      if (restartsBefore.get(i)) {
        restart(modes.get(i));
      }
      if (switches.get(i) != null) {
        switchSettlement(switches.get(i));
      }
      if (wipesBefore.get(i)) {
        wipe();
      }
      runCall(plans.get(i));
    }
    stepIndex = calls + 1;
    step = new Step(null);
    restart(SimLedger.Mode.HEALTHY);
    finalChecks();
  }

  private boolean settlementFaults() {
    return profile.contains(Fault.SETTLEMENT_DOWN) || profile.contains(Fault.SETTLEMENT_SLOW)
        || profile.contains(Fault.SETTLEMENT_FLAKY);
  }

  private SimLedger.Mode drawMode() {
    List<SimLedger.Mode> bad = new ArrayList<>();
    if (profile.contains(Fault.SETTLEMENT_DOWN)) {
      bad.add(SimLedger.Mode.DOWN);
    }
    if (profile.contains(Fault.SETTLEMENT_SLOW)) {
      bad.add(synchronous ? SimLedger.Mode.SLOW : SimLedger.Mode.GATED);
    }
    if (profile.contains(Fault.SETTLEMENT_FLAKY) && synchronous) {
      bad.add(SimLedger.Mode.FLAKY);
    }
    if (bad.isEmpty() || random.nextBoolean()) {
      return SimLedger.Mode.HEALTHY;
    }
    return bad.get(random.nextInt(bad.size()));
  }

  private void openEpoch() {
    JournalConfig config = JournalConfig.builder(directory).segmentBytes(64 * 1024)
        .preallocationChunkBytes(16 * 1024).build();
    journal = JournalAccounting.builder(config, ledger).synchronousSettlement(synchronous)
        .drainTimeout(Duration.ZERO).maxBatch(64).settlerThreads(1).clock(clock).open();
    recording.delegate(journal);
    for (InterruptedCall c : journal.recovery().interrupted()) {
      unresolved.putIfAbsent(c.eventId(), c.lastIntent());
    }
    DeploymentRouter router = DeploymentRouter.builder()
        .deployment(RoutedDeployment.of(Deployment.of("d1", "p1", "m1")))
        .deployment(RoutedDeployment.of(new Deployment("d2", "p2", "m1", "m1", PRICE_D2)))
        .deployment(RoutedDeployment.of(Deployment.of("d3", "p3", "m2")))
        .fallback("m1", "m2")
        .catalog(catalog)
        .cooldown(new Cooldown(2, Duration.ofSeconds(20), Duration.ofMinutes(2)))
        .clock(clock)
        .random(new Random(random.nextLong()))
        .build();
    Provider provider = new SimProvider();
    Gateway.Builder b = Gateway.builder()
        .authenticator(keys)
        .models(catalog)
        .limiter(tracking)
        .router(router)
        .retryPolicy(BackoffRetryPolicy.builder().maxAttempts(maxAttempts)
            .backoff(Duration.ZERO, Duration.ZERO).maxRetryAfter(Duration.ZERO)
            .random(new Random(random.nextLong())).build())
        .provider("p1", provider)
        .provider("p2", provider)
        .provider("p3", provider)
        .accounting(recording)
        .clock(clock);
    for (InsertionPoint p : InsertionPoint.values()) {
      b.stage(p, "sim-" + p.name().toLowerCase(java.util.Locale.ROOT), (ex, chain) ->
          stage(p, ex, chain));
    }
    gateway = b.build();
  }

  /** Stops the process (without waiting for settlement) and starts it again. */

  private void restart(SimLedger.Mode next) {
    stats.restarts++;
    step = new Step(null);
    tag("restart");
    if (ledger.mode() != SimLedger.Mode.HEALTHY || next != SimLedger.Mode.HEALTHY) {
      tag("settlement:" + ledger.mode() + "->" + next);
    }
    trace("restart (settlement " + ledger.mode() + " -> " + next + ")");
    drainIfHealthy();
    journal.close();
    ledger.mode(next);
    // The process's memory, the in-process counters with it, is gone.
    store.wipe();
    confirmed = false;
    openEpoch();
    confirmIfPossible("restart");
  }

  /** Settlement changes state while the process runs. */
  private void switchSettlement(SimLedger.Mode next) {
    if (next == ledger.mode()) {
      return;
    }
    step = new Step(null);
    tag("settlement:" + ledger.mode() + "->" + next);
    trace("settlement " + ledger.mode() + " -> " + next + " (no restart)");
    ledger.mode(next);
    confirmIfPossible("settlement " + next);
  }

  /**
   * The counter store loses its data. The in-process store can only lose its counters with its
   * process; the host then does what it does at start: budgets are refused until the counters
   * are rebuilt from a settlement that has every journaled record.
   */
  private void wipe() {
    stats.wipes++;
    step = new Step(null);
    if (ledger.mode() != SimLedger.Mode.HEALTHY) {
      tag("settlement:" + ledger.mode());
    }
    tag("store:WIPE");
    trace("store wiped");
    store.wipe();
    confirmed = false;
    confirmIfPossible("wipe");
  }

  /** Whether settlement can be read and commits (a host could confirm budgets against it). */
  private boolean settlementAnswers() {
    SimLedger.Mode m = ledger.mode();
    return m == SimLedger.Mode.HEALTHY || m == SimLedger.Mode.SLOW || m == SimLedger.Mode.FLAKY;
  }

  private void drainIfHealthy() {
    if (settlementAnswers()) {
      if (!journal.awaitDrained(Duration.ofSeconds(30))) {
        violation("harness", "settlement did not drain while healthy");
      }
    }
  }

  /**
   * Confirms the budgets as a durable gateway does ({@code Durability}): only once settlement
   * answers and every record the journal holds reached it, the counters are rebuilt from
   * settlement (spent, and the unresolved holds of interrupted calls) and budgeted calls are
   * admitted again. Until then they are refused with 503 {@code budget.unconfirmed}. Waiting for
   * the drain here, rather than letting the next call race the settler, keeps a seed
   * deterministic.
   */
  private void confirmIfPossible(String why) {
    if (confirmed || !settlementAnswers()) {
      if (!confirmed) {
        trace("budgets not confirmed (" + why + ", settlement " + ledger.mode() + ")");
      }
      return;
    }
    drainIfHealthy();
    rebuild(why);
    confirmed = true;
  }

  /**
   * Rebuilds the in-process counters as a host does when it confirms budgets: spent from
   * settlement, held from settlement's unresolved interrupted calls (docs/limits.md,
   * "Start-up: rebuilding counters"; the facade's {@code tryConfirm}).
   */
  private void rebuild(String why) {
    List<DispatchIntent> fromLedger = new ArrayList<>();
    for (InterruptedCall c : ledger.interrupted.values()) {
      fromLedger.add(c.lastIntent());
    }
    fromLedger.sort(Comparator.comparing(DispatchIntent::eventId));
    List<DispatchIntent> held = new ArrayList<>(unresolved.values());
    recoveredHolds = limiter.rebuild((scope, from, to) -> ledger.spent(scope), fromLedger);
    slotLeakReported = false;
    for (Map.Entry<Scope, long[]> e : expected.entrySet()) {
      Scope s = e.getKey();
      long spent = 0;
      for (RecordingAccounting.RecordCall rc : allRecords.values()) {
        if (matches(s, rc.record)) {
          spent += rc.record.costMicros();
        }
      }
      long heldSum = 0;
      for (DispatchIntent i : held) {
        if (s.matches(i.keyId(), i.teamId(), i.orgId(), i.tags(), i.model())) {
          heldSum += i.heldMicros();
        }
      }
      e.getValue()[0] = spent;
      e.getValue()[1] = heldSum;
      {
        BudgetState b = limiter.budget(s);
        if (b.spentMicros() != spent || b.heldMicros() != heldSum) {
          violation("rebuild-complete", "after " + why + " (settlement " + ledger.mode()
              + ") " + s + " rebuilt spent " + b.spentMicros() + " held " + b.heldMicros()
              + " but the durable usage records charge " + spent + " and interrupted calls"
              + " hold " + heldSum);
          // Follow the store from here, so one shortfall is reported once.
          e.getValue()[0] = b.spentMicros();
          e.getValue()[1] = b.heldMicros();
        }
      }
    }
    checkBudgets("after the " + why + "'s rebuild");
  }

  private static boolean matches(Scope s, UsageRecord r) {
    return s.matches(r.keyId(), r.teamId(), r.orgId(), r.tags(), r.model());
  }

  // ---------------------------------------------------------------------------------------
  // One call

  /** A call's workload and faults, drawn before it runs. */
  private final class Plan {
    final Random r;
    String key;
    ChatRequest request;
    boolean stream;
    int n;
    Duration timeout;
    CacheControl cache;
    final List<Fault> attempts = new ArrayList<>();
    Fault observer;
    int observerAt;
    InsertionPoint stagePoint;
    Fault stageFault;
    boolean stageBefore;
    FaultyCounterStore.Armed storeFault;
    final Set<Throwable> injectedErrors = java.util.Collections.newSetFromMap(
        new java.util.IdentityHashMap<>());

    Plan(long seed) {
      this.r = new Random(seed);
    }

    Fault attempt(int attempt) {
      return attempt <= attempts.size() ? attempts.get(attempt - 1) : null;
    }
  }

  private Plan drawPlan(List<Plan> earlier) {
    Plan p = new Plan(random.nextLong());
    int k = random.nextInt(100);
    p.key = k < 5 ? BAD_KEY : k < 65 ? KEY1 : k < 88 ? KEY2 : KEY3;
    p.stream = random.nextInt(100) < 35;
    if (!p.stream && !earlier.isEmpty() && random.nextInt(7) == 0) {
      Plan again = earlier.get(random.nextInt(earlier.size()));
      p.request = again.request.isStream() ? again.request.toBuilder().stream(false).build()
          : again.request;
      p.n = again.n;
    } else {
      ChatRequest.Builder b = ChatRequest.builder()
          .model(random.nextInt(10) == 0 ? "m2" : "m1");
      StringBuilder prompt = new StringBuilder("question " + random.nextInt(1000));
      int words = random.nextInt(80);
      for (int i = 0; i < words; i++) {
        prompt.append(WORDS[random.nextInt(WORDS.length)]);
      }
      b.addMessage(Message.user(prompt.toString()));
      int[] caps = {0, 1, 8, 64, 256, 512};
      int cap = caps[random.nextInt(caps.length)];
      if (cap > 0) {
        if (random.nextBoolean()) {
          b.maxTokens(cap);
        } else {
          b.maxCompletionTokens(cap);
        }
      }
      p.n = options.multiChoice() && random.nextInt(100) < 12 ? 2 + random.nextInt(2) : 1;
      if (p.n > 1) {
        b.n(p.n);
      }
      if (random.nextBoolean()) {
        b.temperature(0.0);
      }
      if (random.nextInt(40) == 0) {
        b.temperature(3.0);
      }
      if (p.stream && random.nextBoolean()) {
        b.streamOptions(new StreamOptions(true, null));
      }
      p.request = b.build();
    }
    if (p.n == 0) {
      p.n = 1;
    }
    p.timeout = random.nextBoolean() ? Duration.ofSeconds(30) : null;
    int c = random.nextInt(10);
    p.cache = c == 0 ? CacheControl.NO_CACHE : c == 1 ? CacheControl.NO_STORE
        : CacheControl.DEFAULT;

    List<Fault> providerFaults = new ArrayList<>(profile);
    providerFaults.retainAll(Fault.of(Fault.Boundary.PROVIDER));
    for (int a = 0; a < 4; a++) {
      p.attempts.add(!providerFaults.isEmpty() && random.nextInt(100) < 45
          ? providerFaults.get(random.nextInt(providerFaults.size())) : null);
    }
    List<Fault> observerFaults = new ArrayList<>(profile);
    observerFaults.retainAll(Fault.of(Fault.Boundary.OBSERVER));
    if (p.stream && !observerFaults.isEmpty() && random.nextInt(100) < 45) {
      p.observer = observerFaults.get(random.nextInt(observerFaults.size()));
      p.observerAt = random.nextInt(3);
    }
    List<Fault> stageFaults = new ArrayList<>(profile);
    stageFaults.retainAll(Fault.of(Fault.Boundary.STAGE));
    if (!stageFaults.isEmpty() && random.nextInt(100) < 45) {
      p.stageFault = stageFaults.get(random.nextInt(stageFaults.size()));
      InsertionPoint[] points = InsertionPoint.values();
      p.stagePoint = p.stageFault == Fault.STAGE_RETRIES_REPLY
          || p.stageFault == Fault.STAGE_SWALLOWS_FAILURE ? InsertionPoint.BEFORE_PROVIDER
          : points[random.nextInt(points.length)];
      p.stageBefore = random.nextBoolean();
    }
    if (profile.contains(Fault.STORE_TIMEOUT) && random.nextInt(100) < 35) {
      FaultyCounterStore.Op[] ops = FaultyCounterStore.Op.values();
      p.storeFault = new FaultyCounterStore.Armed(ops[random.nextInt(ops.length)],
          1 + random.nextInt(STORE_ATTEMPTS));
    }
    return p;
  }

  /** What one call did, as the seams saw it. */
  private final class Step {
    final Plan plan;
    final Set<String> tags = new TreeSet<>();
    final List<Send> sends = new ArrayList<>();
    TrackingLimiter.Tracked reservation;
    int reservations;
    boolean overCapUsed;
    long overCapAllowed;

    Step(Plan plan) {
      this.plan = plan;
    }
  }

  /** One provider send and what the provider billed for it. */
  private static final class Send {
    final String eventId;
    final int attempt;
    final String deployment;
    long billed;
    boolean mayHaveBilled;
    boolean overCap;
    long overCapExcess;
    /** The reply was lost to an exception from the caller's side (a stream observer). */
    boolean lost;
    long worst;

    Send(String eventId, int attempt, String deployment) {
      this.eventId = eventId;
      this.attempt = attempt;
      this.deployment = deployment;
    }
  }

  private void tag(String t) {
    if (step != null) {
      step.tags.add(t);
    }
    stats.tags.merge(t, 1, Integer::sum);
  }

  private void runCall(Plan plan) {
    step = new Step(plan);
    stats.calls++;
    recording.stepIntents.clear();
    recording.stepRecords.clear();
    if (plan.stream) {
      tag("stream");
    }
    if (plan.n > 1) {
      tag("n>1");
    }
    if (synchronous) {
      tag("sync-settlement");
    }
    if (ledger.mode() != SimLedger.Mode.HEALTHY) {
      tag("settlement:" + ledger.mode());
    }
    store.arm(plan.storeFault);
    CallOptions.Builder ob = CallOptions.builder(plan.key).cacheControl(plan.cache);
    if (plan.timeout != null) {
      ob.timeout(plan.timeout);
    }
    CallOptions callOptions = ob.build();
    ChatResult result = null;
    Throwable thrown = null;
    try {
      result = plan.stream ? gateway.stream(plan.request, callOptions, new SimObserver(plan))
          : gateway.chat(plan.request, callOptions);
    } catch (Throwable t) {
      thrown = t;
    }
    boolean wasInterrupted = Thread.interrupted();
    store.arm(null);
    // The host's timer: ends the store did not confirm are applied once it answers again.
    if (limiter.pendingEnds() > 0) {
      tag("pending-end");
      int left = limiter.retryPendingEnds();
      if (left != 0) {
        violation("harness", left + " ends still pending once the store answers");
      }
    }
    clock.advance(Duration.ofMillis(plan.r.nextInt(3000)));
    String what = result != null ? "ok " + result.outcome() + " cost " + result.costMicros()
        : thrown instanceof PointsmanException pe ? pe.status().httpStatus() + " at "
            + pe.stage() + (pe.rule() == null ? "" : " (" + pe.rule() + ")") + ": "
            + pe.getMessage() : String.valueOf(thrown);
    RecordingAccounting.RecordCall rc = recording.stepRecords.isEmpty() ? null
        : recording.stepRecords.get(0);
    stats.outcomes.merge(rc == null ? "no record" : rc.record.outcome().name(), 1,
        Integer::sum);
    trace("call " + stepIndex + " " + (plan.key.equals(BAD_KEY) ? "bad-key" : plan.key.equals(KEY1) ? "k1" : plan.key.equals(KEY2) ? "k2" : "k3") + (plan.stream ? " stream" : "")
        + " n=" + plan.n + " cap=" + plan.request.outputTokenCap() + " attempts="
        + plan.attempts + " stage=" + plan.stagePoint + "/" + plan.stageFault + " store="
        + plan.storeFault + " observer=" + plan.observer + " -> " + what + " sends="
        + step.sends.size() + " record=" + (rc == null ? null : rc.record.outcome() + " "
        + rc.record.costMicros() + (rc.durable ? "" : " NOT durable")) + " tags=" + step.tags
        + (wasInterrupted ? " (interrupt flag left set)" : ""));
    checkCall(plan, result, thrown, what);
  }

  private void checkCall(Plan plan, ChatResult result, Throwable thrown, String what) {
    boolean authenticated = !plan.key.equals(BAD_KEY);
    List<RecordingAccounting.RecordCall> records = recording.stepRecords;
    RecordingAccounting.RecordCall rc = records.size() == 1 ? records.get(0) : null;
    if (authenticated && records.size() != 1) {
      violation("one-record", records.size() + " usage records for one authenticated call ("
          + what + ")");
    }
    if (!authenticated && (!records.isEmpty() || !recording.stepIntents.isEmpty())) {
      violation("one-record", "a call with an unknown key produced " + records.size()
          + " records and " + recording.stepIntents.size() + " intents");
    }
    for (RecordingAccounting.RecordCall r : records) {
      allRecords.put(r.record.eventId(), r);
    }
    if (thrown != null && !(thrown instanceof PointsmanException)
        && !plan.injectedErrors.contains(thrown)) {
      violation("typed-error", "the call failed with " + thrown + " at " + firstFrames(thrown));
    }
    if (rc != null) {
      String id = rc.record.eventId();
      for (DispatchIntent i : recording.stepIntents) {
        if (!i.eventId().equals(id)) {
          violation("one-record", "intent of event " + i.eventId() + " but record of " + id);
        }
      }
      for (Send s : step.sends) {
        if (!s.eventId.equals(id)) {
          violation("one-record", "send of event " + s.eventId + " but record of " + id);
        }
      }
      if (rc.failure != null && result != null) {
        violation("unaccounted-success", "the call succeeded although its record failed: "
            + rc.failure);
      }
      if (result != null && (result.costMicros() != rc.record.costMicros()
          || !result.eventId().equals(id))) {
        violation("result-matches-record", "result cost " + result.costMicros() + " event "
            + result.eventId() + ", record cost " + rc.record.costMicros() + " event " + id);
      }
    }
    TrackingLimiter.Tracked t = step.reservation;
    if (step.reservations > 1) {
      violation("hold-ended-once", step.reservations + " reservations for one call");
    }
    if (t != null) {
      if (t.ends.get() != 1) {
        violation("hold-ended-once", "the reservation was ended " + t.ends.get() + " times ("
            + what + ")");
      }
      if (rc != null && t.ends.get() == 1) {
        boolean dispatched = rc.record.attempts() > 0;
        if (dispatched != endedBySettle.getOrDefault(t, false)
            || (dispatched && endedAmount.getOrDefault(t, -1L) != rc.record.costMicros())) {
          violation("settle-matches-record", "record " + rc.record.outcome() + " attempts "
              + rc.record.attempts() + " cost " + rc.record.costMicros() + " but the hold was "
              + (endedBySettle.getOrDefault(t, false) ? "settled at " + endedAmount.get(t)
              : "released"));
        }
      }
    }
    long billed = 0;
    for (Send s : step.sends) {
      // Usage above the cap in a reply the gateway never saw can only be known up to the
      // attempt's worst case.
      billed += s.overCap && s.lost ? Math.min(s.billed, s.worst) : s.billed;
      if (s.overCap) {
        step.overCapUsed = true;
        step.overCapAllowed = s.overCapExcess >= Long.MAX_VALUE / 8 ? Long.MAX_VALUE / 8
            : step.overCapAllowed + s.overCapExcess;
      }
    }
    if (rc != null && rc.record.costMicros() < billed) {
      violation("charge-covers-billed", "charged " + rc.record.costMicros() + " but the"
          + " provider billed " + billed + " over " + step.sends.size() + " sends ("
          + rc.record.outcome() + ", " + what + ")");
    }
    // The documented overshoot: usage reported above the cap the request was sent with.
    if (rc != null && t != null && step.overCapUsed) {
      long excess = Math.min(Math.max(0, rc.record.costMicros() - t.held), step.overCapAllowed);
      if (excess > 0) {
        stats.overshootCalls++;
        stats.overshootMicros += excess;
        for (Scope s : limits.keySet()) {
          if (matches(s, rc.record)) {
            allowance.merge(s, excess, Long::sum);
          }
        }
      }
    }
    checkBudgets("after the call");
    checkDrift();
  }

  private final Map<TrackingLimiter.Tracked, Boolean> endedBySettle = new HashMap<>();
  private final Map<TrackingLimiter.Tracked, Long> endedAmount = new HashMap<>();

  /**
   * The budget gate of a durable gateway ({@code Durability}): until the budgets are confirmed
   * against settlement, a call under a budget is refused with 503 at {@code ratelimit.reserve}, rule
   * {@code budget.unconfirmed}; calls no budget governs pass.
   */
  private final class Gate implements io.pointsman.spi.Limiter {
    @Override
    public Reservation reserve(io.pointsman.spi.Admission admission) {
      if (!confirmed) {
        for (Scope s : limits.keySet()) {
          if (s.matches(admission)) {
            tag("budget.unconfirmed");
            throw PointsmanException.denied(io.pointsman.Status.UNAVAILABLE,
                io.pointsman.Stages.RATELIMIT_RESERVE, "budget.unconfirmed", "budget " + s
                    + " is not confirmed against settlement yet");
          }
        }
      }
      return limiter.reserve(admission);
    }
  }

  private final class Listener implements TrackingLimiter.Listener {
    @Override
    public void granted(TrackingLimiter.Tracked r) {
      if (step != null) {
        step.reservation = r;
        step.reservations++;
      }
      if (r.held > 0) {
        for (Map.Entry<Scope, long[]> e : expected.entrySet()) {
          if (e.getKey().matches(r.admission)) {
            e.getValue()[1] += r.held;
          }
        }
      }
    }

    @Override
    public void ended(TrackingLimiter.Tracked r, boolean settled, long amount) {
      endedBySettle.put(r, settled);
      endedAmount.put(r, amount);
      if (r.ends.get() > 1) {
        return;
      }
      for (Map.Entry<Scope, long[]> e : expected.entrySet()) {
        if (e.getKey().matches(r.admission) && r.inner.heldMicros() > 0) {
          e.getValue()[1] -= r.held;
          if (settled) {
            e.getValue()[0] += amount;
          }
        }
      }
    }

    @Override
    public void extended(TrackingLimiter.Tracked r, long amount, boolean held) {
      tag("extend");
      if (held) {
        for (Map.Entry<Scope, long[]> e : expected.entrySet()) {
          if (e.getKey().matches(r.admission)) {
            e.getValue()[1] += amount;
          }
        }
      }
    }
  }

  private final Map<String, Long> reportedExcess = new HashMap<>();

  private void checkBudgets(String when) {
    Map<String, BudgetState> budgets = limiter.budgets();
    for (BudgetState b : budgets.values()) {
      long bound = b.limitMicros() + allowance.get(b.scope());
      long excess = b.spentMicros() + b.heldMicros() - bound;
      if (excess > reportedExcess.getOrDefault("store " + b.scope(), 0L)) {
        // Reported when the excess first appears or grows, so the step that caused it is named.
        reportedExcess.put("store " + b.scope(), excess);
        violation("budget-store", when + ": " + b.scope() + " spent " + b.spentMicros()
            + " + held " + b.heldMicros() + " > limit " + b.limitMicros() + " + documented"
            + " overshoot " + allowance.get(b.scope()));
      }
    }
    if (step != null && step.plan != null && when.startsWith("after")) {
      for (Scope s : limits.keySet()) {
        long charged = 0;
        for (RecordingAccounting.RecordCall rc : allRecords.values()) {
          if (matches(s, rc.record)) {
            charged += rc.record.costMicros();
          }
        }
        for (DispatchIntent i : unresolved.values()) {
          if (s.matches(i.keyId(), i.teamId(), i.orgId(), i.tags(), i.model())) {
            charged += i.heldMicros();
          }
        }
        long bound = limits.get(s) + allowance.get(s);
        if (charged - bound > reportedExcess.getOrDefault("ledger " + s, 0L)) {
          reportedExcess.put("ledger " + s, charged - bound);
          violation("budget-ledger", when + ": usage records charge " + s + " " + charged
              + " > limit " + limits.get(s) + " + documented overshoot " + allowance.get(s));
        }
      }
    }
  }

  private void checkDrift() {
    // Store faults are checked too: an operation that did not apply is retried or kept
    // pending, and pending ends were applied before this check. Unconfirmed budgets admit
    // nothing, and their counters wait for the rebuild.
    if (!confirmed) {
      return;
    }
    for (Map.Entry<Scope, long[]> e : expected.entrySet()) {
      BudgetState b = limiter.budget(e.getKey());
      long spent = e.getValue()[0];
      long held = e.getValue()[1];
      if (b.spentMicros() != spent || b.heldMicros() != held) {
        violation("store-drift", e.getKey() + " store spent " + b.spentMicros() + " held "
            + b.heldMicros() + ", the gateway's reservations say spent " + spent + " held "
            + held);
        e.getValue()[0] = b.spentMicros();
        e.getValue()[1] = b.heldMicros();
      }
    }
    long inFlight = limiter.inflight(Scope.key("k2"));
    if (inFlight != 0 && !slotLeakReported) {
      violation("store-drift", "a concurrency slot of key k2 is still taken between calls ("
          + inFlight + ")");
      slotLeakReported = true;
    }
  }

  // ---------------------------------------------------------------------------------------
  // The end

  private void finalChecks() {
    if (!journal.awaitDrained(Duration.ofSeconds(30))) {
      violation("ledger-exactly-once", "settlement did not drain after the final recovery");
    }
    for (RecordingAccounting.RecordCall rc : allRecords.values()) {
      UsageRecord r = rc.record;
      UsageRecord settled = ledger.settled.get(r.eventId());
      if (settled == null) {
        violation("ledger-exactly-once", "the usage record of " + r.eventId() + " ("
            + r.outcome() + ", durable " + rc.durable + ") never reached settlement");
      } else if (!settled.equals(r)) {
        violation("ledger-exactly-once", "settlement holds another record for " + r.eventId()
            + ": cost " + settled.costMicros() + " instead of " + r.costMicros());
      }
    }
    for (String id : ledger.settled.keySet()) {
      if (!allRecords.containsKey(id)) {
        violation("ledger-exactly-once", "settlement holds a record never handed to"
            + " accounting: " + id);
      }
    }
    for (String id : recording.dispatchedEvents) {
      if (!allRecords.containsKey(id) && !ledger.interrupted.containsKey(id)) {
        violation("ledger-exactly-once", "dispatched call " + id + " is neither settled nor"
            + " held as interrupted");
      }
    }
    if (!ledger.conflicts.isEmpty()) {
      violation("ledger-exactly-once", "replays changed settled rows: " + ledger.conflicts);
    }
    // Resolve the recovered holds as the ledger would when their hold window ends.
    for (Reservation r : recoveredHolds) {
      r.settle(r.heldMicros());
    }
    recoveredHolds = List.of();
    for (BudgetState b : limiter.budgets().values()) {
      if (b.heldMicros() != 0) {
        violation("nothing-held", b.scope() + " still holds " + b.heldMicros()
            + " at the end");
      }
    }
    if (limiter.inflight(Scope.key("k2")) != 0) {
      violation("nothing-held", "a concurrency slot is still taken at the end");
    }
  }

  private void cleanUp() {
    try {
      if (journal != null) {
        journal.close();
      }
    } catch (RuntimeException e) {
      violation("harness", "closing the journal failed: " + e);
    }
    ledger.mode(SimLedger.Mode.HEALTHY);
    try (Stream<Path> files = Files.walk(directory)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void violation(String invariant, String detail) {
    Set<String> tags = step == null ? Set.of() : new TreeSet<>(step.tags);
    Violation v = new Violation(seed, stepIndex, invariant, detail, tags);
    violations.add(v);
    trace("VIOLATION " + v);
  }

  private void trace(String line) {
    if (options.trace()) {
      System.out.println("[sim " + seed + "] " + line);
    }
  }

  // ---------------------------------------------------------------------------------------
  // The provider

  private static Price priceOf(Deployment d) {
    if (d.priceOverride() != null) {
      return d.priceOverride();
    }
    return d.servesModel().equals("m2") ? PRICE_M2 : PRICE_M1;
  }

  private final class SimProvider implements Provider {
    @Override
    public ProviderReply send(ProviderCall call) {
      return answer(call, null);
    }

    @Override
    public ProviderReply stream(ProviderCall call, ChunkSink sink) {
      return answer(call, sink);
    }
  }

  private ProviderReply answer(ProviderCall call, ChunkSink sink) {
    Plan plan = step.plan;
    Send send = new Send(call.eventId(), call.attempt(), call.deployment().id());
    // Checks at the moment of the send.
    if (!recording.durableIntents.contains(RecordingAccounting.key(call.eventId(),
        call.attempt()))) {
      violation("intent-before-send", "attempt " + call.attempt() + " of " + call.eventId()
          + " sent to " + call.deployment().id() + " without a durable dispatch intent");
    }
    TrackingLimiter.Tracked t = step.reservation;
    if (t != null && t.inner.heldMicros() > 0) {
      long mayHaveBilled = step.sends.stream().filter(s -> s.mayHaveBilled).count();
      long needed = (mayHaveBilled + 1) * t.admission.worstCaseMicros();
      if (t.held < needed) {
        violation("retry-held", "attempt " + call.attempt() + " sent holding " + t.held
            + " after " + mayHaveBilled + " earlier attempts that may have been billed; the"
            + " worst cases need " + needed + " (extend called " + t.extendCalls + " times)");
      }
    }
    checkBudgets("at send of attempt " + call.attempt());
    step.sends.add(send);
    stats.sends++;

    Random r = plan.r;
    Fault f = plan.attempt(call.attempt());
    if (f == Fault.CUT_STREAM && sink == null) {
      f = Fault.UNKNOWN_OUTCOME;
    }
    if (f != null) {
      tag("provider:" + f);
    }
    ChatRequest req = call.request();
    Price price = priceOf(call.deployment());
    long bound = TokenBounds.upperBound(req);
    int n = req.n() == null ? 1 : Math.max(1, req.n());
    long cap = req.outputTokenCap() != null ? req.outputTokenCap()
        : Math.min(MAX_OUT, WINDOW - bound);
    long prompt = Math.min(TokenBounds.exact(req), bound);
    long worst = price.cost(bound, 0, cap * n);
    send.worst = worst;
    // What this attempt would bill if it answered: n choices of visible text.
    List<String> texts = new ArrayList<>();
    long visible = 0;
    for (int i = 0; i < n; i++) {
      String text = text(r, (int) Math.min(cap, 60));
      texts.add(text);
      visible += TokenBounds.count(text);
    }
    long reportedCompletion = visible + (long) r.nextInt((int) Math.max(1, cap * n - visible
        + 1));
    if (f == null || f == Fault.INTERRUPT || f == Fault.OVER_CAP || f == Fault.OVERFLOW_USAGE
        || f == Fault.NO_USAGE) {
      // Answers (possibly after interrupting the caller).
      boolean interruptThenFail = f == Fault.INTERRUPT && r.nextBoolean();
      if (f == Fault.INTERRUPT) {
        Thread.currentThread().interrupt();
        if (interruptThenFail) {
          send.mayHaveBilled = true;
          send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
          throw ProviderException.unknownOutcome("simulated: interrupted while waiting",
              new InterruptedException("simulated"));
        }
      }
      Usage usage;
      if (f == Fault.OVER_CAP) {
        long over = cap * n + 1 + r.nextInt((int) (3 * cap + 1));
        usage = r.nextBoolean() ? Usage.of(prompt, over)
            : Usage.of(bound + 1 + r.nextInt(200), Math.min(reportedCompletion, cap * n));
        send.overCap = true;
        send.billed = price.cost(usage.promptTokens(), 0, usage.completionTokens());
        send.overCapExcess = Math.max(0, send.billed - worst);
      } else if (f == Fault.OVERFLOW_USAGE) {
        usage = new Usage(Long.MAX_VALUE / 4, Long.MAX_VALUE / 4, Long.MAX_VALUE / 2, null,
            null, null);
        send.overCap = true;
        // The provider's real bill is unknown; it did at most a normal attempt's work.
        send.billed = worst;
        send.overCapExcess = Long.MAX_VALUE / 4;
      } else if (f == Fault.NO_USAGE || (sink != null && (req.streamOptions() == null
          || !Boolean.TRUE.equals(req.streamOptions().includeUsage())))) {
        usage = null;
        send.billed = price.cost(prompt, 0, visible);
      } else {
        usage = Usage.of(prompt, reportedCompletion);
        send.billed = price.cost(prompt, 0, reportedCompletion);
      }
      send.mayHaveBilled = true;
      if (sink == null) {
        return new ProviderReply(response(call, texts, usage), usage, false);
      }
      return streamOut(call, sink, texts, usage, send, prompt, price, -1, worst);
    }
    switch (f) {
      case NEGATIVE_USAGE -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        Usage garbage = Usage.of(-1 - r.nextInt(1000), reportedCompletion);
        return new ProviderReply(response(call, texts, garbage), garbage, false);
      }
      case ANSWERED -> {
        int status = STATUSES[r.nextInt(STATUSES.length)];
        int hint = r.nextInt(3);
        throw ProviderException.answered(status, "simulated", hint == 0 ? null
            : hint == 1 ? Duration.ZERO : Duration.ofHours(1));
      }
      case NOT_SENT -> throw ProviderException.notSent("simulated: connection refused", null);
      case UNKNOWN_OUTCOME -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        throw ProviderException.unknownOutcome("simulated: connection reset after the send",
            null);
      }
      case RUNTIME_EXCEPTION -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        throw new IllegalStateException("simulated adapter bug");
      }
      case NULL_REPLY -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        return null;
      }
      case HANG -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        Duration wait = Duration.ofSeconds(60);
        if (call.deadline() != null) {
          Duration left = Duration.between(clock.now(), call.deadline());
          wait = left.isNegative() ? Duration.ZERO : left;
        }
        clock.advance(wait);
        throw ProviderException.unknownOutcome("simulated: no answer before the deadline",
            null);
      }
      case CUT_STREAM -> {
        Usage usage = Usage.of(prompt, reportedCompletion);
        send.billed = price.cost(prompt, 0, reportedCompletion);
        return streamOut(call, sink, texts, usage, send, prompt, price, r.nextInt(3), worst);
      }
      case ERROR -> {
        send.mayHaveBilled = true;
        send.billed = r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1));
        int kind = r.nextInt(3);
        Error e = kind == 0 ? new OutOfMemoryError("simulated")
            : kind == 1 ? new StackOverflowError("simulated") : new AssertionError("simulated");
        plan.injectedErrors.add(e);
        throw e;
      }
      default -> throw new AssertionError(f);
    }
  }

  /**
   * Streams the texts as chunks; cuts the connection after {@code cutAfter} chunks when it is
   * not negative. A cancelled stream bills its input and what was streamed.
   */
  private ProviderReply streamOut(ProviderCall call, ChunkSink sink, List<String> texts,
      Usage usage, Send send, long prompt, Price price, int cutAfter, long worst) {
    send.mayHaveBilled = true;
    long fullBill = send.billed;
    String id = "sim-" + call.eventId();
    List<StringBuilder> sent = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      sent.add(new StringBuilder());
    }
    int chunks = 0;
    boolean cancelled = false;
    // Until the stream ends, the provider has billed the whole answer (it was generating it).
    send.billed = Math.max(fullBill, price.cost(prompt, 0, 0));
    outer:
    for (int piece = 0; piece < 3; piece++) {
      for (int i = 0; i < texts.size(); i++) {
        String text = texts.get(i);
        int from = text.length() * piece / 3;
        int to = text.length() * (piece + 1) / 3;
        if (cutAfter >= 0 && chunks == cutAfter) {
          send.billed = Math.max(price.cost(prompt, 0, streamedTokens(sent)),
              step.plan.r.nextInt((int) Math.min(Integer.MAX_VALUE, worst + 1)));
          throw ProviderException.unknownOutcome("simulated: stream cut after " + chunks
              + " chunks", null);
        }
        String part = text.substring(from, to);
        ChatChunk chunk = new ChatChunk(id, "chat.completion.chunk", 0, call.request().model(),
            List.of(new ChunkChoice(i, new ChunkDelta(piece == 0 ? Role.ASSISTANT : null, part,
                null, null), piece == 2 ? "stop" : null, null)), null, null);
        sent.get(i).append(part);
        chunks++;
        boolean more;
        try {
          more = sink.accept(chunk);
        } catch (RuntimeException e) {
          send.lost = true;
          throw e;
        }
        if (!more) {
          cancelled = true;
          break outer;
        }
      }
    }
    if (cancelled) {
      send.billed = price.cost(prompt, 0, streamedTokens(sent));
      List<String> partial = new ArrayList<>();
      sent.forEach(s -> partial.add(s.toString()));
      return new ProviderReply(response(call, partial, null), null, true);
    }
    send.billed = fullBill;
    if (usage != null) {
      sink.accept(new ChatChunk(id, "chat.completion.chunk", 0, call.request().model(),
          List.of(), usage, null));
    }
    return new ProviderReply(response(call, texts, usage), usage, false);
  }

  private static long streamedTokens(List<StringBuilder> sent) {
    long sum = 0;
    for (StringBuilder s : sent) {
      sum += TokenBounds.count(s.toString());
    }
    return sum;
  }

  private static String text(Random r, int maxWords) {
    int words = maxWords == 0 ? 0 : r.nextInt(maxWords + 1);
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < words; i++) {
      b.append(WORDS[r.nextInt(WORDS.length)]);
    }
    // A BPE may merge words; trim until the text fits the cap.
    String s = b.toString();
    while (!s.isEmpty() && TokenBounds.count(s) > maxWords) {
      s = s.substring(0, s.lastIndexOf(' ') < 0 ? 0 : s.lastIndexOf(' '));
    }
    return s;
  }

  private static ChatResponse response(ProviderCall call, List<String> texts, Usage usage) {
    List<Choice> choices = new ArrayList<>();
    for (int i = 0; i < texts.size(); i++) {
      choices.add(new Choice(i, Message.assistant(texts.get(i)), "stop", null, null));
    }
    return new ChatResponse("sim-" + call.eventId(), "chat.completion", 0,
        call.request().model(), choices, usage, null, null);
  }

  // ---------------------------------------------------------------------------------------
  // Stages and observers

  private Reply stage(InsertionPoint point, Exchange ex, io.pointsman.spi.Chain chain) {
    Plan plan = step.plan;
    if (plan.stagePoint != point || plan.stageFault == null
        || (point == InsertionPoint.BEFORE_PROVIDER && ex.attempt() != 1)) {
      return chain.proceed(ex);
    }
    tag("stage:" + point + ":" + plan.stageFault + (plan.stageFault == Fault.STAGE_THROWS
        ? (plan.stageBefore ? ":before" : ":after") : ""));
    switch (plan.stageFault) {
      case STAGE_THROWS -> {
        if (!plan.stageBefore) {
          chain.proceed(ex);
        }
        throw new IllegalStateException("simulated stage failure at " + point);
      }
      case STAGE_SHORT_CIRCUITS -> {
        return Reply.of(canned(ex));
      }
      case STAGE_PROCEEDS_TWICE -> {
        chain.proceed(ex);
        return chain.proceed(ex);
      }
      case STAGE_ERROR -> {
        chain.proceed(ex);
        AssertionError e = new AssertionError("simulated stage error at " + point);
        plan.injectedErrors.add(e);
        throw e;
      }
      case STAGE_RETRIES_REPLY -> {
        chain.proceed(ex);
        throw ProviderException.answered(503, "simulated: a stage rejected the reply", null);
      }
      case STAGE_SWALLOWS_FAILURE -> {
        try {
          return chain.proceed(ex);
        } catch (ProviderException e) {
          return Reply.of(canned(ex));
        }
      }
      default -> throw new AssertionError(plan.stageFault);
    }
  }

  private static ChatResponse canned(Exchange ex) {
    return new ChatResponse("stage-" + ex.eventId(), "chat.completion", 0,
        ex.request().model(), List.of(new Choice(0, Message.assistant("from a stage"), "stop",
            null, null)), null, null, null);
  }

  private final class SimObserver implements StreamObserver {
    private final Plan plan;
    private StreamControl control;
    private int chunks;

    SimObserver(Plan plan) {
      this.plan = plan;
    }

    @Override
    public void onStart(StreamControl value) {
      this.control = value;
      if (plan.observer == Fault.OBSERVER_THROWS_ON_START) {
        tag("observer:" + plan.observer);
        throw new IllegalStateException("simulated: the observer failed in onStart");
      }
    }

    @Override
    public void onChunk(ChatChunk chunk) {
      int at = chunks++;
      if (plan.observer == Fault.OBSERVER_THROWS_ON_CHUNK && at == plan.observerAt) {
        tag("observer:" + plan.observer);
        throw new IllegalStateException("simulated: the observer failed in onChunk");
      }
      if (plan.observer == Fault.OBSERVER_CANCELS && at == plan.observerAt && control != null) {
        tag("observer:" + plan.observer);
        control.cancel();
      }
    }
  }

  static Set<String> names(Set<Fault> faults) {
    Set<String> out = new LinkedHashSet<>();
    faults.forEach(f -> out.add(f.name()));
    return out;
  }
}
