package io.pointsman.spring.boot;

import io.micrometer.core.instrument.MeterRegistry;
import io.pointsman.CallListener;
import io.pointsman.Clock;
import io.pointsman.ConfigurationException;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.guardrail.GuardrailListener;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.MessageBoundsGuardrail;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.LedgerPool;
import io.pointsman.ledger.PostgresKeyStore;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.limits.CounterLimiter;
import io.pointsman.limits.InProcessCounterStore;
import io.pointsman.limits.Period;
import io.pointsman.limits.Scope;
import io.pointsman.micrometer.MicrometerCallListener;
import io.pointsman.provider.AnthropicProvider;
import io.pointsman.provider.Credential;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Authenticator;
import io.pointsman.spi.CounterStore;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.Grant;
import io.pointsman.spi.InputGuardrail;
import io.pointsman.spi.Journal;
import io.pointsman.spi.Ledger;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ModelResolver;
import io.pointsman.spi.OutputGuardrail;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.Router;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

/**
 * Auto-configures a durable {@link Gateway} from {@code pointsman.*} properties
 * ({@link PointsmanProperties}) with the library's one builder chain:
 * {@code Gateway.builder().authenticator(...).models(...).limiter(...).cache(...).router(...)
 * .provider(...).journal(...).ledger(...).build()}, so that building it recovers the journal,
 * confirms the budgets against the ledger and starts the hold housekeeping.
 *
 * <p>Every part is a bean the application may define itself, and the auto-configuration backs
 * off for it ({@code @ConditionalOnMissingBean}): the {@link Gateway} (then none of the parts
 * below is created, but the health indicator, the lifecycle, the caller keys, the meters and
 * the Spring AI chat model apply to the application's gateway),
 * the {@link Authenticator} (key store), the {@link ModelResolver} (catalog), the
 * {@link Limiter}, the {@link ResponseCache} (the default one is built inside the gateway bean),
 * the {@link Router}, the {@link InputGuardrail},
 * the {@link Journal}, the {@link Ledger}, the {@link CounterStore} and the {@link CallerKeys}.
 * {@link Provider} beans join the providers of {@code pointsman.providers} under their bean
 * names, {@link Deployment} beans join {@code pointsman.deployments}, every
 * {@link CallListener.Factory} bean is installed, and an {@link OutputGuardrail} or
 * {@link GuardrailListener} bean is set when there is one.
 *
 * <p>The ledger runs on the application's own {@code DataSource} bean unless
 * {@code pointsman.ledger.url} names a database of its own. With Micrometer and a
 * {@code MeterRegistry} bean, the meters of {@link MicrometerCallListener} are registered; with
 * Actuator, the health indicator {@code pointsman} ({@link PointsmanHealthIndicator}); with
 * pointsman-cache, the Caffeine exact cache (and with pointsman-cache-semantic and
 * {@code pointsman.cache.semantic.enabled}, the semantic cache behind it); with pointsman-redis
 * and {@code pointsman.redis.url}, budget and limit counters shared in Redis. The gateway is
 * closed by {@link PointsmanGatewayLifecycle} after the web server has drained its requests.
 *
 * <p>Parts handed to the auto-configured gateway are closed by the gateway (their beans have no
 * destroy method of their own), not twice.
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
    "org.springframework.boot.actuate.autoconfigure.metrics.export.simple"
        + ".SimpleMetricsExportAutoConfiguration"})
@ConditionalOnClass(Gateway.class)
@ConditionalOnProperty(prefix = "pointsman", name = "enabled", havingValue = "true",
    matchIfMissing = true)
@EnableConfigurationProperties(PointsmanProperties.class)
public class PointsmanAutoConfiguration {
  private static final Logger LOG = LoggerFactory.getLogger(PointsmanAutoConfiguration.class);

  /** Creates the configuration (instantiated by Spring). */
  public PointsmanAutoConfiguration() {}

  /**
   * The gateway and its parts, unless the application defines its own {@link Gateway} (then
   * none of them is created: they would be used by nothing and closed by no one).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnMissingBean(Gateway.class)
  public static class GatewayConfiguration {
    /** Creates the configuration (instantiated by Spring). */
    public GatewayConfiguration() {}

    /**
     * The file journal: {@code pointsman.journal.directory}, else a new temporary directory.
     *
     * @param properties the properties
     * @return the journal, opened and recovered when the gateway is built
     */
    @Bean
    @ConditionalOnMissingBean
    public Journal pointsmanJournal(PointsmanProperties properties) {
      Path dir = properties.journal().directory();
      if (dir == null) {
        try {
          dir = Files.createTempDirectory("pointsman-journal-");
        } catch (IOException e) {
          throw new UncheckedIOException("cannot create a temporary journal directory", e);
        }
        LOG.warn("pointsman.journal.directory is not set: journal in the temporary directory {};"
            + " records waiting there at a crash are lost if the system cleans it", dir);
      }
      return JournalAccounting.at(dir);
    }

    /**
     * The PostgreSQL ledger: its own pool on {@code pointsman.ledger.url}, else the application's
     * {@code DataSource} bean (which the application keeps and closes).
     *
     * @param properties the properties
     * @param dataSource the application's data source
     * @return the ledger; closed by the gateway
     * @throws IllegalStateException when there is neither a URL nor a data source
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public Ledger pointsmanLedger(PointsmanProperties properties,
        ObjectProvider<DataSource> dataSource) {
      PointsmanProperties.Ledger l = properties.ledger();
      if (l.url() != null && !l.url().isBlank()) {
        LedgerPool.Builder pool = LedgerPool.builder(l.url()).name("pointsman-ledger");
        if (l.user() != null) {
          pool.user(l.user());
        }
        if (l.password() != null) {
          pool.password(l.password());
        }
        return PostgresLedger.of(pool.build());
      }
      DataSource ds = dataSource.getIfUnique();
      if (ds == null) {
        throw new IllegalStateException("the durable gateway needs a PostgreSQL ledger: define a"
            + " DataSource bean (spring.datasource.*) or set pointsman.ledger.url");
      }
      return PostgresLedger.of(ds);
    }

    /**
     * The virtual keys: in memory from {@code pointsman.keys.inline}, or a
     * {@link PostgresKeyStore} on the ledger's database ({@code pointsman.keys.store=postgres}),
     * to which inline keys not stored yet are added.
     *
     * @param properties the properties
     * @param ledger the ledger, whose database the PostgreSQL store uses
     * @param dataSource the application's data source, when the ledger is not PostgreSQL
     * @return the key store; closed by the gateway
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public Authenticator pointsmanKeys(PointsmanProperties properties, Ledger ledger,
        ObjectProvider<DataSource> dataSource) {
      PointsmanProperties.Keys k = properties.keys();
      if (k.store() == PointsmanProperties.KeyStoreType.POSTGRES) {
        DataSource ds = ledger instanceof PostgresLedger pl ? pl.dataSource()
            : dataSource.getIfUnique();
        if (ds == null) {
          throw new IllegalStateException("pointsman.keys.store=postgres needs a PostgreSQL"
              + " ledger or a DataSource bean");
        }
        PostgresKeyStore store = PostgresKeyStore.create(ds, Clock.system(), k.cacheTtl());
        for (PointsmanProperties.KeyEntry e : k.inline()) {
          try {
            store.addKey(e.key(), spec(e));
          } catch (IllegalArgumentException stored) {
            // Already there from an earlier start: keep it if it is this very key.
            store.authenticate(e.key());
          }
        }
        return store;
      }
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      for (PointsmanProperties.KeyEntry e : k.inline()) {
        keys.addKey(e.key(), spec(e));
      }
      return keys;
    }

    private static KeySpec spec(PointsmanProperties.KeyEntry e) {
      if (e.key() == null || e.id() == null) {
        throw new IllegalArgumentException("every pointsman.keys.inline entry needs key and id");
      }
      KeySpec.Builder b = KeySpec.builder(e.id());
      if (e.user() != null) {
        b.user(e.user());
      }
      if (e.team() != null) {
        b.team(e.team());
      }
      if (e.org() != null) {
        b.org(e.org());
      }
      if (e.tags() != null && !e.tags().isEmpty()) {
        b.tags(e.tags().toArray(String[]::new));
      }
      if (e.models() != null && !e.models().isEmpty()) {
        b.models(Grant.only(e.models().toArray(String[]::new)));
      }
      if (e.expiresAt() != null) {
        b.expiresAt(e.expiresAt());
      }
      return b.build();
    }

    /**
     * The model catalog from {@code pointsman.models}.
     *
     * @param properties the properties
     * @return the catalog
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean(ModelResolver.class)
    public ModelCatalog pointsmanModels(PointsmanProperties properties) {
      ModelCatalog.Builder b = ModelCatalog.builder();
      properties.models().forEach((name, m) -> {
        ModelSpec.Builder s = ModelSpec.builder(name);
        if (m.aliases() != null && !m.aliases().isEmpty()) {
          s.aliases(m.aliases().toArray(String[]::new));
        }
        if (m.inputPrice() != null || m.outputPrice() != null) {
          if (m.inputPrice() == null || m.outputPrice() == null) {
            throw new IllegalArgumentException("pointsman.models." + name + ": set both"
                + " input-price and output-price, or neither (unpriced: charged the fallback)");
          }
          Price.Builder price = Price.builder().input(m.inputPrice()).output(m.outputPrice());
          if (m.cachedInputPrice() != null) {
            price.cachedInput(m.cachedInputPrice());
          }
          if (m.cacheWritePrice() != null) {
            price.cacheWrite(m.cacheWritePrice());
          }
          if (m.reasoningPrice() != null) {
            price.reasoning(m.reasoningPrice());
          }
          if (m.priceVersion() != null) {
            price.version(m.priceVersion());
          }
          s.price(price.build());
        }
        if (m.contextWindow() != null) {
          s.contextWindow(m.contextWindow());
        }
        if (m.maxOutputTokens() != null) {
          s.maxOutputTokens(m.maxOutputTokens());
        }
        if (m.capabilities() != null && !m.capabilities().isEmpty()) {
          s.capabilities(m.capabilities().toArray(String[]::new));
        }
        b.model(s.build());
      });
      PointsmanProperties.Price fallback = properties.unpricedFallback();
      if (fallback != null) {
        b.unpricedFallback(price(fallback));
      }
      return b.build();
    }

    private static Price price(PointsmanProperties.Price p) {
      return new Price(p.input(), p.output(), p.cachedInput() == null ? p.input()
          : p.cachedInput());
    }

    /**
     * The budgets and limits of {@code pointsman.budgets} and {@code pointsman.limits}, on the
     * {@link CounterStore} bean when there is one (Redis), else in this process. A durable
     * gateway rebuilds these counters from the ledger when it is built.
     *
     * @param properties the properties
     * @param store a counter store bean
     * @return the limiter; closed by the gateway
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public Limiter pointsmanLimiter(PointsmanProperties properties,
        ObjectProvider<CounterStore> store) {
      CounterStore counters = store.getIfAvailable(InProcessCounterStore::new);
      CounterLimiter.Builder b = CounterLimiter.builder(counters);
      for (PointsmanProperties.Budget budget : properties.budgets()) {
        b.budget(Scope.parse(budget.scope()), period(budget), budget.limitMicros());
      }
      for (PointsmanProperties.Limit limit : properties.limits()) {
        Scope scope = Scope.parse(limit.scope());
        if (limit.requestsPerMinute() != null) {
          b.requestsPerMinute(scope, limit.requestsPerMinute());
        }
        if (limit.tokensPerMinute() != null) {
          b.tokensPerMinute(scope, limit.tokensPerMinute());
        }
        if (limit.concurrency() != null) {
          b.concurrency(scope, limit.concurrency());
        }
      }
      return b.build();
    }

    private static Period period(PointsmanProperties.Budget budget) {
      ZoneId zone = ZoneId.of(budget.zone());
      return switch (budget.period()) {
        case TOTAL -> Period.total();
        case DAILY -> Period.daily(zone);
        case WEEKLY -> Period.weekly(zone);
        case MONTHLY -> Period.monthly(zone);
      };
    }



    /**
     * The router over {@code pointsman.deployments} and the {@link Deployment} beans, in that
     * order.
     *
     * @param properties the properties
     * @param deployments deployment beans
     * @return the router; closed by the gateway
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public Router pointsmanRouter(PointsmanProperties properties,
        ObjectProvider<Deployment> deployments) {
      return new SingleDeploymentRouter(deployments(properties, deployments));
    }

    private static List<Deployment> deployments(PointsmanProperties properties,
        ObjectProvider<Deployment> beans) {
      List<Deployment> all = new ArrayList<>();
      for (PointsmanProperties.DeploymentSettings d : properties.deployments()) {
        if (d.id() == null || d.provider() == null || d.model() == null) {
          throw new IllegalArgumentException("every pointsman.deployments entry needs id,"
              + " provider and model");
        }
        all.add(new Deployment(d.id(), d.provider(), d.model(),
            d.providerModel() == null ? d.model() : d.providerModel(), null));
      }
      beans.orderedStream().forEach(all::add);
      return all;
    }

    /**
     * The input guardrail: the secure default chain unless {@code pointsman.guardrails.input} opts
     * out ({@code bounds-only} or {@code none}).
     *
     * @param properties the properties
     * @return the guardrail; closed by the gateway
     */
    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    public InputGuardrail pointsmanInputGuardrail(PointsmanProperties properties) {
      return switch (properties.guardrails().input()) {
        case DEFAULT -> InputGuardrailChain.ofDefaults();
        case BOUNDS_ONLY -> MessageBoundsGuardrail.ofDefaults();
        case NONE -> InputGuardrail.none();
      };
    }

    /**
     * The durable gateway.
     *
     * @param properties the properties
     * @param keys the key store
     * @param models the model resolver
     * @param limiter the limiter
     * @param cache a response cache bean of the application; without one, the cache of
     *     {@code pointsman.cache}: Caffeine with pointsman-cache (and the semantic cache behind
     *     it with pointsman-cache-semantic and {@code pointsman.cache.semantic.enabled}), else
     *     the core's in-memory exact cache; none with {@code pointsman.cache.exact.enabled=false}.
     *     It is not a bean of its own: the Caffeine cache's class names pointsman-redis types,
     *     which Spring could not introspect without that optional module
     * @param context the context, whose class loader tells which cache modules are there
     * @param router the router
     * @param inputGuardrail the input guardrail
     * @param journal the journal
     * @param ledger the ledger
     * @param beans the bean factory, for the provider beans by bean name
     * @param outputGuardrail an output guardrail bean
     * @param guardrailListener a guardrail listener bean
     * @param listeners the per-call listener factories
     * @return the gateway; closed by {@link PointsmanGatewayLifecycle}
     */
    @Bean
    @ConditionalOnMissingBean
    public Gateway pointsmanGateway(PointsmanProperties properties, Authenticator keys,
        ModelResolver models, Limiter limiter, ObjectProvider<ResponseCache> cache,
        ApplicationContext context, Router router,
        InputGuardrail inputGuardrail, Journal journal, Ledger ledger,
        ListableBeanFactory beans, ObjectProvider<OutputGuardrail> outputGuardrail,
        ObjectProvider<GuardrailListener> guardrailListener,
        ObjectProvider<CallListener.Factory> listeners) {
      Gateway.Builder b = Gateway.builder().authenticator(keys);
      if (models instanceof ModelCatalog catalog) {
        b.models(catalog);
      } else {
        PointsmanProperties.Price fallback = properties.unpricedFallback();
        b.modelResolver(models, fallback == null ? null : price(fallback));
      }
      b.limiter(limiter).inputGuardrail(inputGuardrail);
      b.cache(cache.getIfUnique(() -> Caches.build(properties.cache(),
          context.getClassLoader())));
      outputGuardrail.ifUnique(b::outputGuardrail);
      guardrailListener.ifUnique(b::guardrailListener);
      Map<String, Provider> all = new LinkedHashMap<>(providers(properties));
      beans.getBeansOfType(Provider.class).forEach((name, p) -> {
        if (all.putIfAbsent(name, p) != null) {
          throw new ConfigurationException(ConfigurationException.Problem.CONFLICTING_SETTINGS,
              "provider " + name + " is both in pointsman.providers and a Provider bean");
        }
      });
      all.forEach(b::provider);
      for (PointsmanProperties.DeploymentSettings d : properties.deployments()) {
        if (router.deployments().stream().noneMatch(r -> r.id().equals(d.id()))) {
          throw new ConfigurationException(ConfigurationException.Problem.CONFLICTING_SETTINGS,
              "pointsman.deployments names " + d.id() + ", which the Router bean does not"
                  + " route to: give every deployment to the router");
        }
      }
      b.router(router);
      List<CallListener.Factory> factories = listeners.orderedStream().toList();
      if (factories.size() == 1) {
        b.listener(factories.get(0));
      } else if (!factories.isEmpty()) {
        b.listener(CallListener.Factory.composite(factories.toArray(CallListener.Factory[]::new)));
      }
      b.maxAttempts(properties.maxAttempts());
      b.journal(journal).ledger(ledger);
      Gateway gateway = b.build();
      LOG.info("pointsman gateway built: {} models, providers {}, deployments {}, durable={}",
          models instanceof ModelCatalog c ? c.models().size() : "custom", all.keySet(),
          router.deployments().stream().map(Deployment::id).toList(),
          gateway.durability() != null);
      return gateway;
    }

    private static Map<String, Provider> providers(PointsmanProperties properties) {
      Map<String, Provider> out = new LinkedHashMap<>();
      properties.providers().forEach((name, p) -> out.put(name, provider(name, p)));
      return out;
    }

    private static Provider provider(String name, PointsmanProperties.ProviderSettings p) {
      Credential credential;
      if (p.apiKey() != null && !p.apiKey().isBlank()) {
        credential = Credential.of(p.apiKey());
      } else if (p.apiKeyEnv() != null && !p.apiKeyEnv().isBlank()) {
        credential = Credential.fromEnvironment(p.apiKeyEnv());
      } else {
        throw new IllegalArgumentException("pointsman.providers." + name + " needs api-key (for"
            + " example ${OPENAI_API_KEY}) or api-key-env");
      }
      return switch (p.type()) {
        case OPENAI -> {
          OpenAiProvider.Builder b = OpenAiProvider.builder().name(name).credential(credential);
          if (p.baseUrl() != null) {
            b.baseUri(p.baseUrl());
          }
          p.headers().forEach(b::header);
          yield b.build();
        }
        case ANTHROPIC -> {
          AnthropicProvider.Builder b = AnthropicProvider.builder().name(name)
              .credential(credential);
          if (p.baseUrl() != null) {
            b.baseUri(p.baseUrl());
          }
          p.headers().forEach(b::header);
          yield b.build();
        }
      };
    }
  }

  /**
   * Closes the gateway once the web server has drained its requests.
   *
   * @param gateway the gateway
   * @return the lifecycle
   */
  @Bean
  @ConditionalOnMissingBean
  public PointsmanGatewayLifecycle pointsmanGatewayLifecycle(ObjectProvider<Gateway> gateway) {
    return new PointsmanGatewayLifecycle(gateway);
  }

  /**
   * The caller's key: from the current Spring Security {@code Authentication} when
   * spring-security-core is on the class path (and {@code pointsman.security.enabled}),
   * falling back to {@code pointsman.default-key}; else the fixed default key.
   *
   * @param properties the properties
   * @param context the context, whose class loader tells whether Spring Security is there
   * @return the caller keys
   */
  @Bean
  @ConditionalOnMissingBean
  public CallerKeys pointsmanCallerKeys(PointsmanProperties properties,
      ApplicationContext context) {
    String fallback = properties.defaultKey() == null || properties.defaultKey().isBlank()
        ? null : properties.defaultKey();
    if (properties.security().enabled() && ClassUtils.isPresent(
        "org.springframework.security.core.context.SecurityContextHolder",
        context.getClassLoader())) {
      return new SecurityCallerKeys(properties.security().keyAttribute(), fallback);
    }
    return fallback == null ? CallerKeys.none() : CallerKeys.fixed(fallback);
  }

  /** Micrometer meters of every call, when a {@code MeterRegistry} bean exists. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass({MeterRegistry.class, MicrometerCallListener.class})
  @ConditionalOnBean(MeterRegistry.class)
  static class MicrometerConfiguration {
    @Bean
    @ConditionalOnMissingBean
    MicrometerCallListener pointsmanMicrometerListener(MeterRegistry registry) {
      return MicrometerCallListener.of(registry);
    }
  }

  /** Budget and limit counters in Redis, shared by every instance. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = "io.pointsman.limits.redis.RedisCounterStore")
  @ConditionalOnProperty(prefix = "pointsman.redis", name = "url")
  static class RedisConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "pointsmanRedis")
    io.pointsman.cache.redis.RedisConnection pointsmanRedis(PointsmanProperties properties) {
      PointsmanProperties.Redis r = properties.redis();
      return io.pointsman.cache.redis.RedisConnection.builder(r.url())
          .keyPrefix(r.keyPrefix() + ":limits").timeout(r.timeout()).build();
    }

    @Bean(destroyMethod = "")
    @ConditionalOnMissingBean
    CounterStore pointsmanCounterStore(PointsmanProperties properties,
        @Qualifier("pointsmanRedis") io.pointsman.cache.redis.RedisConnection redis) {
      return io.pointsman.limits.redis.RedisCounterStore.builder(redis)
          .allowEvictionPolicy(properties.redis().allowEvictionPolicy()).build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "pointsmanCountersHealth")
    CountersHealth pointsmanCountersHealth(
        @Qualifier("pointsmanRedis") io.pointsman.cache.redis.RedisConnection redis) {
      return () -> {
        try {
          String pong = redis.client().ping();
          return "PONG".equalsIgnoreCase(pong)
              ? new PointsmanHealthIndicator.ComponentState(true, "Redis answers PING")
              : new PointsmanHealthIndicator.ComponentState(false, "Redis answered PING with "
                  + pong);
        } catch (RuntimeException e) {
          return new PointsmanHealthIndicator.ComponentState(false, "Redis unreachable: "
              + e.getMessage());
        }
      };
    }
  }

  /** The Actuator health indicator {@code pointsman}. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(HealthIndicator.class)
  static class HealthConfiguration {
    @Bean
    @ConditionalOnMissingBean(name = "pointsmanHealthIndicator")
    PointsmanHealthIndicator pointsmanHealthIndicator(PointsmanProperties properties,
        Gateway gateway, ObjectProvider<CountersHealth> counters) {
      CountersHealth check = counters.getIfAvailable(() -> () ->
          new PointsmanHealthIndicator.ComponentState(true, "in process"));
      return new PointsmanHealthIndicator(gateway, check::check,
          properties.health().settlerStall(), properties.health().databaseTimeout());
    }
  }

  /**
   * The Spring AI {@code ChatModel} on the gateway, with pointsman-spring-ai on the class path:
   * its key for each call comes from the {@link CallerKeys} bean unless the call's
   * {@code PointsmanChatOptions} carry a virtual key; its model from
   * {@code pointsman.chat.default-model} unless the call's options name one.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = {"io.pointsman.springai.PointsmanChatModel",
      "org.springframework.ai.chat.model.ChatModel"})
  static class SpringAiConfiguration {
    @Bean
    @ConditionalOnMissingBean
    io.pointsman.springai.PointsmanChatModel pointsmanChatModel(PointsmanProperties properties,
        Gateway gateway, CallerKeys keys,
        ObjectProvider<org.springframework.ai.model.tool.ToolCallingManager> tools,
        ObjectProvider<io.micrometer.observation.ObservationRegistry> observations) {
      io.pointsman.springai.PointsmanChatModel.Builder b =
          io.pointsman.springai.PointsmanChatModel.builder(gateway)
              .keys(prompt -> keys.keyFor());
      if (properties.chat().defaultModel() != null) {
        b.defaultModel(properties.chat().defaultModel());
      }
      tools.ifUnique(b::toolCallingManager);
      observations.ifUnique(b::observationRegistry);
      return b.build();
    }
  }

  /** The counters' health check. */
  @FunctionalInterface
  interface CountersHealth {
    PointsmanHealthIndicator.ComponentState check();
  }
}
