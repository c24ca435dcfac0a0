package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's answers in OpenAI's error contract, over plain HTTP: status, type, code, param
 * and message for every refusal, Pointsman's detail in {@code x-pointsman-*} headers,
 * {@code x-request-id} everywhere, upstream errors passed on scrubbed with their retry headers,
 * capabilities from the configuration, both cache-control headers, a stream's cost in its usage
 * chunk, and a stream failure that no client can take for a complete stream.
 */
class OpenAiErrorContractTest {
  @TempDir
  Path dir;

  private ContractRig rig;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void setUp() {
    rig = new ContractRig(dir);
  }

  @AfterEach
  void tearDown() {
    rig.close();
  }

  private HttpResponse<String> post(String path, String key, String body, String... headers)
      throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(rig.server.baseUri().resolve(path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(60));
    if (key != null) {
      b.header("Authorization", "Bearer " + key);
    }
    for (int i = 0; i < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String chat(String model, String content, int maxTokens) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"" + content + "\"}]}";
  }

  private static JsonNode error(HttpResponse<String> r) throws IOException {
    JsonNode e = Json.mapper().readTree(r.body()).path("error");
    assertThat(e.isObject()).as("an OpenAI error object: %s", r.body()).isTrue();
    assertThat(e.has("param")).isTrue();
    assertThat(e.has("code")).isTrue();
    return e;
  }

  private static void assertError(HttpResponse<String> r, int status, String type, String code,
      String param) throws IOException {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode e = error(r);
    assertThat(e.path("type").asText()).isEqualTo(type);
    assertThat(e.path("code").isNull() ? null : e.path("code").asText()).isEqualTo(code);
    assertThat(e.path("param").isNull() ? null : e.path("param").asText()).isEqualTo(param);
    assertThat(e.path("message").asText()).isNotBlank().doesNotContain("java.")
        .doesNotContain("io.pointsman").doesNotContain("`");
    assertThat(r.headers().firstValue("x-request-id")).as("x-request-id on %s", status)
        .hasValueSatisfying(id -> assertThat(id).isNotBlank());
  }

  @Test
  void everyRefusalOfTheGatewayIsInOpenAisContractWithPointsmansDetailInHeaders()
      throws Exception {
    assertError(post("/v1/chat/completions", rig.key, "{\"model\": \"gpt-4o-mini\", \"messages"
        + "\": [{\"role\": \"user\", \"content\": 12]}"), 400, "invalid_request_error",
        "invalid_json", "messages[0].content");
    assertError(post("/v1/chat/completions", rig.key, "{not json"), 400,
        "invalid_request_error", "invalid_json", null);
    assertError(post("/v1/chat/completions", rig.key, "{\"model\":\"gpt-4o-mini\","
        + "\"temperature\":5,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), 400,
        "invalid_request_error", "invalid_value", "temperature");
    HttpResponse<String> noKey = post("/v1/chat/completions", null, chat(ContractRig.MODEL,
        "hi", 10));
    assertError(noKey, 401, "authentication_error", "invalid_api_key", null);
    assertThat(noKey.headers().firstValue("www-authenticate")).hasValue("Bearer");
    assertError(post("/v1/chat/completions", VirtualKeys.generate(), chat(ContractRig.MODEL,
        "hi", 10)), 401, "authentication_error", "invalid_api_key", null);
    HttpResponse<String> budget = post("/v1/chat/completions", rig.poorKey,
        chat(ContractRig.MODEL, "hi", 1_000));
    assertError(budget, 402, "insufficient_quota", "insufficient_quota", null);
    assertThat(budget.headers().firstValue("x-pointsman-stage")).hasValue("ratelimit.reserve");
    assertThat(budget.headers().firstValue("x-pointsman-rule")).hasValueSatisfying(
        rule -> assertThat(rule).startsWith("budget"));
    assertThat(budget.headers().firstValue("x-should-retry")).hasValue("false");
    HttpResponse<String> forbidden = post("/v1/chat/completions", rig.limitedKey,
        chat(ContractRig.VISION_MODEL, "hi", 10));
    assertError(forbidden, 403, "permission_error", "model_not_allowed", "model");
    assertThat(forbidden.headers().firstValue("x-pointsman-stage")).hasValue("model.resolve");
    assertError(post("/v1/chat/completions", rig.key, chat("no-such-model", "hi", 10)), 404,
        "invalid_request_error", "model_not_found", "model");
    assertError(post("/v1/nothing-here", rig.key, "{}"), 404, "invalid_request_error",
        "not_found", null);
    HttpResponse<String> withId = post("/v1/chat/completions", null, "{}", "X-Request-Id",
        "client-id-42");
    assertThat(withId.headers().firstValue("x-request-id")).hasValue("client-id-42");
    assertThat(rig.upstreamCalls()).as("no refusal reached the upstream").isZero();
  }

  @Test
  void anUpstreamErrorIsPassedOnWithItsCodeAndParamAndWithoutTheKeyOrThePromptItEchoes()
      throws Exception {
    String prompt = "my confidential merger plan with globex corporation";
    rig.upstreamAnswers(r -> FixtureResponse.json(400, "{\"error\":{\"message\":\"Invalid"
        + " content '" + prompt + "' sent with key " + r.header("authorization")
        + "\",\"type\":\"invalid_request_error\",\"param\":\"messages[0].content\",\"code\":"
        + "\"invalid_value\"}}").header("x-ratelimit-remaining-requests", "99"));

    HttpResponse<String> r = post("/v1/chat/completions", rig.key,
        chat(ContractRig.MODEL, prompt, 10));

    assertError(r, 400, "invalid_request_error", "invalid_value", "messages[0].content");
    assertThat(r.body()).doesNotContain(ContractRig.UPSTREAM_SECRET).doesNotContain("Bearer")
        .doesNotContain("merger").doesNotContain("globex");
    assertThat(rig.upstream.requests().get(0).header("authorization"))
        .as("the fixture did see the key it echoed")
        .isEqualTo("Bearer " + ContractRig.UPSTREAM_SECRET);
    assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("99");
    assertThat(r.headers().firstValue("x-pointsman-stage")).hasValue("provider.attempt");
    assertThat(r.headers().firstValue("x-pointsman-upstream-status")).hasValue("400");
    assertThat(r.headers().firstValue("x-pointsman-error-kind")).hasValue("invalid_request");
  }

  @Test
  void anUpstreamRefusingTheGatewaysOwnKeyIsNotReportedAsTheClientsKey() throws Exception {
    rig.upstreamAnswers(r -> ContractRig.upstreamError(401, "invalid_request_error",
        "invalid_api_key", "Incorrect API key provided: " + ContractRig.UPSTREAM_SECRET));

    HttpResponse<String> r = post("/v1/chat/completions", rig.key,
        chat(ContractRig.MODEL, "hi", 10));

    assertError(r, 502, "server_error", "upstream_error", null);
    assertThat(r.headers().firstValue("x-pointsman-upstream-code")).hasValue("invalid_api_key");
    assertThat(r.headers().firstValue("www-authenticate")).isEmpty();
    assertThat(r.body()).doesNotContain(ContractRig.UPSTREAM_SECRET);
  }

  @Test
  void anUpstreamRateLimitPassesItsRetryAfterAndRateLimitHeadersToTheClient() throws Exception {
    // An hour is beyond what the gateway waits for: it does not retry that deployment, and the
    // client learns how long to wait.
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "requests", "rate_limit_exceeded",
        "Rate limit reached for requests").header("retry-after", "3600")
        .header("x-ratelimit-limit-requests", "500")
        .header("x-ratelimit-remaining-requests", "0")
        .header("x-ratelimit-reset-requests", "1h"));

    HttpResponse<String> r = post("/v1/chat/completions", rig.key,
        chat(ContractRig.MODEL, "hi", 10));

    assertError(r, 429, "requests", "rate_limit_exceeded", null);
    assertThat(r.headers().firstValue("retry-after")).hasValue("3600");
    assertThat(r.headers().firstValue("x-ratelimit-limit-requests")).hasValue("500");
    assertThat(r.headers().firstValue("x-ratelimit-remaining-requests")).hasValue("0");
    assertThat(r.headers().firstValue("x-ratelimit-reset-requests")).hasValue("1h");
    assertThat(rig.upstreamCalls()).as("not retried against its retry-after").isEqualTo(1);
  }

