package io.pointsman.provider;

import static io.pointsman.provider.Fixtures.call;
import static io.pointsman.provider.Fixtures.request;
import static org.assertj.core.api.Assertions.assertThat;

import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.spi.Provider;
import io.pointsman.spi.ProviderCall;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the billing table in {@code docs/providers.md}, through both real adapters
 * (plain and streamed requests) against the loopback fixture server: only a failure that
 * proves the provider did no work is not billed; any failure after the request may have been
 * processed is an unknown outcome, whatever its status.
 */
class StatusClassificationTest {
  private final HttpFixtureServer server = HttpFixtureServer.start();

  @AfterEach
  void stop() {
    server.close();
  }

  /** The adapters' builders; {@link StatusClassificationPulledTest} sends through the SPI. */
  OpenAiProvider.Builder openAiBuilder() {
    return OpenAiProvider.builder();
  }

  AnthropicProvider.Builder anthropicBuilder() {
    return AnthropicProvider.builder();
  }

  private List<Provider> adapters() {
    return List.of(
        openAiBuilder().baseUri(server.uri()).credential(Credential.of("sk-x"))
            .timeouts(Fixtures.SHORT).build(),
        anthropicBuilder().baseUri(server.uri()).credential(Credential.of("sk-x"))
            .timeouts(Fixtures.SHORT).build());
  }

  private static ProviderCall plainCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}]}"));
  }

  private static ProviderCall streamCall() {
    return call("p", "m", request("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"hi\"}],\"stream\":true}"));
  }

  static Stream<Arguments> statuses() {
    return Stream.of(
        // status, billing, retryable: refusals before processing are not billed.
        Arguments.of(400, Billing.NOT_BILLED, false),
        Arguments.of(401, Billing.NOT_BILLED, false),
        Arguments.of(403, Billing.NOT_BILLED, false),
        Arguments.of(404, Billing.NOT_BILLED, false),
        Arguments.of(413, Billing.NOT_BILLED, false),
        Arguments.of(422, Billing.NOT_BILLED, false),
        Arguments.of(429, Billing.NOT_BILLED, true),
        Arguments.of(503, Billing.NOT_BILLED, true),
        Arguments.of(529, Billing.NOT_BILLED, true),
        // The provider, or a proxy in front of it, may have started the work.
        Arguments.of(408, Billing.UNKNOWN, true),
        Arguments.of(409, Billing.UNKNOWN, true),
        Arguments.of(500, Billing.UNKNOWN, true),
        Arguments.of(502, Billing.UNKNOWN, true),
        Arguments.of(504, Billing.UNKNOWN, true),
        Arguments.of(520, Billing.UNKNOWN, true),
        Arguments.of(521, Billing.UNKNOWN, true),
        Arguments.of(522, Billing.UNKNOWN, true),
        Arguments.of(523, Billing.UNKNOWN, true),
        Arguments.of(524, Billing.UNKNOWN, true),
        // Unclassified statuses are unknown too.
        Arguments.of(402, Billing.UNKNOWN, false),
        Arguments.of(405, Billing.UNKNOWN, false),
        Arguments.of(418, Billing.UNKNOWN, false),
        Arguments.of(501, Billing.UNKNOWN, true),
        Arguments.of(599, Billing.UNKNOWN, true));
  }

  @ParameterizedTest(name = "HTTP {0} -> {1}")
  @MethodSource("statuses")
  void anErrorStatusIsBilledByWhatTheProviderMayHaveDone(int status, Billing billing,
      boolean retryable) {
    for (Provider provider : adapters()) {
      for (Function<Provider, Object> attempt : List.<Function<Provider, Object>>of(
          p -> p.send(plainCall()), p -> p.stream(streamCall(), new Fixtures.RecordingSink()))) {
        server.enqueue(FixtureResponse.json(status, "{\"error\":{\"message\":\"no\"}}"));
        ProviderException e = Fixtures.failureOf(() -> attempt.apply(provider));
        assertThat(e).as(provider + " HTTP " + status).isNotNull();
        assertThat(e.billing()).as(provider + " HTTP " + status).isEqualTo(billing);
        assertThat(e.retryable()).as(provider + " HTTP " + status).isEqualTo(retryable);
      }
    }
  }

  static Stream<Arguments> anthropicErrorEvents() {
    return Stream.of(
        // error type, billing, retryable: an error event before any output.
        Arguments.of("invalid_request_error", Billing.NOT_BILLED, false),
        Arguments.of("authentication_error", Billing.NOT_BILLED, false),
        Arguments.of("permission_error", Billing.NOT_BILLED, false),
        Arguments.of("not_found_error", Billing.NOT_BILLED, false),
        Arguments.of("request_too_large", Billing.NOT_BILLED, false),
        Arguments.of("rate_limit_error", Billing.NOT_BILLED, true),
        Arguments.of("overloaded_error", Billing.NOT_BILLED, true),
        Arguments.of("api_error", Billing.UNKNOWN, true),
        Arguments.of("timeout_error", Billing.UNKNOWN, true));
  }

  @ParameterizedTest(name = "{0} -> {1}")
  @MethodSource("anthropicErrorEvents")
  void anAnthropicErrorEventBeforeAnyOutputIsBilledByItsType(String type, Billing billing,
      boolean retryable) {
    server.enqueue(FixtureResponse.sse(List.of("event: error\ndata: {\"type\":\"error\","
        + "\"error\":{\"type\":\"" + type + "\",\"message\":\"no\"}}\n\n")));
    ProviderException e = Fixtures.failureOf(() -> adapters().get(1).stream(streamCall(),
        new Fixtures.RecordingSink()));
    assertThat(e).isNotNull();
    assertThat(e.billing()).isEqualTo(billing);
    assertThat(e.retryable()).isEqualTo(retryable);
  }

  @Test
  void aResetAfterTheRequestIsUnknownAndARefusedConnectionIsNotBilled() throws Exception {
    for (Provider provider : adapters()) {
      server.enqueue(FixtureResponse.resetAfterRequest());
      ProviderException reset = Fixtures.failureOf(() -> provider.send(plainCall()));
      assertThat(reset.billing()).as(provider.toString()).isEqualTo(Billing.UNKNOWN);
      assertThat(reset.retryable()).isTrue();
    }
    int port;
    try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
        java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort();
    }
    java.net.URI closed = java.net.URI.create("http://127.0.0.1:" + port);
    for (Provider provider : List.<Provider>of(
        openAiBuilder().baseUri(closed).timeouts(Fixtures.SHORT).build(),
        anthropicBuilder().baseUri(closed).timeouts(Fixtures.SHORT).build())) {
      ProviderException refused = Fixtures.failureOf(() -> provider.send(plainCall()));
      assertThat(refused.billing()).as(provider.toString()).isEqualTo(Billing.NOT_BILLED);
      assertThat(ProviderErrorKind.of(refused)).isEqualTo(ProviderErrorKind.NOT_SENT);
      assertThat(refused.retryable()).isTrue();
    }
  }
}
