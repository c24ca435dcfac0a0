package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the facade runs with, read from a JSON file ({@code --config}) and command-line
 * overrides. Every field has an embedded default: port 8080, a data directory
 * {@value #DEFAULT_DATA_DIR} relative to the working directory (holding the journal and the
 * embedded PostgreSQL's files, both kept between starts), in-process counters and cache, the
 * in-process fixture provider, one model and one generated key. A file sets any subset of the
 * fields (the rest keep their defaults). The durable profile never runs
 * on a temporary journal: a crash must leave its unsettled records where the next start looks.
 * Immutable.
 *
 * <pre>{@code
 * {
 *   "port": 8080,
 *   "journal": "/var/lib/pointsman/journal",
 *   "postgresUrl": "jdbc:postgresql://127.0.0.1:5432/pointsman?user=postgres",
 *   "redisUrl": "redis://127.0.0.1:6379", "redisPrefix": "pm:prod",
 *   "upstream": "https://api.openai.com/v1", "upstreamKeyEnv": "OPENAI_API_KEY",
 *   "adminToken": "change-me", "floorPercent": 10, "maxAttempts": 2,
 *   "models": [{"name": "gpt-4o-mini", "inputPerMillion": 150000,
 *               "outputPerMillion": 600000, "cachedInputPerMillion": 75000},
 *              {"name": "gpt-4o", "inputPerMillion": 2500000, "outputPerMillion": 10000000,
 *               "capabilities": ["streaming", "tools", "json_schema", "vision"]}],
 *   "keys": [{"key": "pm-replace-with-a-generated-key", "id": "key-app", "team": "checkout",
 *             "org": "acme"}],
 *   "budgets": [{"scope": "team:checkout", "limitMicros": 5000000}]
 * }
 * }</pre>
 *
 * @param port the port to listen on, 0 for any free port
 * @param journal the journal directory; null for {@code journal} under {@code dataDir}
 * @param postgresUrl the JDBC URL of the ledger database; null for an embedded server whose
 *     files live in {@code postgres} under {@code dataDir}
 * @param redisUrl the Redis URI shared by several instances (budgets and exact cache); null
 *     keeps counters and cache in this process
 * @param redisPrefix the prefix of every Redis key this deployment writes
 * @param upstream the base URI of an OpenAI-compatible upstream; null for the in-process
 *     fixture provider
 * @param upstreamKeyEnv the environment variable holding the upstream's API key
 * @param adminToken the bearer token of the {@code /admin} endpoints; null disables them
 * @param floorPercent the floor of an interrupted call as a percentage of its hold (0 to 100):
 *     an attestation below it is refused
 * @param drainSeconds how long a graceful shutdown waits for open exchanges
 * @param portFile where to write the bound port once listening; null for nowhere
 * @param models the models served
 * @param keys the virtual keys accepted
 * @param budgets the budgets enforced
 * @param dataDir the directory of the durable state the other fields do not place (the
 *     journal's default and the embedded PostgreSQL's files); null for
 *     {@value #DEFAULT_DATA_DIR}, relative to the working directory
 * @param countersRedisUrl the Redis URI of the budget counters when they live apart from the
 *     cache's (a server that never evicts); null for {@code redisUrl}
 * @param allowEvictionPolicy true to accept a counters' Redis whose {@code maxmemory-policy}
 *     is not {@code noeviction} (logged as a warning at every start); false refuses it
 * @param maxAttempts how many upstream attempts one call may make (1 to 10; 0 for 2): a
 *     retryable failure is retried (after the upstream's retry-after, when it sent one of at
 *     most 10 s) until then. A client that retries on its own multiplies this: set 1 when the
 *     clients retry (docs/operations.md has the counts per client)
 */
public record FacadeConfig(
    int port, String journal, String postgresUrl, String redisUrl, String redisPrefix,
    String upstream, String upstreamKeyEnv, String adminToken, int floorPercent,
    int drainSeconds, String portFile, List<ModelEntry> models, List<KeyEntry> keys,
    List<BudgetEntry> budgets, String dataDir, String countersRedisUrl,
    boolean allowEvictionPolicy, int maxAttempts) {

  /** The default data directory, relative to the working directory. */
  public static final String DEFAULT_DATA_DIR = "pointsman-data";

  // A number left out of a model, key or budget entry is 0, which means its default; the
  // top-level fields left out take defaults()'s values (read() merges the file onto them).
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
      .disable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);

  /**
   * Validates the fields and fills defaults.
   *
   * @param port the port to listen on, 0 for any free port
   * @param journal the journal directory; null for {@code journal} under {@code dataDir}
   * @param postgresUrl the JDBC URL of the ledger database; null for an embedded server whose
   *     files live in {@code postgres} under {@code dataDir}
   * @param redisUrl the Redis URI shared by several instances (budgets and exact cache); null
   *     keeps counters and cache in this process
   * @param redisPrefix the prefix of every Redis key this deployment writes
   * @param upstream the base URI of an OpenAI-compatible upstream; null for the in-process
   *     fixture provider
   * @param upstreamKeyEnv the environment variable holding the upstream's API key
   * @param adminToken the bearer token of the {@code /admin} endpoints; null disables them
   * @param floorPercent the floor of an interrupted call as a percentage of its hold (0 to 100):
   *     an attestation below it is refused
   * @param drainSeconds how long a graceful shutdown waits for open exchanges
   * @param portFile where to write the bound port once listening; null for nowhere
   * @param models the models served
   * @param keys the virtual keys accepted
   * @param budgets the budgets enforced
   * @param dataDir the directory of the durable state the other fields do not place (the
   *     journal's default and the embedded PostgreSQL's files); null for
   *     {@value #DEFAULT_DATA_DIR}, relative to the working directory
   * @param countersRedisUrl the Redis URI of the budget counters when they live apart from the
   *     cache's (a server that never evicts); null for {@code redisUrl}
   * @param allowEvictionPolicy true to accept a counters' Redis whose {@code maxmemory-policy}
   *     is not {@code noeviction} (logged as a warning at every start); false refuses it
   * @param maxAttempts how many upstream attempts one call may make (1 to 10; 0 for 2): a
   *     retryable failure is retried (after the upstream's retry-after, when it sent one of at
   *     most 10 s) until then. A client that retries on its own multiplies this: set 1 when the
   *     clients retry (docs/operations.md has the counts per client)
   * @throws IllegalArgumentException if a value is out of range
   */
  public FacadeConfig {
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("port must be 0 to 65535: " + port);
    }
    if (floorPercent < 0 || floorPercent > 100) {
      throw new IllegalArgumentException("floorPercent must be 0 to 100: " + floorPercent);
    }
    if (maxAttempts < 0 || maxAttempts > 10) {
      throw new IllegalArgumentException("maxAttempts must be 1 to 10 (0 for 2): " + maxAttempts);
    }
    maxAttempts = maxAttempts == 0 ? 2 : maxAttempts;
    if (drainSeconds < 0) {
      throw new IllegalArgumentException("drainSeconds must not be negative: " + drainSeconds);
    }
    redisPrefix = redisPrefix == null || redisPrefix.isBlank() ? "pointsman" : redisPrefix;
    upstreamKeyEnv = upstreamKeyEnv == null ? "POINTSMAN_UPSTREAM_KEY" : upstreamKeyEnv;
    models = models == null || models.isEmpty() ? List.of(ModelEntry.DEFAULT) : List.copyOf(models);
    keys = keys == null ? List.of() : List.copyOf(keys);
    budgets = budgets == null ? List.of() : List.copyOf(budgets);
    dataDir = dataDir == null || dataDir.isBlank() ? DEFAULT_DATA_DIR : dataDir;
    countersRedisUrl = countersRedisUrl == null || countersRedisUrl.isBlank() ? null
        : countersRedisUrl;
  }

  /**
   * A configuration with two upstream attempts per call.
   *
   * @param port the port to listen on, 0 for any free port
   * @param journal the journal directory; null for {@code journal} under the data directory
   * @param postgresUrl the JDBC URL of the ledger database; null for an embedded server
   * @param redisUrl the shared Redis URI, or null
   * @param redisPrefix the prefix of every Redis key
   * @param upstream the upstream's base URI, or null for the fixture provider
   * @param upstreamKeyEnv the environment variable holding the upstream's API key
   * @param adminToken the admin endpoints' bearer token, or null
   * @param floorPercent an interrupted call's floor as a percentage of its hold
   * @param drainSeconds how long a graceful shutdown waits for open exchanges
   * @param portFile where to write the bound port, or null
   * @param models the models served
   * @param keys the virtual keys accepted
   * @param budgets the budgets enforced
   * @param dataDir the data directory, or null for the default
   * @param countersRedisUrl the counters' Redis URI, or null for {@code redisUrl}
   * @param allowEvictionPolicy whether a counters' Redis that may evict is accepted
   */
  public FacadeConfig(
      int port, String journal, String postgresUrl, String redisUrl, String redisPrefix,
      String upstream, String upstreamKeyEnv, String adminToken, int floorPercent,
      int drainSeconds, String portFile, List<ModelEntry> models, List<KeyEntry> keys,
      List<BudgetEntry> budgets, String dataDir, String countersRedisUrl,
      boolean allowEvictionPolicy) {
    this(port, journal, postgresUrl, redisUrl, redisPrefix, upstream, upstreamKeyEnv,
        adminToken, floorPercent, drainSeconds, portFile, models, keys, budgets, dataDir,
        countersRedisUrl, allowEvictionPolicy, 0);
  }

  /**
   * A configuration whose counters share the cache's Redis.
   *
   * @param port the port to listen on, 0 for any free port
   * @param journal the journal directory; null for {@code journal} under the data directory
   * @param postgresUrl the JDBC URL of the ledger database; null for an embedded server
   * @param redisUrl the shared Redis URI, or null
   * @param redisPrefix the prefix of every Redis key
   * @param upstream the upstream's base URI, or null for the fixture provider
   * @param upstreamKeyEnv the environment variable holding the upstream's API key
   * @param adminToken the admin endpoints' bearer token, or null
   * @param floorPercent an interrupted call's floor as a percentage of its hold
   * @param drainSeconds how long a graceful shutdown waits for open exchanges
   * @param portFile where to write the bound port, or null
   * @param models the models served
   * @param keys the virtual keys accepted
   * @param budgets the budgets enforced
   * @param dataDir the data directory, or null for the default
   */
  public FacadeConfig(
      int port, String journal, String postgresUrl, String redisUrl, String redisPrefix,
      String upstream, String upstreamKeyEnv, String adminToken, int floorPercent,
      int drainSeconds, String portFile, List<ModelEntry> models, List<KeyEntry> keys,
      List<BudgetEntry> budgets, String dataDir) {
    this(port, journal, postgresUrl, redisUrl, redisPrefix, upstream, upstreamKeyEnv,
        adminToken, floorPercent, drainSeconds, portFile, models, keys, budgets, dataDir, null,
        false);
  }

  /**
   * Returns the Redis URI of the budget counters: {@link #countersRedisUrl()} when set, else
   * {@link #redisUrl()}.
   *
   * @return the URI, or null when counters live in this process
   */
  public String countersRedis() {
    return countersRedisUrl != null ? countersRedisUrl : redisUrl;
  }

  /**
   * A configuration on the default data directory.
   *
   * @param port the port to listen on, 0 for any free port
   * @param journal the journal directory; null for {@code journal} under the data directory
   * @param postgresUrl the JDBC URL of the ledger database; null for an embedded server
   * @param redisUrl the shared Redis URI, or null
   * @param redisPrefix the prefix of every Redis key
   * @param upstream the upstream's base URI, or null for the fixture provider
   * @param upstreamKeyEnv the environment variable holding the upstream's API key
   * @param adminToken the admin endpoints' bearer token, or null
   * @param floorPercent an interrupted call's floor as a percentage of its hold
   * @param drainSeconds how long a graceful shutdown waits for open exchanges
   * @param portFile where to write the bound port, or null
   * @param models the models served
   * @param keys the virtual keys accepted
   * @param budgets the budgets enforced
   */
  public FacadeConfig(
      int port, String journal, String postgresUrl, String redisUrl, String redisPrefix,
      String upstream, String upstreamKeyEnv, String adminToken, int floorPercent,
      int drainSeconds, String portFile, List<ModelEntry> models, List<KeyEntry> keys,
      List<BudgetEntry> budgets) {
    this(port, journal, postgresUrl, redisUrl, redisPrefix, upstream, upstreamKeyEnv,
        adminToken, floorPercent, drainSeconds, portFile, models, keys, budgets, null);
  }

  /**
   * Returns the journal directory: {@link #journal()} when set, else {@code journal} under
   * the data directory. Relative paths are resolved against the working directory.
   *
   * @return the absolute directory
   */
  public Path journalDirectory() {
    return (journal == null ? Path.of(dataDir, "journal") : Path.of(journal)).toAbsolutePath();
  }

  /**
   * Returns where the embedded PostgreSQL keeps its files when no {@link #postgresUrl()} is
   * given: {@code postgres} under the data directory.
   *
   * @return the absolute directory
   */
  public Path embeddedPostgresDirectory() {
    return Path.of(dataDir, "postgres").toAbsolutePath();
  }

  /**
   * Returns the embedded defaults with one generated key.
   *
   * @return the configuration
   */
  public static FacadeConfig defaults() {
    return new FacadeConfig(8080, null, null, null, null, null, null, null, 0, 10, null,
        List.of(), List.of(new KeyEntry(VirtualKeys.generate(), "key-local", "local", "local")),
        List.of(), null);
  }

  /**
   * Reads a configuration file. A field the file leaves out (or sets to null) has its
   * {@linkplain #defaults() default}, except the models (the default model), keys and budgets
   * (none): a file that names no key accepts none.
   *
   * @param file the JSON file
   * @return the configuration
   * @throws IllegalArgumentException if the file is not a valid configuration
   * @throws UncheckedIOException if it cannot be read
   */
  public static FacadeConfig read(Path file) {
    try {
      com.fasterxml.jackson.databind.JsonNode given = MAPPER.readTree(Files.readAllBytes(file));
      if (given == null || !given.isObject()) {
        throw new IllegalArgumentException("invalid configuration " + file
            + ": the file must hold a JSON object");
      }
      ObjectNode tree = MAPPER.valueToTree(defaults());
      tree.remove(List.of("models", "keys", "budgets"));
      for (Map.Entry<String, com.fasterxml.jackson.databind.JsonNode> e : given.properties()) {
        if (!e.getValue().isNull()) {
          tree.set(e.getKey(), e.getValue());
        }
      }
      return MAPPER.treeToValue(tree, FacadeConfig.class);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IllegalArgumentException("invalid configuration " + file + ": "
          + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read configuration " + file, e);
    }
  }

  /**
   * Writes this configuration as JSON.
   *
   * @param file where to write
   * @throws UncheckedIOException if it cannot be written
   */
  public void write(Path file) {
    try {
      Files.write(file, MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(this));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write configuration " + file, e);
    }
  }

  /**
   * Returns the configuration with command-line options applied: {@code --config FILE} (read
   * first), {@code --port N}, {@code --data-dir DIR}, {@code --journal DIR},
   * {@code --postgres-url URL}, {@code --drain-seconds N},
   * {@code --redis-url URI}, {@code --redis-prefix P}, {@code --upstream URI},
   * {@code --admin-token T}, {@code --port-file FILE}, {@code --counters-redis-url URI},
   * {@code --max-attempts N}.
   *
   * @param args the arguments
   * @return the configuration
   * @throws IllegalArgumentException on an unknown option or a missing value
   */
  public static FacadeConfig fromArgs(String... args) {
    FacadeConfig c = defaults();
    for (int i = 0; i < args.length; i += 2) {
      if ("--config".equals(args[i])) {
        c = read(Path.of(value(args, i)));
      }
    }
    ObjectNode tree = MAPPER.valueToTree(c);
    for (int i = 0; i < args.length; i += 2) {
      String field = OPTIONS.get(args[i]);
      if (field == null) {
        throw new IllegalArgumentException("unknown option " + args[i] + " (options: --config "
            + String.join(" ", OPTIONS.keySet()) + ")");
      }
      if (!field.isEmpty()) {
        tree.put(field, value(args, i));
      }
    }
    try {
      return MAPPER.treeToValue(tree, FacadeConfig.class);
    } catch (com.fasterxml.jackson.core.JacksonException e) {
      throw new IllegalArgumentException("invalid option: " + e.getOriginalMessage(), e);
    }
  }

  /** Command-line options and the fields they set ("" for --config, read first). */
  private static final Map<String, String> OPTIONS = options();

  private static Map<String, String> options() {
    Map<String, String> m = new LinkedHashMap<>();
    m.put("--config", "");
    m.put("--port", "port");
    m.put("--data-dir", "dataDir");
    m.put("--journal", "journal");
    m.put("--postgres-url", "postgresUrl");
    m.put("--redis-url", "redisUrl");
    m.put("--redis-prefix", "redisPrefix");
    m.put("--counters-redis-url", "countersRedisUrl");
    m.put("--upstream", "upstream");
    m.put("--admin-token", "adminToken");
    m.put("--port-file", "portFile");
    m.put("--drain-seconds", "drainSeconds");
    m.put("--max-attempts", "maxAttempts");
    return Collections.unmodifiableMap(m);
  }

  private static String value(String[] args, int i) {
    if (i + 1 >= args.length) {
      throw new IllegalArgumentException("option " + args[i] + " needs a value");
    }
    return args[i + 1];
  }

  /**
   * A model served, with its price in micro-units per million tokens and what it supports.
   *
   * @param name the model's name
   * @param aliases other names it answers to
   * @param inputPerMillion the input price
   * @param outputPerMillion the output price
   * @param cachedInputPerMillion the cached-input price
   * @param contextWindow the context window in tokens; 0 for 128,000
   * @param maxOutputTokens the output cap in tokens; 0 for 16,384
   * @param capabilities what the model supports, of {@value #STREAMING}, {@value #TOOLS},
   *     {@value #JSON_SCHEMA}, {@value #VISION} and {@value #EMBEDDINGS}; null or empty for the
   *     first three (a request with an {@code image_url} part is refused unless
   *     {@value #VISION} is listed; an embeddings request unless {@value #EMBEDDINGS} is)
   * @param imageTokens the most input tokens one image part may cost (what the admission's
   *     bound and the hold count per image); 0 for {@link ModelSpec#DEFAULT_IMAGE_TOKENS}
   */
  public record ModelEntry(
      String name, List<String> aliases, long inputPerMillion, long outputPerMillion,
      long cachedInputPerMillion, long contextWindow, long maxOutputTokens,
      List<String> capabilities, long imageTokens) {
    /** Streamed answers ({@code "stream": true}). */
    public static final String STREAMING = ModelSpec.STREAMING;
    /** Tool calls ({@code tools}). */
    public static final String TOOLS = ModelSpec.TOOLS;
    /** Structured output ({@code response_format} of type {@code json_schema}). */
    public static final String JSON_SCHEMA = "json_schema";
    /** Image input ({@code image_url} content parts). */
    public static final String VISION = ModelSpec.VISION;
    /**
     * An embedding model, served on {@code POST /v1/embeddings}; its output price and cap are
     * not used.
     */
    public static final String EMBEDDINGS = ModelSpec.EMBEDDINGS;
    private static final List<String> KNOWN = List.of(STREAMING, TOOLS, JSON_SCHEMA, VISION,
        EMBEDDINGS);

    static final ModelEntry DEFAULT = new ModelEntry("gpt-4o-mini", List.of("mini"), 150_000,
        600_000, 75_000, 128_000, 16_384);

    /**
     * Validates the fields and fills defaults.
     *
     * @param name the model's name
     * @param aliases other names it answers to
     * @param inputPerMillion the input price
     * @param outputPerMillion the output price
     * @param cachedInputPerMillion the cached-input price
     * @param contextWindow the context window in tokens; 0 for 128,000
     * @param maxOutputTokens the output cap in tokens; 0 for 16,384
     * @param capabilities what the model supports, of {@value #STREAMING}, {@value #TOOLS},
     *     {@value #JSON_SCHEMA}, {@value #VISION} and {@value #EMBEDDINGS}; null or empty for
     *     the first three (a request with an {@code image_url} part is refused unless
     *     {@value #VISION} is listed; an embeddings request unless {@value #EMBEDDINGS} is)
     * @param imageTokens the most input tokens one image part may cost (what the admission's
     *     bound and the hold count per image); 0 for {@link ModelSpec#DEFAULT_IMAGE_TOKENS}
     * @throws NullPointerException if name is null
     * @throws IllegalArgumentException if a capability is unknown or imageTokens is negative
     */
    public ModelEntry {
      Objects.requireNonNull(name, "model name");
      aliases = aliases == null ? List.of() : List.copyOf(aliases);
      contextWindow = contextWindow == 0 ? 128_000 : contextWindow;
      maxOutputTokens = maxOutputTokens == 0 ? 16_384 : maxOutputTokens;
      capabilities = capabilities == null || capabilities.isEmpty()
          ? List.of(STREAMING, TOOLS, JSON_SCHEMA) : List.copyOf(capabilities);
      for (String c : capabilities) {
        if (!KNOWN.contains(c)) {
          throw new IllegalArgumentException("model " + name + ": unknown capability " + c
              + " (known: " + String.join(", ", KNOWN) + ")");
        }
      }
      if (imageTokens < 0) {
        throw new IllegalArgumentException("model " + name + ": imageTokens must not be"
            + " negative: " + imageTokens);
      }
      imageTokens = imageTokens == 0 ? ModelSpec.DEFAULT_IMAGE_TOKENS : imageTokens;
    }

    /**
     * A model with the default capabilities (streaming, tools, JSON schema; no vision).
     *
     * @param name the model's name
     * @param aliases other names it answers to
     * @param inputPerMillion the input price
     * @param outputPerMillion the output price
     * @param cachedInputPerMillion the cached-input price
     * @param contextWindow the context window in tokens; 0 for the default
     * @param maxOutputTokens the output cap in tokens; 0 for the default
     */
    public ModelEntry(String name, List<String> aliases, long inputPerMillion,
        long outputPerMillion, long cachedInputPerMillion, long contextWindow,
        long maxOutputTokens) {
      this(name, aliases, inputPerMillion, outputPerMillion, cachedInputPerMillion,
          contextWindow, maxOutputTokens, null, 0);
    }

    /**
     * Returns the model as the catalog serves it.
     *
     * @return the spec
     */
    public ModelSpec spec() {
      // An embedding model produces no tokens: its cap is the smallest a spec allows.
      long cap = capabilities.contains(EMBEDDINGS) ? 1 : maxOutputTokens;
      return ModelSpec.builder(name).aliases(aliases.toArray(String[]::new))
          .contextWindow(contextWindow).maxOutputTokens(cap)
          .price(new Price(inputPerMillion, outputPerMillion, cachedInputPerMillion))
          .capabilities(capabilities.toArray(String[]::new)).imageTokens(imageTokens).build();
    }
  }

  /**
   * A virtual key and the identity it stands for.
   *
   * @param key the key as presented in {@code Authorization: Bearer}
   * @param id the key's id (what the ledger records; never the key itself)
   * @param team the team, or null
   * @param org the organisation, or null
   * @param models the models the key may use, or null (or empty) for every model
   */
  public record KeyEntry(String key, String id, String team, String org, List<String> models) {
    /**
     * Validates the fields.
     *
     * @param key the key as presented in {@code Authorization: Bearer}
     * @param id the key's id (what the ledger records; never the key itself)
     * @param team the team, or null
     * @param org the organisation, or null
     * @param models the models the key may use, or null (or empty) for every model
     * @throws NullPointerException if key or id is null
     */
    public KeyEntry {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(id, "key id");
      models = models == null ? List.of() : List.copyOf(models);
    }

    /**
     * A key allowed every model.
     *
     * @param key the key
     * @param id the key's id
     * @param team the team, or null
     * @param org the organisation, or null
     */
    public KeyEntry(String key, String id, String team, String org) {
      this(key, id, team, org, null);
    }

    @Override
    public String toString() {
      return "KeyEntry[id=" + id + ", team=" + team + ", org=" + org + "]";
    }
  }

  /**
   * A budget over all time on one scope.
   *
   * @param scope {@code key:ID}, {@code team:ID}, {@code org:ID}, {@code model:NAME} or
   *     {@code global}
   * @param limitMicros the limit in micro-units
   */
  public record BudgetEntry(String scope, long limitMicros) {
    /**
     * Validates the fields.
     *
     * @param scope {@code key:ID}, {@code team:ID}, {@code org:ID}, {@code model:NAME} or
     *     {@code global}
     * @param limitMicros the limit in micro-units
     * @throws NullPointerException if scope is null
     * @throws IllegalArgumentException if the limit is negative
     */
    public BudgetEntry {
      Objects.requireNonNull(scope, "budget scope");
      if (limitMicros < 0) {
        throw new IllegalArgumentException("budget limit must not be negative: " + limitMicros);
      }
    }
  }
}
