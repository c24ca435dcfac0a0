package io.pointsman.spring.boot;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The {@code pointsman.*} properties a durable gateway is auto-configured from. Prices are
 * integer micro-units (one millionth of the currency unit) per million tokens; a model without
 * a price is charged the catalog's fallback price, never zero. Secrets (virtual keys, provider
 * API keys, the ledger's password) are never printed: every {@code toString()} here masks
 * them. Give provider keys as placeholders ({@code api-key: ${OPENAI_API_KEY}}) or by the name
 * of an environment variable read at each send ({@code api-key-env: OPENAI_API_KEY}).
 *
 * <pre>
 * pointsman:
 *   default-key: ${APP_VIRTUAL_KEY}
 *   journal.directory: /var/lib/app/pointsman-journal
 *   models:
 *     gpt-4o-mini: { aliases: [mini], input-price: 150000, output-price: 600000 }
 *   keys.inline:
 *     - { key: ${APP_VIRTUAL_KEY}, id: app, team: checkout }
 *   budgets:
 *     - { scope: "team:checkout", limit-micros: 5000000, period: monthly }
 *   providers:
 *     openai: { type: openai, api-key: ${OPENAI_API_KEY} }
 *   deployments:
 *     - { id: openai-mini, provider: openai, model: gpt-4o-mini }
 * </pre>
 *
 * @param enabled whether the gateway is auto-configured at all
 * @param defaultKey the virtual key of every call of a single-tenant service (the default
 *     {@link CallerKeys}); unset, each call must bring its own
 * @param models the model catalog, by canonical model name
 * @param unpricedFallback the price that sizes and charges calls of models without a price;
 *     unset, the catalog's own fallback
 * @param keys the virtual keys: in memory from these properties, or a PostgreSQL key store
 * @param budgets spend budgets, in micro-units per period
 * @param limits request, token and concurrency limits
 * @param journal the file journal every call is recorded in before it is answered
 * @param ledger the PostgreSQL ledger the journal settles into
 * @param redis Redis for counters shared between instances (needs pointsman-redis)
 * @param providers provider adapters by name; deployments refer to them. Provider beans of the
 *     application are registered under their bean names as well
 * @param deployments where each model is served, in preference order
 * @param cache the response caches
 * @param guardrails the input guardrails
 * @param maxAttempts how many provider attempts one call may make (1 to 10)
 * @param security how a Spring Security principal names its virtual key
 * @param chat the Spring AI chat model's settings (with pointsman-spring-ai)
 * @param health the health indicator's thresholds
 */
