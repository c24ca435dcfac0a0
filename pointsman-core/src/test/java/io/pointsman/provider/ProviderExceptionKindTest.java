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
import io.pointsman.spi.ProviderException.Kind;
import io.pointsman.testing.FakeClock;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** A provider failure carries a typed kind, set by the adapters and never read from prose. */
class ProviderExceptionKindTest {
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final FakeClock clock = new FakeClock(Instant.parse("2025-01-02T03:04:05Z"));

  @AfterEach
  void stop() {
    server.close();
  }

  private List<Provider> adapters() {
    return List.of(
        OpenAiProvider.builder().baseUri(server.uri()).credential(Credential.of("sk-x"))
            .timeouts(Fixtures.SHORT).clock(clock).build(),
        AnthropicProvider.builder().baseUri(server.uri()).credential(Credential.of("sk-x"))
            .timeouts(Fixtures.SHORT).clock(clock).build());
  }

  private static ProviderCall plainCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}]}"));
  }

  static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> statuses() {
    return ProviderErrorMappingTest.statuses();
  }

  @ParameterizedTest(name = "{0} -> {2}")
  @MethodSource("statuses")
  void bothAdaptersSetTheTypedKindOfEveryErrorStatus(int status, String body,
      ProviderErrorKind kind, Status gatewayStatus, boolean retryable) {
    for (Provider provider : adapters()) {
      server.enqueue(FixtureResponse.json(status, body));
      ProviderException e = Fixtures.failureOf(() -> provider.send(plainCall()));
      assertThat(e.kind()).as(provider.toString()).isEqualTo(Kind.valueOf(kind.name()));
    }
  }

  @Test
  void anExhaustedQuotaIsItsOwnKindNotARateLimit() {
    server.enqueue(FixtureResponse.json(429, "{\"error\":{\"message\":\"You exceeded your"
        + " current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}"));
    ProviderException e = Fixtures.failureOf(() -> adapters().get(0).send(plainCall()));
    assertThat(e.kind()).isEqualTo(Kind.QUOTA_EXHAUSTED);
    assertThat(e.status()).isEqualTo(Status.PAYMENT_REQUIRED);
    assertThat(e.rule()).isEqualTo(ProviderException.QUOTA_EXHAUSTED_RULE);
  }

  @Test
  void transportFailuresCarryTheirKind() {
    assertThat(ProviderErrors.fromSendFailure("p", new ConnectException("refused")).kind())
        .isEqualTo(Kind.NOT_SENT);
    assertThat(ProviderErrors.fromSendFailure("p", new HttpTimeoutException("slow")).kind())
        .isEqualTo(Kind.NO_RESPONSE);
    assertThat(ProviderErrors.fromSendFailure("p", new IOException("reset")).kind())
        .isEqualTo(Kind.INTERRUPTED);
    assertThat(ProviderErrors.interrupted("p", "cut", null).kind())
        .isEqualTo(Kind.INTERRUPTED);
    assertThat(ProviderErrors.streamTooLarge("p", 10).kind()).isEqualTo(Kind.STREAM_TOO_LARGE);
    assertThat(ProviderErrors.undecodable("p", "garbage", null).kind())
        .isEqualTo(Kind.UNDECODABLE_RESPONSE);
  }

  @Test
  void aConnectionRefusedByTheProviderIsNotSent() throws Exception {
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Provider closed = OpenAiProvider.builder()
        .baseUri(java.net.URI.create("http://127.0.0.1:" + port + "/v1"))
        .credential(Credential.of("sk-x")).timeouts(Fixtures.SHORT).clock(clock).build();
    ProviderException e = Fixtures.failureOf(() -> closed.send(plainCall()));
    assertThat(e.kind()).isEqualTo(Kind.NOT_SENT);
  }

  @Test
  void theKindIsNeverReadFromTheMessage() {
    ProviderException spoofed = ProviderException.answered(500, "[authentication] no", null);
    assertThat(spoofed.kind()).isEqualTo(Kind.SERVER_ERROR);
    assertThat(ProviderErrorKind.of(spoofed)).isEqualTo(ProviderErrorKind.SERVER_ERROR);
    ProviderException unsaid = ProviderException.unknownOutcome("[context_length] x", null);
    assertThat(unsaid.kind()).isEqualTo(Kind.UNKNOWN);
    assertThat(ProviderErrorKind.of(unsaid)).isNull();
  }

  @Test
  void theFactoriesWithoutAKindDeriveItFromTheStatusOrReportUnknown() {
    assertThat(ProviderException.answered(401, "x", null).kind())
        .isEqualTo(Kind.AUTHENTICATION);
    assertThat(ProviderException.answered(429, "x", Duration.ofSeconds(1)).kind())
        .isEqualTo(Kind.RATE_LIMITED);
    assertThat(ProviderException.answered(529, "x", null).kind()).isEqualTo(Kind.OVERLOADED);
    assertThat(ProviderException.answered(502, "x", null).kind())
        .isEqualTo(Kind.SERVER_ERROR);
    assertThat(ProviderException.answered(400, "x", null, null, null, Kind.CONTEXT_LENGTH)
        .kind()).isEqualTo(Kind.CONTEXT_LENGTH);
    assertThat(ProviderException.notSent("x", null).kind()).isEqualTo(Kind.NOT_SENT);
    assertThat(ProviderException.abandoned("r", "x", null).kind()).isEqualTo(Kind.UNKNOWN);
    assertThat(ProviderException.unknownOutcome(Kind.NO_RESPONSE, "x", null).kind())
        .isEqualTo(Kind.NO_RESPONSE);
  }

  @Test
  void aCopyWithoutRetryAfterKeepsTheKind() {
    ProviderException e = ProviderException.answered(429, "x", Duration.ofSeconds(3));
    assertThat(e.withoutRetryAfter().kind()).isEqualTo(Kind.RATE_LIMITED);
    assertThat(e.withoutRetryAfter().retryAfter()).isNull();
  }
}
