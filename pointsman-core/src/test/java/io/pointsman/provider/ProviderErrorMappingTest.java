package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.Status;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import io.pointsman.testing.FakeClock;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpHeaders;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ProviderErrorMappingTest {
  private static final Instant NOW = Instant.parse("2025-01-02T03:04:05Z");
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final FakeClock clock = new FakeClock(NOW);

  @AfterEach
  void stop() {
    server.close();
  }

  private Provider openAi() {
    return OpenAiProvider.builder().baseUri(server.uri()).credential(Credential.of("sk-x"))
        .timeouts(Fixtures.SHORT).clock(clock).build();
  }

  private Provider anthropic() {
    return AnthropicProvider.builder().baseUri(server.uri()).credential(Credential.of("sk-x"))
        .timeouts(Fixtures.SHORT).clock(clock).build();
  }

  private static ProviderCall plainCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}]}"));
  }

  static Stream<Arguments> statuses() {
    return Stream.of(
        // status, body, kind, gateway status, retryable
        Arguments.of(400, "{\"error\":{\"message\":\"This model's maximum context length is"
            + " 8192 tokens\",\"type\":\"invalid_request_error\",\"code\":"
            + "\"context_length_exceeded\"}}", ProviderErrorKind.CONTEXT_LENGTH,
            Status.BAD_REQUEST, false),
        Arguments.of(400, "{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\","
            + "\"message\":\"prompt is too long: 210000 tokens > 200000 maximum\"}}",
            ProviderErrorKind.CONTEXT_LENGTH, Status.BAD_REQUEST, false),
        Arguments.of(413, "{\"type\":\"error\",\"error\":{\"type\":\"request_too_large\","
            + "\"message\":\"Request exceeds the maximum size\"}}",
            ProviderErrorKind.CONTEXT_LENGTH, Status.BAD_REQUEST, false),
        Arguments.of(400, "{\"error\":{\"message\":\"bad temperature\"}}",
            ProviderErrorKind.INVALID_REQUEST, Status.BAD_REQUEST, false),
        Arguments.of(422, "not json", ProviderErrorKind.INVALID_REQUEST, Status.BAD_GATEWAY,
            false),
        Arguments.of(401, "{\"error\":{\"message\":\"Incorrect API key provided\"}}",
            ProviderErrorKind.AUTHENTICATION, Status.BAD_GATEWAY, false),
        Arguments.of(403, "{\"type\":\"error\",\"error\":{\"type\":\"permission_error\","
            + "\"message\":\"no access\"}}", ProviderErrorKind.PERMISSION, Status.BAD_GATEWAY,
            false),
        Arguments.of(404, "{\"error\":{\"message\":\"model not found\"}}",
            ProviderErrorKind.NOT_FOUND, Status.BAD_GATEWAY, false),
        Arguments.of(408, "", ProviderErrorKind.TRANSIENT, Status.BAD_GATEWAY, true),
        Arguments.of(409, "", ProviderErrorKind.TRANSIENT, Status.BAD_GATEWAY, true),
        Arguments.of(429, "{\"error\":{\"message\":\"Rate limit reached\"}}",
            ProviderErrorKind.RATE_LIMITED, Status.TOO_MANY_REQUESTS, true),
        Arguments.of(500, "<html>oops</html>", ProviderErrorKind.SERVER_ERROR,
            Status.BAD_GATEWAY, true),
        Arguments.of(503, "", ProviderErrorKind.OVERLOADED, Status.BAD_GATEWAY, true),
        Arguments.of(529, "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            + "\"message\":\"Overloaded\"}}", ProviderErrorKind.OVERLOADED, Status.BAD_GATEWAY,
            true));
  }

  @ParameterizedTest(name = "{0} -> {2}")
  @MethodSource("statuses")
  void mapsEveryErrorStatusToATypedFailureForBothAdapters(int status, String body,
      ProviderErrorKind kind, Status gatewayStatus, boolean retryable) {
    for (Provider provider : List.of(openAi(), anthropic())) {
      server.enqueue(FixtureResponse.json(status, body));
      ProviderException e = Fixtures.failureOf(() -> provider.send(plainCall()));
      assertThat(ProviderErrorKind.of(e)).as(provider.toString()).isEqualTo(kind);
      assertThat(e.status()).isEqualTo(gatewayStatus);
      assertThat(e.retryable()).isEqualTo(retryable);
      // Which statuses are billed is pinned row by row in StatusClassificationTest.
      assertThat(e.billing()).isEqualTo(ProviderException.billingOf(status));
      assertThat(e.getMessage()).doesNotContain("sk-x");
    }
  }

  @Test
  void readsRetryAfterAsMillisecondsSecondsAndHttpDate() {
    server.enqueue(FixtureResponse.json(429, "{}").header("retry-after-ms", "1500.5")
        .header("retry-after", "9"));
    server.enqueue(FixtureResponse.json(429, "{}").header("retry-after", "7"));
    server.enqueue(FixtureResponse.json(503, "{}").header("retry-after",
        "Thu, 02 Jan 2025 03:04:35 GMT"));
    server.enqueue(FixtureResponse.json(429, "{}").header("retry-after", "soon"));
    Provider p = openAi();
    List<Duration> hints = Stream.generate(() -> Fixtures.failureOf(() -> p.send(plainCall())).retryAfter()).limit(4).toList();
    assertThat(hints.subList(0, 3)).containsExactly(Duration.ofNanos(1_500_500_000L),
        Duration.ofSeconds(7), Duration.ofSeconds(30));
    assertThat(hints.get(3)).isNull();
    assertThat(ProviderErrors.parseRetryAfter("Wed, 01 Jan 2025 00:00:00 GMT", NOW))
        .as("a date in the past means now").isEqualTo(Duration.ZERO);
    assertThat(ProviderErrors.retryAfter(HttpHeaders.of(Map.of("retry-after",
        List.of("-3")), (a, b) -> true), NOW)).isNull();
  }

  @Test
  void aRefusedConnectionIsNotSent() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    Provider p = OpenAiProvider.builder().baseUri(URI.create("http://127.0.0.1:" + port))
        .timeouts(Fixtures.SHORT).build();
    ProviderException e = Fixtures.failureOf(() -> p.send(plainCall()));
    assertThat(e.billing()).isEqualTo(Billing.NOT_BILLED);
    assertThat(e.retryable()).isTrue();
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NOT_SENT);
  }

  @Test
  void noResponseWithinTheFirstByteTimeoutIsAnUnknownOutcome() {
    server.enqueue(FixtureResponse.json(200, "{}").headersDelay(Duration.ofSeconds(30)));
    Provider p = OpenAiProvider.builder().baseUri(server.uri())
        .timeouts(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMillis(300),
            Duration.ofSeconds(2), Duration.ofSeconds(10))).build();
    ProviderException e = Fixtures.failureOf(() -> p.send(plainCall()));
    assertThat(e.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(e.status()).isEqualTo(Status.GATEWAY_TIMEOUT);
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NO_RESPONSE);
  }

  @Test
  void silenceBetweenChunksAndAResetAfterTheSendAreUnknownOutcomes() {
    Provider p = OpenAiProvider.builder().baseUri(server.uri())
        .timeouts(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2),
            Duration.ofMillis(300), Duration.ofSeconds(10))).build();
    server.enqueue(FixtureResponse.sse(List.of("data: {\"id\":\"s\",\"created\":1,\"model\":"
        + "\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\n", "x"))
        .hangAfter(1));
    ProviderException silent = Fixtures.failureOf(() -> p.stream(plainCall(),
        new Fixtures.RecordingSink()));
    assertThat(silent.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(ProviderErrorKind.of(silent)).isEqualTo(ProviderErrorKind.INTERRUPTED);

    server.enqueue(FixtureResponse.resetAfterRequest());
    ProviderException reset = Fixtures.failureOf(() -> p.send(plainCall()));
    assertThat(reset.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(reset.retryable()).isTrue();
  }

  @Test
  void anUndecodableSuccessAndAMidStreamErrorEventAreUnknownOutcomes() {
    server.enqueue(FixtureResponse.json(200, "{\"choices\": [unterminated"));
    ProviderException bad = Fixtures.failureOf(() -> openAi().send(plainCall()));
    assertThat(ProviderErrorKind.of(bad)).isEqualTo(ProviderErrorKind.UNDECODABLE_RESPONSE);
    assertThat(bad.billing()).isEqualTo(Billing.UNKNOWN);

    server.enqueue(FixtureResponse.sse(List.of(
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
            + "\"usage\":{\"input_tokens\":5}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,"
            + "\"delta\":{\"type\":\"text_delta\",\"text\":\"par\"}}\n\n",
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            + "\"message\":\"Overloaded\"}}\n\n")));
    ProviderException mid = Fixtures.failureOf(() -> anthropic().stream(plainCall(),
        new Fixtures.RecordingSink()));
    assertThat(ProviderErrorKind.of(mid)).isEqualTo(ProviderErrorKind.STREAM_ERROR);
    assertThat(mid.billing()).isEqualTo(Billing.UNKNOWN);

    server.enqueue(FixtureResponse.sse(List.of(
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            + "\"message\":\"Overloaded\"}}\n\n")));
    ProviderException early = Fixtures.failureOf(() -> anthropic().stream(plainCall(),
        new Fixtures.RecordingSink()));
    assertThat(ProviderErrorKind.of(early)).isEqualTo(ProviderErrorKind.OVERLOADED);
    assertThat(early.billing()).isEqualTo(Billing.NOT_BILLED);
    assertThat(early.retryable()).isTrue();
  }
}
