package io.pointsman.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pointsman.CallOptions;
import io.pointsman.ChatResult;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.cache.exact.CaffeineExactCache;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.guardrail.InputGuardrailChain;
import io.pointsman.guardrail.MessageBoundsGuardrail;
import io.pointsman.journal.JournalAccounting;
import io.pointsman.ledger.PostgresLedger;
import io.pointsman.ledger.testing.TestDatabase;
import io.pointsman.ledger.testing.TestDatabases;
import io.pointsman.limits.InMemoryLimiter;
import io.pointsman.micrometer.MicrometerCallListener;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Message;
import io.pointsman.route.SingleDeploymentRouter;
import io.pointsman.spi.Authenticator;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.InputGuardrail;
import io.pointsman.spi.Journal;
import io.pointsman.spi.Ledger;
import io.pointsman.spi.Limiter;
import io.pointsman.spi.ModelResolver;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ResponseCache;
import io.pointsman.spi.Router;
import io.pointsman.testing.FixtureProvider;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.context.SecurityContextHolder;

/**
 * The auto-configuration on a real PostgreSQL database and a file journal: the gateway it
 * builds from properties is durable and settles into the ledger when the context closes; every
 * bean it defines backs off for the application's own; the optional parts appear only with
 * their libraries or beans.
 */
class PointsmanAutoConfigurationTest {
  private static final String KEY = "pm-boot-test-key-1";
  private static TestDatabase db;

  @TempDir
  Path journal;

  @BeforeAll
  static void database() {
    db = TestDatabases.server().createDatabase();
  }

  @AfterAll
  static void dropDatabase() {
    db.close();
  }

  @AfterEach
  void clearSecurity() {
    SecurityContextHolder.clearContext();
  }