@ConfigurationProperties("pointsman")
public record PointsmanProperties(
    @DefaultValue("true") boolean enabled,
    String defaultKey,
    Map<String, Model> models,
    Price unpricedFallback,
    @DefaultValue Keys keys,
    List<Budget> budgets,
    List<Limit> limits,
    @DefaultValue Journal journal,
    @DefaultValue Ledger ledger,
    @DefaultValue Redis redis,
    Map<String, ProviderSettings> providers,
    List<DeploymentSettings> deployments,
    @DefaultValue Cache cache,
    @DefaultValue Guardrails guardrails,
    @DefaultValue("2") int maxAttempts,
    @DefaultValue Security security,
    @DefaultValue Chat chat,
    @DefaultValue Health health) {

  /**
   * Normalizes absent collections to empty ones.
   *
   * @param enabled whether the gateway is auto-configured at all
   * @param defaultKey the virtual key of every call of a single-tenant service
   * @param models the model catalog, by canonical model name
   * @param unpricedFallback the price of models without one
   * @param keys the virtual keys
   * @param budgets spend budgets
   * @param limits request, token and concurrency limits
   * @param journal the file journal
   * @param ledger the PostgreSQL ledger
   * @param redis Redis for shared counters
   * @param providers provider adapters by name
   * @param deployments where each model is served
   * @param cache the response caches
   * @param guardrails the input guardrails
   * @param maxAttempts how many provider attempts one call may make
   * @param security how a Spring Security principal names its virtual key
   * @param chat the Spring AI chat model's settings
   * @param health the health indicator's thresholds
   */
  public PointsmanProperties {
    models = models == null ? Map.of() : Map.copyOf(models);
    budgets = budgets == null ? List.of() : List.copyOf(budgets);
    limits = limits == null ? List.of() : List.copyOf(limits);
    providers = providers == null ? Map.of() : Map.copyOf(providers);
    deployments = deployments == null ? List.of() : List.copyOf(deployments);
  }

  @Override
  public String toString() {
    return "PointsmanProperties{enabled=" + enabled + ", defaultKey="
        + Masks.mask(defaultKey) + ", models=" + models.keySet() + ", keys=" + keys
        + ", budgets=" + budgets + ", limits=" + limits + ", journal=" + journal + ", ledger="
        + ledger + ", redis=" + redis + ", providers=" + providers + ", deployments="
        + deployments + ", cache=" + cache + ", guardrails=" + guardrails + "}";
  }

  /**
   * A price in micro-units per million tokens.
   *
   * @param input one million uncached input tokens
   * @param output one million output tokens
   * @param cachedInput one million cached input tokens; unset, the input price
   */
  public record Price(long input, long output, Long cachedInput) {}

  /**
   * One model of the catalog.
   *
   * @param aliases other names callers may use
   * @param inputPrice micro-units per million uncached input tokens; unset with the output price
   *     for an unpriced model (charged the fallback price)
   * @param outputPrice micro-units per million output tokens
   * @param cachedInputPrice micro-units per million cached input tokens; unset, the input price
   * @param cacheWritePrice micro-units per million input tokens written to the provider's prompt
   *     cache; unset, the input price
   * @param reasoningPrice micro-units per million reasoning output tokens; unset, the output
   *     price
   * @param priceVersion the version every ledger row charged at this price records; unset, the
   *     price's fingerprint
   * @param contextWindow the context window in tokens; unset, the library's default
   * @param maxOutputTokens the output cap in tokens; unset, the library's default
   * @param capabilities capabilities beyond plain chat ({@code tools}, {@code streaming},
   *     {@code vision}); unset, the library's default
   */
  public record Model(
      List<String> aliases,
      Long inputPrice,
      Long outputPrice,
      Long cachedInputPrice,
      Long cacheWritePrice,
      Long reasoningPrice,
      String priceVersion,
      Long contextWindow,
      Long maxOutputTokens,
      List<String> capabilities) {}

  /** Where virtual keys live. */
  public enum KeyStoreType {
    /** In memory, from {@code pointsman.keys.inline}. */
    MEMORY,
    /** In PostgreSQL ({@code io.pointsman.ledger.PostgresKeyStore}), on the ledger's database. */
    POSTGRES
  }

  /**
   * The virtual keys.
   *
   * @param store in memory or in PostgreSQL
   * @param inline keys given in the configuration (for tests and development; in memory they
   *     are the whole store, in PostgreSQL they are added when not stored yet)
   * @param cacheTtl how long the PostgreSQL store caches a resolved key
   */
  public record Keys(
      @DefaultValue("memory") KeyStoreType store,
      List<KeyEntry> inline,
      @DefaultValue("30s") Duration cacheTtl) {
    /**
     * Normalizes an absent list to an empty one.
     *
     * @param store in memory or in PostgreSQL
     * @param inline keys given in the configuration
     * @param cacheTtl how long the PostgreSQL store caches a resolved key
     */
    public Keys {
      inline = inline == null ? List.of() : List.copyOf(inline);
    }
  }

  /**
   * One virtual key.
   *
   * @param key the key as callers present it (8 to 256 printable ASCII characters)
   * @param id the key's id, reported in usage records (never the key itself)
   * @param user the user it belongs to, or unset
   * @param team the team it belongs to, or unset
   * @param org the organisation it belongs to, or unset
   * @param tags tags its calls carry
   * @param models the models it may call; unset, every model
   * @param expiresAt when it stops working, or unset
   */
  public record KeyEntry(
      String key,
      String id,
      String user,
      String team,
      String org,
      List<String> tags,
      List<String> models,
      Instant expiresAt) {
    @Override
    public String toString() {
      return "KeyEntry{id=" + id + ", key=" + Masks.mask(key) + ", team=" + team + ", org="
          + org + "}";
    }
  }

  /** The period a budget resets with. */
  public enum BudgetPeriod {
    /** Never resets. */
    TOTAL,
    /** Each day. */
    DAILY,
    /** Each week. */
    WEEKLY,
    /** Each month. */
    MONTHLY
  }

  /**
   * A spend budget.
   *
   * @param scope {@code global}, or {@code kind:id} with kind {@code key}, {@code team},
   *     {@code org}, {@code tag} or {@code model}
   * @param limitMicros the most the scope may spend in a period, in micro-units
   * @param period the period
   * @param zone the time zone periods are counted in
   */
  public record Budget(
      String scope,
      long limitMicros,
      @DefaultValue("total") BudgetPeriod period,
      @DefaultValue("UTC") String zone) {}

  /**
   * Rate and concurrency limits of one scope; each one unset is not limited.
   *
   * @param scope {@code global}, or {@code kind:id} as for budgets
   * @param requestsPerMinute requests per minute
   * @param tokensPerMinute tokens per minute
   * @param concurrency calls in flight at once
   */
  public record Limit(String scope, Long requestsPerMinute, Long tokensPerMinute,
      Integer concurrency) {}

  /**
   * The file journal.
   *
   * @param directory where it lives; it must outlive the process (records waiting there are
   *     replayed at the next start). Unset, a new temporary directory, which is logged as a
   *     warning: records left there at a crash may be lost
   */
  public record Journal(Path directory) {}

  /**
   * The PostgreSQL ledger.
   *
   * @param url a JDBC URL of its own pool; unset, the application's {@code DataSource} bean
   * @param user the user for the URL, or unset
   * @param password the password for the URL, or unset
   */
  public record Ledger(String url, String user, String password) {
    @Override
    public String toString() {
      return "Ledger{url=" + (url == null ? null : url.replaceAll("password=[^&]*",
          "password=***")) + ", user=" + user + ", password=" + Masks.mask(password) + "}";
    }
  }

  /**
   * Redis for budget and limit counters shared by every instance (needs pointsman-redis).
   *
   * @param url the server, for example {@code redis://127.0.0.1:6379}; unset, counters live in
   *     this process
   * @param keyPrefix the prefix of every key
   * @param timeout how long one command may take
   * @param allowEvictionPolicy accept a server that may evict keys (counters would be lost)
   */
  public record Redis(
      URI url,
      @DefaultValue("pointsman") String keyPrefix,
      @DefaultValue("2s") Duration timeout,
      @DefaultValue("false") boolean allowEvictionPolicy) {
    @Override
    public String toString() {
      return "Redis{url=" + (url == null ? null : url.getHost() + ":" + url.getPort())
          + ", keyPrefix=" + keyPrefix + "}";
    }
  }

  /** The kind of a provider adapter. */
  public enum ProviderType {
    /** An OpenAI-compatible API (OpenAI, Azure OpenAI's v1 API, vLLM, Ollama, LiteLLM...). */
    OPENAI,
    /** Anthropic's Messages API. */
    ANTHROPIC
  }

  /**
   * A provider adapter.
   *
   * @param type the API it speaks
   * @param baseUrl its base URL; unset, the vendor's public API
   * @param apiKey the API key, given as a placeholder ({@code ${OPENAI_API_KEY}}); never logged
   * @param apiKeyEnv the environment variable holding the API key, read at each send (a rotated
   *     key takes effect without a restart); used when {@code api-key} is unset
   * @param headers extra headers sent with every request
   */
  public record ProviderSettings(
      @DefaultValue("openai") ProviderType type,
      URI baseUrl,
      String apiKey,
      String apiKeyEnv,
      Map<String, String> headers) {
    /**
     * Normalizes absent headers to none.
     *
     * @param type the API it speaks
     * @param baseUrl its base URL
     * @param apiKey the API key
     * @param apiKeyEnv the environment variable holding the API key
     * @param headers extra headers
     */
    public ProviderSettings {
      headers = headers == null ? Map.of() : Map.copyOf(headers);
    }

    @Override
    public String toString() {
      return "ProviderSettings{type=" + type + ", baseUrl=" + baseUrl + ", apiKey="
          + Masks.mask(apiKey) + ", apiKeyEnv=" + apiKeyEnv + ", headers=" + headers.keySet()
          + "}";
    }
  }

  /**
   * A deployment: a model served by a provider.
   *
   * @param id a unique id, reported in results and the ledger
   * @param provider the provider's name
   * @param model the catalog model it serves
   * @param providerModel the model name sent to the provider; unset, the catalog name
   */
  public record DeploymentSettings(String id, String provider, String model,
      String providerModel) {}

  /**
   * The response caches.
   *
   * @param exact the exact cache (Caffeine with pointsman-cache, else the core's in-memory one)
   * @param semantic the semantic cache behind the exact one (needs pointsman-cache-semantic)
   */
  public record Cache(@DefaultValue Exact exact, @DefaultValue Semantic semantic) {}

  /**
   * The exact cache.
   *
   * @param enabled whether responses are cached at all
   * @param maximumSize the most entries kept
   * @param ttl how long an entry is served
   */
  public record Exact(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("10000") long maximumSize,
      @DefaultValue("1h") Duration ttl) {}

  /**
   * The semantic cache, behind the exact one; configured only when pointsman-cache-semantic is
   * on the class path.
   *
   * @param enabled whether it is used
   * @param threshold the cosine similarity a hit needs
   * @param ttl how long an entry is served
   */
  public record Semantic(
      @DefaultValue("false") boolean enabled,
      @DefaultValue("0.85") double threshold,
      @DefaultValue("1h") Duration ttl) {}

  /** Which input guardrail chain runs before the cache and the provider. */
  public enum InputGuardrails {
    /** The secure default chain: bounds, secrets redacted, prompt injection blocked. */
    DEFAULT,
    /** Message bounds only (an explicit opt-out of the detectors). */
    BOUNDS_ONLY,
    /** Nothing (an explicit opt-out of every input guardrail). */
    NONE
  }

  /**
   * The guardrails.
   *
   * @param input the input chain; the secure default stays on unless opted out here
   */
  public record Guardrails(@DefaultValue("default") InputGuardrails input) {}

  /**
   * How a Spring Security principal names its virtual key (with spring-security-core).
   *
   * @param enabled whether the current {@code Authentication} supplies the key
   * @param keyAttribute where the key is read: {@code name} for the authentication's name, else
   *     an attribute of the principal (a map entry, an OAuth2 attribute or JWT claim, or a bean
   *     property) or of the authentication's details map
   */
  public record Security(
      @DefaultValue("true") boolean enabled,
      @DefaultValue("pointsman_key") String keyAttribute) {}

  /**
   * The Spring AI chat model (with pointsman-spring-ai on the class path).
   *
   * @param defaultModel the model of calls whose options name none
   */
  public record Chat(String defaultModel) {}

  /**
   * The health indicator.
   *
   * @param settlerStall how long records may wait with none settled before the settler is down
   * @param databaseTimeout how long the database's round trip may take
   */
  public record Health(
      @DefaultValue("30s") Duration settlerStall,
      @DefaultValue("3s") Duration databaseTimeout) {}

  /** Masks secrets for printing. */
  static final class Masks {
    private Masks() {}

    static String mask(String secret) {
      return secret == null ? null : "***";
    }
  }
}
