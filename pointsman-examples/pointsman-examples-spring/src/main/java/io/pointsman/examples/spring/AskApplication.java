package io.pointsman.examples.spring;

import io.pointsman.ledger.EmbeddedPostgres;
import io.pointsman.spi.Provider;
import io.pointsman.testing.FixtureProvider;
import javax.sql.DataSource;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/**
 * A Spring Boot web application whose Spring AI {@link ChatClient} runs on the Pointsman
 * {@code ChatModel}: every call goes through an in-process durable gateway (virtual key,
 * budget, guardrails, cache, file journal, PostgreSQL ledger) with no proxy hop. The gateway
 * is configured in {@code application.yml} ({@code pointsman.*}) and built by the Spring Boot
 * starter; this class adds only what an application brings: its {@code DataSource} (here an
 * embedded PostgreSQL started from a Maven artifact), a provider (here the in-process fixture
 * provider, so it runs without an API key) and the {@code ChatClient}.
 *
 * <p>Run: {@code mvn -q -B -pl pointsman-examples/pointsman-examples-spring -am package -DskipTests -Dmaven.javadoc.skip exec:java},
 * then {@code curl -s localhost:8080/ask -H 'content-type: application/json'
 * -d '{"question":"What does a pointsman do?"}'}.
 */
@SpringBootApplication
public class AskApplication {

  /**
   * Starts the application.
   *
   * @param args Spring Boot arguments ({@code --server.port=0} for a free port)
   */
  public static void main(String[] args) {
    SpringApplication.run(AskApplication.class, args);
  }

  /**
   * The embedded PostgreSQL the ledger settles into (stopped when the context closes, after
   * the gateway drained its journal into it).
   *
   * @return the running server
   */
  @Bean(destroyMethod = "close")
  EmbeddedPostgres ledgerPostgres() {
    return EmbeddedPostgres.start();
  }

  /**
   * The application's data source, on which the starter puts the ledger.
   *
   * @param postgres the server
   * @return the data source
   */
  @Bean
  DataSource dataSource(EmbeddedPostgres postgres) {
    return postgres.dataSource();
  }

  /**
   * The provider {@code pointsman.deployments} names {@code fixture}: it answers in process.
   * Replace it with {@code pointsman.providers.openai} (see application.yml) for a real one.
   *
   * @return the provider
   */
  @Bean
  Provider fixture() {
    return FixtureProvider.builder().build();
  }

  /**
   * Spring AI's client on the Pointsman chat model the starter registered.
   *
   * @param model the chat model
   * @return the client
   */
  @Bean
  ChatClient chatClient(ChatModel model) {
    return ChatClient.builder(model).build();
  }
}
