package io.pointsman.jmh.limits;

import io.pointsman.jmh.Prompts;
import io.pointsman.Clock;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Period;
import io.pointsman.limits.Scope;
import io.pointsman.limits.redis.RedisCounterStore;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.spi.Admission;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Identity;
import io.pointsman.spi.Reservation;
import io.pointsman.spi.ResolvedModel;
import java.time.Instant;
import java.time.ZoneId;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.JedisPooled;

/**
 * Admission: authenticate the virtual key (SHA-256, map lookup), resolve the model (grants,
 * capabilities, byte bound of the prompt, output cap), size the worst case and reserve it
 * (team lifetime budget, org monthly budget in a zone, key requests per minute, key
 * concurrency), then release the reservation so every operation sees the same counters. Arms:
 * <ul>
 *   <li>{@code inProcess}: counters in an {@link InProcessCounterStore};</li>
 *   <li>{@code inProcessReserveOnly}: only the reserve and release of {@code inProcess}, on an
 *       admission built once, to separate the limiter's share from authentication and the
 *       byte bound (which is linear in the prompt);</li>
 *   <li>{@code inProcessTokenized}: the same, plus counting the prompt's tokens with jtokkit
 *       ({@link TokenBounds#exact}) at admission, as gateways that tokenize do;</li>
 *   <li>{@code redis}: counters in a {@link RedisCounterStore} on 127.0.0.1:6379 (or
 *       {@code POINTSMAN_BENCH_REDIS_HOST}/{@code _PORT}); one script per reserve and one per
 *       release. At tear-down the store's command count per operation is printed
 *       ({@code round trips per op}); 2.0 means one for the admission and one for the
 *       release.</li>
 * </ul>
 *
 * <p>Run: {@code mvn -B -q -pl pointsman-jmh -am package -DskipTests && java -jar
 * pointsman-jmh/target/benchmarks.jar AdmissionBenchmark -rf json -rff
 * pointsman-jmh/results/limits/admission.json}
 */
@State(org.openjdk.jmh.annotations.Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class AdmissionBenchmark {
  @Param({"150", "4096", "32768"})
  public int promptBytes;

  private InMemoryKeyStore keys;
  private String key;
  private ModelCatalog catalog;
  private ChatRequest request;
  private CounterLimiter inProcess;
  private CounterLimiter redis;
  private RedisCounterStore redisStore;
  private JedisPooled client;
  private String prefix;
  private final AtomicLong ids = new AtomicLong();
  private final AtomicLong redisOps = new AtomicLong();
  private Price price;
  private Admission prebuilt;

  @Setup(Level.Trial)
  public void setUp() {
    keys = new InMemoryKeyStore(Clock.system());
    key = VirtualKeys.generate();
    keys.addKey(key, KeySpec.builder("bench").team("t").org("o").tags("app").build());
    price = Price.of(150_000, 600_000);
    catalog = ModelCatalog.builder().model(ModelSpec.builder("m").contextWindow(128_000)
        .maxOutputTokens(1_000).price(price).build()).build();
    request = ChatRequest.builder().model("m")
        .addMessage(Message.system("You are a benchmark."))
        .addMessage(Message.user(Prompts.ofBytes(promptBytes)))
        .temperature(0.0).maxTokens(100).build();
    inProcess = rules(new InProcessCounterStore());
    String host = System.getenv().getOrDefault("POINTSMAN_BENCH_REDIS_HOST", "127.0.0.1");
    int port = Integer.parseInt(System.getenv().getOrDefault("POINTSMAN_BENCH_REDIS_PORT",
        "6379"));
    client = new JedisPooled(host, port);
    prefix = "pmbench:" + UUID.randomUUID() + ":";
    redisStore = RedisCounterStore.builder(client).keyPrefix(prefix).build();
    redis = rules(redisStore);
    Identity identity = keys.authenticate(key);
    ResolvedModel model = catalog.resolve(identity, request);
    prebuilt = new Admission("prebuilt", identity, identity.tags(), model, model.inputTokens(),
        model.maxOutputTokens(), price.cost(model.inputTokens(), 0, model.maxOutputTokens()),
        Instant.now());
  }

  private static CounterLimiter rules(CounterStore store) {
    return CounterLimiter.builder(store)
        .budget(Scope.team("t"), io.pointsman.spi.Counter.MAX_VALUE)
        .budget(Scope.org("o"), Period.monthly(ZoneId.of("Europe/Berlin")),
            io.pointsman.spi.Counter.MAX_VALUE)
        .requestsPerMinute(Scope.key("bench"), 60_000_000)
        .concurrency(Scope.key("bench"), 1_000)
        .build();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    long ops = redisOps.get();
    if (ops > 0) {
      System.out.printf("%nredis: %d operations, %d round trips, round trips per op %.3f"
          + " (reserve + release)%n", ops, redisStore.roundTrips(),
          (double) redisStore.roundTrips() / ops);
    }
    for (String k : client.keys(prefix + "*")) {
      client.del(k);
    }
    client.close();
  }


  private Reservation admit(CounterLimiter limiter, boolean tokenize) {
    Identity identity = keys.authenticate(key);
    ResolvedModel model = catalog.resolve(identity, request);
    long input = tokenize ? TokenBounds.exact(request) : model.inputTokens();
    long worst = price.cost(input, 0, model.maxOutputTokens());
    Admission admission = new Admission(Long.toString(ids.incrementAndGet()), identity,
        identity.tags(), model, input, model.maxOutputTokens(), worst, Instant.now());
    Reservation r = limiter.reserve(admission);
    r.release();
    return r;
  }

  @Benchmark
  public Reservation inProcess() {
    return admit(inProcess, false);
  }

  @Benchmark
  public Reservation inProcessReserveOnly() {
    Reservation r = inProcess.reserve(prebuilt);
    r.release();
    return r;
  }

  @Benchmark
  public Reservation inProcessTokenized() {
    return admit(inProcess, true);
  }

  @Benchmark
  public Reservation redis() {
    redisOps.incrementAndGet();
    return admit(redis, false);
  }
}
