package io.pointsman.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.CallOptions;
import io.pointsman.EmbeddingResult;
import io.pointsman.Gateway;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.accounting.InMemoryAccounting;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.catalog.Price;
import io.pointsman.model.EmbeddingRequest;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.HttpFixtureServer;
import io.pointsman.provider.testing.RecordedRequest;
import io.pointsman.spi.Deployment;
import io.pointsman.spi.EmbeddingCall;
import io.pointsman.spi.EmbeddingReply;
import io.pointsman.spi.ProviderException;
import io.pointsman.spi.ProviderException.Billing;
import io.pointsman.spi.UsageOutcome;
import io.pointsman.spi.UsageRecord;
import java.net.URI;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The OpenAI adapter's embeddings endpoint, alone and under a gateway, over loopback HTTP. */
class EmbeddingsOverHttpTest {
  static final String KEY = "pm-embed-http-0001";
  static final String BODY = "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\","
      + "\"index\":0,\"embedding\":[0.25,-0.5,0.125]},{\"object\":\"embedding\",\"index\":1,"
      + "\"embedding\":[1.0,0.0,-1.0]}],\"model\":\"text-embedding-3-small\",\"usage\":"
      + "{\"prompt_tokens\":7,\"total_tokens\":7}}";
  private final HttpFixtureServer server = HttpFixtureServer.start();
  private final InMemoryAccounting accounting = new InMemoryAccounting();

  @AfterEach
  void stop() {
    server.close();
  }

  private OpenAiProvider provider() {
    return OpenAiProvider.builder().baseUri(server.uri()).credential(Credential.of("sk-embed"))
        .timeouts(Fixtures.SHORT).build();
  }

  private Gateway gateway(int attempts) {
    InMemoryKeyStore keys = new InMemoryKeyStore(io.pointsman.Clock.system());
    keys.addKey(KEY, KeySpec.builder("k1").team("t1").org("acme").build());
    ModelCatalog catalog = ModelCatalog.builder()
        .model(ModelSpec.builder("embed-small").contextWindow(8_191).maxOutputTokens(1)
            .capabilities(ModelSpec.EMBEDDINGS).price(Price.of(2_000_000, 0)).build())
        .build();
    return Gateway.builder().authenticator(keys).models(catalog).accounting(accounting)
        .provider("openai", provider()).maxAttempts(attempts)
        .deployment(new Deployment("oa-embed", "openai", "embed-small",
            "text-embedding-3-small", null))
        .build();
  }

  private static EmbeddingCall call(EmbeddingRequest request) {
    return new EmbeddingCall("r", "e", Deployment.of("d", "openai", "m"), request, 1, null);
  }

  @Test
  void postsToTheEmbeddingsPathAndReadsTheList() {
    server.enqueue(FixtureResponse.json(200, BODY));
    EmbeddingReply reply = provider().embed(call(EmbeddingRequest.builder().model("m")
        .input("a", "b").dimensions(3).user("u").build()));
    RecordedRequest sent = server.requests().get(0);
    assertThat(sent.method()).isEqualTo("POST");
    assertThat(sent.target()).isEqualTo("/embeddings");
    assertThat(sent.header("authorization")).isEqualTo("Bearer sk-embed");
    JsonNode body = Json.read(sent.body(), JsonNode.class);
    assertThat(body.get("model").asText()).isEqualTo("m");
    assertThat(body.get("input").toString()).isEqualTo("[\"a\",\"b\"]");
    assertThat(body.get("dimensions").asInt()).isEqualTo(3);
    assertThat(body.get("user").asText()).isEqualTo("u");
    assertThat(reply.response().data()).hasSize(2);
    assertThat(reply.response().data().get(0).embedding().floats())
        .containsExactly(0.25f, -0.5f, 0.125f);
    assertThat(reply.usage().promptTokens()).isEqualTo(7);
    assertThat(reply.usageEstimated()).isFalse();
  }

  @Test
  void azurePostsToTheDeploymentsEmbeddingsPath() {
    OpenAiProvider azure = OpenAiProvider.builder().azure(URI.create("https://r.example"),
        "2024-10-21").credential(Credential.of("az-key")).build();
    assertThat(azure.embeddingsEndpoint("my embed").toString())
        .isEqualTo("https://r.example/openai/deployments/my%20embed/embeddings"
            + "?api-version=2024-10-21");
    assertThat(azure.endpoint("my embed").toString()).isEqualTo(
        "https://r.example/openai/deployments/my%20embed/chat/completions"
            + "?api-version=2024-10-21");
  }

  @Test
  void aGatewayCallOverHttpIsPricedAtTheReportedUsageAndRecorded() {
    server.enqueue(FixtureResponse.json(200, BODY));
    try (Gateway gateway = gateway(1)) {
      EmbeddingResult result = gateway.embed(EmbeddingRequest.builder().model("embed-small")
          .input("first", "second").build(), CallOptions.of(KEY));
      assertThat(result.costMicros()).isEqualTo(14);
      assertThat(result.costEstimated()).isFalse();
      // The provider model goes on the wire.
      assertThat(server.requests().get(0).bodyText()).contains("\"text-embedding-3-small\"");
      UsageRecord record = accounting.records().get(0);
      assertThat(record.outcome()).isEqualTo(UsageOutcome.SUCCESS);
      assertThat(record.usage().promptTokens()).isEqualTo(7);
      assertThat(record.deploymentId()).isEqualTo("oa-embed");
    }
  }