  private ApplicationContextRunner runner() {
    return new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PointsmanAutoConfiguration.class))
        .withBean("ledgerDataSource", DataSource.class, db::dataSource)
        .withBean("fixture", Provider.class, () -> FixtureProvider.builder().build())
        .withPropertyValues(
            "pointsman.journal.directory=" + journal,
            "pointsman.default-key=" + KEY,
            "pointsman.models.gpt-4o-mini.aliases=mini",
            "pointsman.models.gpt-4o-mini.input-price=150000",
            "pointsman.models.gpt-4o-mini.output-price=600000",
            "pointsman.keys.inline[0].key=" + KEY,
            "pointsman.keys.inline[0].id=boot-key",
            "pointsman.keys.inline[0].team=checkout",
            "pointsman.budgets[0].scope=team:checkout",
            "pointsman.budgets[0].limit-micros=5000000",
            "pointsman.deployments[0].id=fixture-mini",
            "pointsman.deployments[0].provider=fixture",
            "pointsman.deployments[0].model=gpt-4o-mini");
  }

  private static ChatRequest hello(String text) {
    return ChatRequest.builder().model("mini").addMessage(Message.user(text)).temperature(0.0)
        .build();
  }

  private static long ledgerRows(String keyId) throws Exception {
    try (Connection c = db.connect(); Statement st = c.createStatement();
        ResultSet rs = st.executeQuery("SELECT count(*) FROM pointsman.ledger_entries WHERE"
            + " key_id = '" + keyId + "'")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  @Test
  void modelPricesTakeEveryTokenClassAndAVersionFromTheProperties() {
    runner().withPropertyValues(
            "pointsman.models.gpt-4o-mini.cached-input-price=75000",
            "pointsman.models.gpt-4o-mini.cache-write-price=187500",
            "pointsman.models.gpt-4o-mini.reasoning-price=900000",
            "pointsman.models.gpt-4o-mini.price-version=contract-2026")
        .run(context -> {
          assertThat(context).hasNotFailed();
          io.pointsman.catalog.Price price = context.getBean(ModelCatalog.class)
              .find("gpt-4o-mini").price();
          assertThat(price).isEqualTo(new io.pointsman.catalog.Price(150_000, 600_000, 75_000,
              187_500, 900_000, "contract-2026"));
        });
    runner().run(context -> assertThat(context.getBean(ModelCatalog.class).find("gpt-4o-mini")
        .price()).isEqualTo(io.pointsman.catalog.Price.of(150_000, 600_000)));
  }

  @Test
  void buildsADurableGatewayWhoseCallsReachTheLedgerWhenTheContextCloses() throws Exception {
    long before = ledgerRows("boot-key");
    Gateway[] kept = new Gateway[1];
    runner().run(context -> {
      assertThat(context).hasNotFailed();
      Gateway gateway = context.getBean(Gateway.class);
      kept[0] = gateway;
      assertThat(gateway.durability()).as("journal(...).ledger(...) made it durable")
          .isNotNull();
      assertThat(gateway.durability().accounting()).isInstanceOf(JournalAccounting.class);
      assertThat(gateway.durability().ledger()).isInstanceOf(PostgresLedger.class);
      assertThat(gateway.durability().confirmed()).as("budgets confirmed against PostgreSQL")
          .isTrue();
      ChatResult r = gateway.chat(hello("durable hello"), CallOptions.of(KEY));
      assertThat(r.costMicros()).isPositive();
      assertThat(gateway.cache()).isInstanceOf(CaffeineExactCache.class);
      assertThat(context.getBean(InputGuardrail.class))
          .as("the secure default chain is on").isInstanceOf(InputGuardrailChain.class);
      assertThat(context.getBean(CallerKeys.class).keyFor()).isEqualTo(KEY);
    });
    assertThat(ledgerRows("boot-key")).as("closing the context drained the journal")
        .isEqualTo(before + 1);
    assertThatThrownBy(() -> kept[0].chat(hello("after close"), CallOptions.of(KEY)))
        .as("the lifecycle closed the gateway").isInstanceOf(RuntimeException.class);
  }

  @Test
  void theHealthIndicatorReportsEveryComponentUp() {
    runner().run(context -> {
      Health health = context.getBean("pointsmanHealthIndicator",
          PointsmanHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("durable", true)
          .containsKeys("journal", "settler", "counters", "database", "budgets");
      @SuppressWarnings("unchecked")
      Map<String, Object> database = (Map<String, Object>) health.getDetails().get("database");
      assertThat(database).containsEntry("status", "UP");
      assertThat((String) database.get("detail")).startsWith("reachable");
    });
  }

  @Test
  void theHealthIndicatorIsDownWhileTheLedgerDatabaseDoesNotAnswer() {
    org.postgresql.ds.PGSimpleDataSource dead = new org.postgresql.ds.PGSimpleDataSource();
    dead.setURL("jdbc:postgresql://127.0.0.1:1/none?connectTimeout=1");
    runner().withBean("deadDataSource", DataSource.class, () -> dead,
        bd -> bd.setPrimary(true)).run(context -> {
          assertThat(context).as("the gateway opens while PostgreSQL is down").hasNotFailed();
          Health health = context.getBean(PointsmanHealthIndicator.class).health();
          assertThat(health.getStatus()).isEqualTo(Status.DOWN);
          assertThat(health.getDetails().get("database")).asString().contains("DOWN")
              .contains("unreachable");
          assertThat(health.getDetails().get("budgets")).asString().contains("DOWN");
          assertThat(health.getDetails().get("journal")).asString().contains("UP");
          PointsmanException refused = org.junit.jupiter.api.Assertions.assertThrows(
              PointsmanException.class,
              () -> context.getBean(Gateway.class).chat(hello("x"), CallOptions.of(KEY)));
          assertThat(refused.status()).as("budgeted calls wait for the confirmation")
              .isEqualTo(io.pointsman.Status.UNAVAILABLE);
        });
  }

  static Stream<Arguments> userBeans() {
    Function<Void, Object> keys = v -> new InMemoryKeyStore(Clock.system());
    return Stream.of(
        Arguments.of(Authenticator.class, keys),
        Arguments.of(ModelResolver.class, (Function<Void, Object>) v -> ModelCatalog.builder()
            .model(ModelSpec.builder("gpt-4o-mini").aliases("mini")
                .price(Price.of(1, 1)).build()).build()),
        Arguments.of(Limiter.class, (Function<Void, Object>) v -> InMemoryLimiter.builder()
            .build()),
        Arguments.of(ResponseCache.class, (Function<Void, Object>) v -> ResponseCache.none()),
        Arguments.of(Router.class, (Function<Void, Object>) v -> new SingleDeploymentRouter(
            List.of(Deployment.of("fixture-mini", "fixture", "gpt-4o-mini")))),
        Arguments.of(InputGuardrail.class, (Function<Void, Object>) v ->
            MessageBoundsGuardrail.ofDefaults()),
        Arguments.of(Journal.class, (Function<Void, Object>) v -> JournalAccounting.at(
            Path.of(System.getProperty("java.io.tmpdir"), "pointsman-boot-user-journal-"
                + System.nanoTime()))),
        Arguments.of(Ledger.class, (Function<Void, Object>) v -> PostgresLedger.of(
            db.dataSource())),
        Arguments.of(CallerKeys.class, (Function<Void, Object>) v -> CallerKeys.fixed(
            "pm-other-key-2")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("userBeans")
  @SuppressWarnings({"unchecked", "rawtypes"})
  void everyBeanBacksOffForTheApplicationsOwn(Class<?> type, Function<Void, Object> make) {
    Object mine = make.apply(null);
    runner().withBean("mine", (Class) type, () -> mine).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBeansOfType(type)).as("only the application's " + type
          .getSimpleName()).containsOnlyKeys("mine");
      Gateway gateway = context.getBean(Gateway.class);
      if (type == ResponseCache.class) {
        assertThat(gateway.cache()).as("the gateway uses it").isSameAs(mine);
      }
      if (type == Ledger.class) {
        assertThat(gateway.durability().ledger()).as("the gateway uses it").isSameAs(mine);
      }
    });
  }

  /** A provider that records that it was closed. */
  static final class ClosingProvider implements Provider, AutoCloseable {
    private final FixtureProvider fixture = FixtureProvider.builder().build();
    volatile boolean closed;

    @Override
    public io.pointsman.spi.ProviderReply send(io.pointsman.spi.ProviderCall call) {
      return fixture.send(call);
    }

    @Override
    public void close() {
      closed = true;
    }
  }

  @Test
  void aUserGatewayReplacesTheAutoConfiguredOneAndIsStillWatchedAndClosed() {
    Gateway[] mine = new Gateway[1];
    ClosingProvider provider = new ClosingProvider();
    runner().withBean("myGateway", Gateway.class, () -> {
      InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
      keys.addKey("pm-own-gateway-key", io.pointsman.auth.KeySpec.builder("own").build());
      mine[0] = Gateway.builder().authenticator(keys)
          .models(ModelCatalog.builder().model(ModelSpec.builder("gpt-4o-mini")
              .price(Price.of(1, 1)).build()).build())
          .provider("own", provider)
          .deployment(Deployment.of("own-mini", "own", "gpt-4o-mini")).build();
      return mine[0];
    }).run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context.getBeansOfType(Gateway.class)).containsOnlyKeys("myGateway");
      assertThat(context.getBean(Gateway.class)).isSameAs(mine[0]);
      assertThat(context).as("no parts for a gateway that is not built")
          .doesNotHaveBean(Journal.class).doesNotHaveBean(Ledger.class)
          .doesNotHaveBean(Authenticator.class).doesNotHaveBean(Limiter.class)
          .hasSingleBean(CallerKeys.class);
      Health health = context.getBean(PointsmanHealthIndicator.class).health();
      assertThat(health.getStatus()).isEqualTo(Status.UP);
      assertThat(health.getDetails()).containsEntry("durable", false);
      assertThat(mine[0].chat(ChatRequest.builder().model("gpt-4o-mini")
          .addMessage(Message.user("x")).build(), CallOptions.of("pm-own-gateway-key"))
          .deploymentId()).isEqualTo("own-mini");
      assertThat(provider.closed).isFalse();
    });
    assertThat(provider.closed).as("the gateway, and what it owns, closed with the context")
        .isTrue();
  }

  @Test
  void theMicrometerMetersAppearWithAMeterRegistryOnly() {
    runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new).run(context -> {
      assertThat(context).hasSingleBean(MicrometerCallListener.class);
      context.getBean(Gateway.class).chat(hello("metered"), CallOptions.of(KEY));
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.find("pointsman.total").timer()).isNotNull();
      assertThat(registry.find("pointsman.total").timer().count()).isEqualTo(1);
      assertThat(registry.find("pointsman.cost").summary().totalAmount()).isPositive();
    });
    runner().run(context -> assertThat(context)
        .doesNotHaveBean(MicrometerCallListener.class));
    runner().withBean(MeterRegistry.class, SimpleMeterRegistry::new)
        .withClassLoader(new FilteredClassLoader(MicrometerCallListener.class))
        .run(context -> assertThat(context).hasNotFailed()
            .doesNotHaveBean("pointsmanMicrometerListener"));
  }

  @Test
  void theGuardrailDefaultStaysOnUnlessExplicitlyOptedOut() {
    runner().withPropertyValues("pointsman.guardrails.input=none").run(context -> assertThat(
        context.getBean(InputGuardrail.class)).isSameAs(InputGuardrail.none()));
    runner().withPropertyValues("pointsman.guardrails.input=bounds-only").run(context ->
        assertThat(context.getBean(InputGuardrail.class))
            .isInstanceOf(MessageBoundsGuardrail.class));
  }

  @Test
  void callerKeysComeFromTheSpringSecurityPrincipalThenTheDefaultKey() {
    runner().withPropertyValues("pointsman.security.key-attribute=virtualKey").run(context -> {
      CallerKeys keys = context.getBean(CallerKeys.class);
      assertThat(keys).isInstanceOf(SecurityCallerKeys.class);
      assertThat(keys.keyFor()).as("no principal: the default key").isEqualTo(KEY);
      UsernamePasswordAuthenticationToken auth = UsernamePasswordAuthenticationToken
          .authenticated("alice", "n/a", List.of());
      auth.setDetails(Map.of("virtualKey", "pm-alice-key-1"));
      SecurityContextHolder.getContext().setAuthentication(auth);
      assertThat(keys.keyFor()).isEqualTo("pm-alice-key-1");
    });
    runner().withPropertyValues("pointsman.security.key-attribute=name",
        "pointsman.default-key=").run(context -> {
          UsernamePasswordAuthenticationToken auth = UsernamePasswordAuthenticationToken
              .authenticated("pm-bob-key-22", "n/a", List.of());
          SecurityContextHolder.getContext().setAuthentication(auth);
          assertThat(context.getBean(CallerKeys.class).keyFor()).isEqualTo("pm-bob-key-22");
          SecurityContextHolder.clearContext();
          PointsmanException none = org.junit.jupiter.api.Assertions.assertThrows(
              PointsmanException.class, () -> context.getBean(CallerKeys.class).keyFor());
          assertThat(none.status()).isEqualTo(io.pointsman.Status.UNAUTHORIZED);
        });
    runner().withClassLoader(new FilteredClassLoader(SecurityContextHolder.class))
        .run(context -> {
          CallerKeys keys = context.getBean(CallerKeys.class);
          assertThat(keys).isNotInstanceOf(SecurityCallerKeys.class);
          assertThat(keys.keyFor()).isEqualTo(KEY);
          assertThat(keys.toString()).doesNotContain(KEY);
        });
  }

  @Test
  void withoutADataSourceOrALedgerUrlTheContextFailsNamingBoth() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PointsmanAutoConfiguration.class))
        .withPropertyValues("pointsman.journal.directory=" + journal)
        .run(context -> assertThat(context).hasFailed().getFailure()
            .rootCause().hasMessageContaining("DataSource")
            .hasMessageContaining("pointsman.ledger.url"));
  }

  @Test
  void secretsNeverAppearInThePropertiesPrintout() {
    PointsmanProperties p = new org.springframework.boot.context.properties.bind.Binder(
        new org.springframework.boot.context.properties.source.MapConfigurationPropertySource(
            Map.of("pointsman.providers.openai.api-key", "sk-very-secret-1",
                "pointsman.ledger.url", "jdbc:postgresql://127.0.0.1:1/x?password=hunter2",
                "pointsman.ledger.password", "hunter3",
                "pointsman.default-key", KEY,
                "pointsman.keys.inline[0].key", "pm-inline-secret-9",
                "pointsman.keys.inline[0].id", "inline")))
        .bind("pointsman", PointsmanProperties.class).get();
    assertThat(p.providers().get("openai").apiKey()).isEqualTo("sk-very-secret-1");
    assertThat(p.toString()).contains("openai").contains("inline")
        .doesNotContain("sk-very-secret-1").doesNotContain("hunter2")
        .doesNotContain("hunter3").doesNotContain(KEY).doesNotContain("pm-inline-secret-9");
  }

  @Test
  void theCacheFollowsTheModulesOnTheClassPathAndItsSwitch() {
    runner().withClassLoader(new FilteredClassLoader(CaffeineExactCache.class)).run(context ->
        assertThat(context.getBean(Gateway.class).cache())
            .isInstanceOf(io.pointsman.cache.InMemoryExactCache.class));
    runner().withPropertyValues("pointsman.cache.exact.enabled=false").run(context ->
        assertThat(context.getBean(Gateway.class).cache())
            .hasSameClassAs(ResponseCache.none()));
    runner().withPropertyValues("pointsman.cache.semantic.enabled=true")
        .withClassLoader(new FilteredClassLoader("io.pointsman.cache.semantic"))
        .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
            .hasMessageContaining("pointsman-cache-semantic"));
  }

  @Test
  void disabledMeansNoGateway() {
    runner().withPropertyValues("pointsman.enabled=false").run(context ->
        assertThat(context).doesNotHaveBean(Gateway.class));
  }
}