  @Test
  void anExhaustedUpstreamQuotaIsA402ThatNeitherTheGatewayNorAClientRetries() throws Exception {
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "insufficient_quota",
        "insufficient_quota", "You exceeded your current quota"));

    HttpResponse<String> r = post("/v1/chat/completions", rig.key,
        chat(ContractRig.MODEL, "hi", 10));

    assertError(r, 402, "insufficient_quota", "insufficient_quota", null);
    assertThat(r.headers().firstValue("x-should-retry")).hasValue("false");
    assertThat(r.headers().firstValue("x-pointsman-rule"))
        .hasValue("upstream.insufficient_quota");
    assertThat(rig.upstreamCalls()).as("an exhausted quota is not retried").isEqualTo(1);
  }

  @Test
  void aConfiguredVisionModelAcceptsImagePartsAndItsImageTokensBoundTheRequest()
      throws Exception {
    String image = "[{\"type\":\"text\",\"text\":\"what is this?\"},{\"type\":\"image_url\","
        + "\"image_url\":{\"url\":\"https://example.invalid/p.png\"}}]";
    String vision = "{\"model\":\"" + ContractRig.VISION_MODEL + "\",\"max_tokens\":10,"
        + "\"messages\":[{\"role\":\"user\",\"content\":" + image + "}]}";
    HttpResponse<String> ok = post("/v1/chat/completions", rig.key, vision);
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
    assertThat(rig.upstream.requests().get(0).bodyText()).contains("image_url");

    HttpResponse<String> refused = post("/v1/chat/completions", rig.key, vision.replace(
        ContractRig.VISION_MODEL, ContractRig.MODEL));
    assertError(refused, 400, "invalid_request_error", "unsupported_value", "messages");
    assertThat(refused.headers().firstValue("x-pointsman-rule")).hasValue("capability:vision");

    // 200 images at the configured 1,000 tokens each exceed the 128,000-token window: the
    // configured image cost reaches the admission's bound.
    StringBuilder many = new StringBuilder("[");
    for (int i = 0; i < 200; i++) {
      many.append(i == 0 ? "" : ",").append("{\"type\":\"image_url\",\"image_url\":{\"url\":"
          + "\"https://example.invalid/").append(i).append(".png\"}}");
    }
    HttpResponse<String> tooMany = post("/v1/chat/completions", rig.key, "{\"model\":\""
        + ContractRig.VISION_MODEL + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\","
        + "\"content\":" + many + "]}]}");
    assertError(tooMany, 400, "invalid_request_error", "context_length_exceeded", "messages");
  }

  @Test
  void jsonSchemaIsRefusedForAModelConfiguredWithoutIt() throws Exception {
    String body = "{\"model\":\"" + ContractRig.VISION_MODEL + "\",\"max_tokens\":10,"
        + "\"response_format\":{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"x\","
        + "\"schema\":{\"type\":\"object\"}}},\"messages\":[{\"role\":\"user\",\"content\":"
        + "\"hi\"}]}";
    assertError(post("/v1/chat/completions", rig.key, body), 400, "invalid_request_error",
        "unsupported_value", "response_format");
    HttpResponse<String> ok = post("/v1/chat/completions", rig.key,
        body.replace(ContractRig.VISION_MODEL, ContractRig.MODEL));
    assertThat(ok.statusCode()).as(ok.body()).isEqualTo(200);
  }

  @Test
  void theStandardCacheControlHeaderIsHonoured() throws Exception {
    String body = "{\"model\":\"gpt-4o-mini\",\"temperature\":0,\"max_tokens\":10,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"cache me\"}]}";
    assertThat(post("/v1/chat/completions", rig.key, body).statusCode()).isEqualTo(200);
    HttpResponse<String> hit = post("/v1/chat/completions", rig.key, body);
    assertThat(hit.headers().firstValue("x-pointsman-cache")).hasValue("HIT(exact)");
    HttpResponse<String> noCache = post("/v1/chat/completions", rig.key, body,
        "Cache-Control", "no-cache, max-age=0");
    assertThat(noCache.headers().firstValue("x-pointsman-cache")).hasValueSatisfying(
        c -> assertThat(c).startsWith("BYPASS"));
    HttpResponse<String> noStore = post("/v1/chat/completions", rig.key, body,
        "Cache-Control", "no-store");
    assertThat(noStore.headers().firstValue("x-pointsman-cache")).hasValue("SKIPPED(no-store)");
    assertThat(rig.upstreamCalls()).isEqualTo(3);
  }

  @Test
  void aStreamsCostIsInItsUsageChunk() throws Exception {
    HttpResponse<String> r = post("/v1/chat/completions", rig.key, "{\"model\":\"gpt-4o-mini\","
        + "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":50,"
        + "\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}");
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode usageChunk = null;
    for (String line : r.body().split("\n")) {
      if (line.startsWith("data: {")) {
        JsonNode n = Json.mapper().readTree(line.substring(6));
        if (n.path("choices").isEmpty() && n.has("usage")) {
          usageChunk = n;
        }
      }
    }
    assertThat(usageChunk).as(r.body()).isNotNull();
    // 12 prompt tokens at 0.15 and 9 completion tokens at 0.60 per million micro-units.
    long expected = (12 * 150_000L + 9 * 600_000L) / 1_000_000L;
    long micros = usageChunk.path("usage").path("cost_micros").asLong(-1);
    assertThat(micros).isGreaterThanOrEqualTo(expected);
    assertThat(usageChunk.path("usage").path("cost").decimalValue())
        .isEqualByComparingTo(java.math.BigDecimal.valueOf(micros, 6));
    assertThat(usageChunk.path("x_pointsman").path("cost_micros").asLong()).isEqualTo(micros);
    assertThat(usageChunk.path("x_pointsman").path("event_id").asText()).isNotBlank();
    assertThat(r.body()).endsWith("data: [DONE]\n\n");
  }

  @Test
  void aStreamThatFailsMidWayEndsWithAnErrorEventAndAnAbortedResponse() throws Exception {
    rig.upstreamAnswers(r -> FixtureResponse.sse(java.util.List.of(ContractRig.delta("A "),
        ContractRig.delta("pointsman "), "data: {\"error\":{\"message\":\"The server had an"
            + " error\",\"type\":\"server_error\",\"param\":null,\"code\":null}}\n\n")));
    HttpRequest req = HttpRequest.newBuilder(rig.server.baseUri().resolve(
        "/v1/chat/completions")).header("Authorization", "Bearer " + rig.key)
        .POST(HttpRequest.BodyPublishers.ofString("{\"model\":\"gpt-4o-mini\",\"stream\":true,"
            + "\"max_tokens\":50,\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .build();
    StringBuilder seen = new StringBuilder();
    IOException e = catchThrowableOfType(IOException.class, () -> {
      HttpResponse<java.io.InputStream> r = http.send(req,
          HttpResponse.BodyHandlers.ofInputStream());
      try (java.io.InputStream in = r.body()) {
        byte[] buf = new byte[1024];
        int n;
        while ((n = in.read(buf)) > 0) {
          seen.append(new String(buf, 0, n, java.nio.charset.StandardCharsets.UTF_8));
        }
      }
    });
    assertThat(e).as("the chunked response is not terminated").isNotNull();
    assertThat(seen.toString()).contains("event: error\ndata: {\"error\":")
        .doesNotContain("[DONE]");
  }
}