  static Stream<Arguments> errors() {
    return Stream.of(
        // status, gateway status, billed unknown, charged at worst case
        Arguments.of(400, Status.BAD_REQUEST, false),
        Arguments.of(401, Status.BAD_GATEWAY, false),
        Arguments.of(404, Status.BAD_GATEWAY, false),
        Arguments.of(429, Status.TOO_MANY_REQUESTS, false),
        Arguments.of(500, Status.BAD_GATEWAY, true),
        Arguments.of(503, Status.BAD_GATEWAY, false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void providerErrorsMapAsForChatAndUnknownOutcomesAreChargedTheWorstCase(int status,
      Status gatewayStatus, boolean unknown) {
    server.enqueue(FixtureResponse.json(status, "{\"error\":{\"message\":\"no: the secret"
        + " input text was refused\",\"type\":\"invalid_request_error\"}}"));
    try (Gateway gateway = gateway(1)) {
      String input = "the secret input text";
      PointsmanException e = failure(() -> gateway.embed(EmbeddingRequest.builder()
          .model("embed-small").input(input).build(), CallOptions.of(KEY)));
      assertThat(e).isInstanceOf(ProviderException.class);
      ProviderException pe = (ProviderException) e;
      assertThat(pe.status()).isEqualTo(gatewayStatus);
      assertThat(pe.stage()).isEqualTo(Stages.PROVIDER_ATTEMPT);
      assertThat(pe.billing()).isEqualTo(ProviderException.billingOf(status));
      assertThat(pe.billing() == Billing.UNKNOWN).isEqualTo(unknown);
      // The provider's echo of the input is scrubbed.
      assertThat(pe.getMessage()).doesNotContain("secret input text");
      UsageRecord record = accounting.records().get(0);
      assertThat(record.attempts()).isEqualTo(1);
      assertThat(record.outcome()).isEqualTo(unknown ? UsageOutcome.UNKNOWN
          : UsageOutcome.PROVIDER_FAILED);
      assertThat(record.costMicros()).isEqualTo(unknown ? 2L * input.length() : 0);
      assertThat(record.costEstimated()).isEqualTo(unknown);
    }
  }

  @Test
  void aRateLimitIsRetriedAndAnUndecodableSuccessIsAnUnknownOutcome() {
    server.enqueue(FixtureResponse.json(429, "{}").header("retry-after-ms", "10"));
    server.enqueue(FixtureResponse.json(200, BODY));
    try (Gateway gateway = gateway(2)) {
      EmbeddingResult result = gateway.embed(EmbeddingRequest.builder().model("embed-small")
          .input("a", "b").build(), CallOptions.of(KEY));
      assertThat(result.attempts()).isEqualTo(2);
      assertThat(result.costMicros()).isEqualTo(14);
      assertThat(server.requests()).hasSize(2);
    }
    server.enqueue(FixtureResponse.json(200, "{\"object\":\"list\",\"data\":[{\"embedding\":"
        + "{\"not\":\"a vector\"}}]}"));
    ProviderException bad = Fixtures.failureOf(() -> provider().embed(call(
        EmbeddingRequest.builder().model("m").input("x").build())));
    assertThat(bad.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(ProviderErrorKind.of(bad)).isEqualTo(ProviderErrorKind.UNDECODABLE_RESPONSE);

    // A list that does not answer every input is no answer either.
    server.enqueue(FixtureResponse.json(200, BODY));
    ProviderException partial = Fixtures.failureOf(() -> provider().embed(call(
        EmbeddingRequest.builder().model("m").input("x", "y", "z").build())));
    assertThat(partial.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(partial.getMessage()).contains("2 embeddings for 3 inputs");
  }

  @Test
  void noResponseWithinTheFirstByteTimeoutIsAnUnknownOutcome() {
    server.enqueue(FixtureResponse.json(200, BODY).headersDelay(Duration.ofSeconds(30)));
    OpenAiProvider p = OpenAiProvider.builder().baseUri(server.uri())
        .timeouts(new HttpTimeouts(Duration.ofSeconds(2), Duration.ofMillis(300),
            Duration.ofSeconds(2), Duration.ofSeconds(10))).build();
    ProviderException e = Fixtures.failureOf(() -> p.embed(call(EmbeddingRequest.builder()
        .model("m").input("x").build())));
    assertThat(e.billing()).isEqualTo(Billing.UNKNOWN);
    assertThat(ProviderErrorKind.of(e)).isEqualTo(ProviderErrorKind.NO_RESPONSE);
  }

  private static PointsmanException failure(Runnable call) {
    try {
      call.run();
    } catch (PointsmanException e) {
      return e;
    }
    throw new AssertionError("the call did not fail");
  }
}
