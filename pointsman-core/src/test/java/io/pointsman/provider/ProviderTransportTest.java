package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.Clock;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Whole bodies, their caps and timeouts, and windowed streams, against the fixture server. */
class ProviderTransportTest {
  private final HttpFixtureServer server = HttpFixtureServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  private static ProviderCall plainCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}]}"));
  }

  /** The adapter under test; {@link ProviderTransportPulledTest} sends through the SPI. */
  Provider openAi(HttpTimeouts timeouts) {
    return OpenAiProvider.builder().baseUri(server.uri()).timeouts(timeouts).build();
  }

  ProviderTransport transport(int maxBody) {
    return new ProviderTransport("t", ProviderTransport.defaultClient(Fixtures.SHORT),
        Fixtures.SHORT, Clock.system(), maxBody);
  }

  HttpFixtureServer server() {
    return server;
  }

  private HttpRequest.Builder post() {
    return HttpRequest.newBuilder(server.uri().resolve("/x"))
        .POST(HttpRequest.BodyPublishers.ofString("{}"));
  }

  @Test
  void aWholeBodyUpToTheCapIsReturnedAndOneByteMoreIsRefusedAsUndecodable() {
    ProviderTransport t = transport(1000);
    String fits = "a".repeat(1000);
    server.enqueue(FixtureResponse.json(200, fits));
    ProviderTransport.Response ok = t.exchange(post(), plainCall(), false);
    assertThat(ok.status).isEqualTo(200);
    assertThat(new String(ok.body, StandardCharsets.UTF_8)).isEqualTo(fits);

    server.enqueue(FixtureResponse.json(200, "a".repeat(1001)));
    ProviderException e = Fixtures.failureOf(() -> t.exchange(post(), plainCall(), false));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.UNDECODABLE_RESPONSE);
    assertThat(e.getMessage()).contains("exceeds 1000 bytes");
    assertThat(e.billing()).isEqualTo(Billing.UNKNOWN);
  }

  @Test
  void anErrorBodyIsCutAt64KibAndTheStatusStillDecides() {
    ProviderTransport t = transport(1000);
    String big = "{\"error\":{\"message\":\"" + "x".repeat(100_000) + "\"}}";
    server.enqueue(FixtureResponse.json(500, big));
    ProviderTransport.Response r = t.exchange(post(), plainCall(), false);
    assertThat(r.status).isEqualTo(500);
    assertThat(r.body).hasSize(ProviderTransport.MAX_ERROR_BODY);
    assertThat(new String(r.body, StandardCharsets.UTF_8)).isEqualTo(
        big.substring(0, ProviderTransport.MAX_ERROR_BODY));

    server.enqueue(FixtureResponse.json(503, big));
    ProviderException e = Fixtures.failureOf(() -> openAi(Fixtures.SHORT).send(plainCall()));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.OVERLOADED);
    assertThat(e.billing()).isEqualTo(Billing.NOT_BILLED);
  }

  @Test
  void aPlainBodyThatGoesSilentFailsAfterTheBetweenChunkTimeout() {
    server.enqueue(FixtureResponse.json(200, "{\"id\":\"x\",\"choices\":[]}").hangAfter(5));
    ProviderException e = Fixtures.failureOf(() -> openAi(new HttpTimeouts(
        Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(300),
        Duration.ofSeconds(20))).send(plainCall()));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(e.getMessage()).contains("between-chunk");
    assertThat(e.billing()).isEqualTo(Billing.UNKNOWN);
  }

  @Test
  void aPlainBodyStillArrivingWhenTheTotalTimeRunsOutFails() {
    server.enqueue(FixtureResponse.json(200, "{\"id\":\"x\",\"choices\":[]}").hangAfter(5));
    ProviderException e = Fixtures.failureOf(() -> openAi(new HttpTimeouts(
        Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofSeconds(10),
        Duration.ofMillis(400))).send(plainCall()));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.INTERRUPTED);
    assertThat(e.getMessage()).contains("total time");
  }

  @Test
  void anErrorBodyThatGoesSilentKeepsWhatArrivedAndTheStatusDecides() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"slow down\"}}")
        .header("retry-after", "1").hangAfter(3));
    ProviderException e = Fixtures.failureOf(() -> openAi(new HttpTimeouts(
        Duration.ofSeconds(2), Duration.ofSeconds(2), Duration.ofMillis(300),
        Duration.ofSeconds(20))).send(plainCall()));
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.RATE_LIMITED);
    assertThat(e.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(e.billing()).isEqualTo(Billing.NOT_BILLED);
  }

  @Test
  void aStreamLongerThanTheWindowArrivesWholeAndInOrderForAReaderThatPauses() {
    List<String> frames = new ArrayList<>();
    for (int i = 0; i < 10 * ProviderTransport.STREAM_WINDOW; i++) {
      frames.add("data: " + i + "\n\n");
    }
    server.enqueue(FixtureResponse.sse(frames));
    ProviderTransport t = transport(1000);
    ProviderTransport.Response r = t.exchange(post(), plainCall(), true);
    assertThat(r.body).isNull();
    StringBuilder read = new StringBuilder();
    int[] pieces = {0};
    boolean ended = t.stream(r, b -> {
      if (pieces[0]++ % 20 == 0) {
        // Let the client run ahead until the window is full.
        Thread.yield();
      }
      read.append(StandardCharsets.UTF_8.decode(b));
    }, () -> false, () -> false);
    assertThat(ended).isTrue();
    assertThat(read.toString()).isEqualTo(String.join("", frames));
  }

  @Test
  void aStreamAnsweredWithAnErrorStatusIsReadWhole() {
    server.enqueue(FixtureResponse.json(400, "{\"error\":{\"message\":\"no\"}}"));
    ProviderTransport.Response r = transport(1000).exchange(post(), plainCall(), true);
    assertThat(r.status).isEqualTo(400);
    assertThat(r.stream).isNull();
    assertThat(new String(r.body, StandardCharsets.UTF_8))
        .isEqualTo("{\"error\":{\"message\":\"no\"}}");
  }
}
