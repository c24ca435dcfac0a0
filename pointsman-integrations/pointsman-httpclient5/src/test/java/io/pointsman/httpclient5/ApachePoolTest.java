package io.pointsman.httpclient5;

import static io.pointsman.httpclient5.TransportContract.COMPLETION;
import static io.pointsman.httpclient5.TransportContract.call;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.pointsman.provider.HttpTimeouts;
import io.pointsman.provider.OpenAiProvider;
import io.pointsman.provider.ProviderErrorKind;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A call that finds every pooled connection busy: it waits for one within its first-byte
 * budget, and when none comes in time nothing was sent, so nothing may be billed.
 */
class ApachePoolTest {
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final ApacheHttpTransport transport = ApacheHttpTransport.builder().maxConnections(1)
      .build();

  @AfterEach
  void stop() {
    transport.close();
    server.close();
  }

  private OpenAiProvider provider(Duration firstByte) {
    return OpenAiProvider.builder().baseUri(server.uri()).transport(transport)
        .timeouts(new HttpTimeouts(Duration.ofSeconds(2), firstByte, Duration.ofSeconds(2),
            Duration.ofSeconds(20))).build();
  }

  /** Starts a call that holds the only connection until its answer comes, after {@code hold}. */
  private CompletableFuture<String> holdTheConnection(Duration hold) throws Exception {
    server.enqueue(FixtureResponse.json(200, COMPLETION).headersDelay(hold));
    OpenAiProvider slow = provider(Duration.ofSeconds(10));
    CompletableFuture<String> first = CompletableFuture.supplyAsync(
        () -> slow.send(call(false)).response().firstText());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (server.requests().isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(server.requests()).hasSize(1);
    return first;
  }

  @Test
  void aCallWaitsForABusyPoolInsteadOfFailing() throws Exception {
    CompletableFuture<String> first = holdTheConnection(Duration.ofMillis(500));
    server.enqueue(FixtureResponse.json(200, COMPLETION));
    String second = provider(Duration.ofSeconds(5)).send(call(false)).response().firstText();
    assertThat(second).isEqualTo("hello");
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
    assertThat(server.requests()).hasSize(2);
  }

  @Test
  void noPooledConnectionWithinTheFirstByteTimeoutIsNotSentAndNotBilled() throws Exception {
    CompletableFuture<String> first = holdTheConnection(Duration.ofSeconds(2));
    ProviderException e = catchThrowableOfType(ProviderException.class,
        () -> provider(Duration.ofMillis(300)).send(call(false)));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NOT_SENT);
    assertThat(e.billing()).isEqualTo(Billing.NOT_BILLED);
    assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
    // The refused call never reached the provider.
    assertThat(server.requests()).hasSize(1);
  }
}
