package io.pointsman.examples.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.auth.VirtualKeys;
import io.pointsman.catalog.TokenBounds;
import io.pointsman.model.Json;
import io.pointsman.model.anthropic.AnthropicMessages;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The facade's Messages API over plain HTTP, in front of an OpenAI-compatible upstream fixture:
 * the stream on the wire (event names and order, the cost comment), every refusal in
 * Anthropic's error shape with its status and a {@code request-id}, an upstream failure in the
 * middle of a stream, and {@code count_tokens}.
 */
class AnthropicFacadeContractTest {
  @TempDir
  Path dir;

  private ContractRig rig;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1).build();

  @BeforeEach
  void setUp() {
    rig = new ContractRig(dir, 1);
  }

  @AfterEach
  void tearDown() {
    rig.close();
  }

  private HttpResponse<String> post(String path, String key, String body) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(rig.server.baseUri().resolve(path))
        .POST(HttpRequest.BodyPublishers.ofString(body)).timeout(Duration.ofSeconds(60))
        .header("anthropic-version", "2023-06-01").header("content-type", "application/json");
    if (key != null) {
      b.header("x-api-key", key);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String messages(String model, int maxTokens, boolean stream) {
    return "{\"model\":\"" + model + "\",\"max_tokens\":" + maxTokens + ",\"stream\":" + stream
        + ",\"messages\":[{\"role\":\"user\",\"content\":\"What is a pointsman?\"}]}";
  }

  /** Asserts Anthropic's error shape, the type, a request-id, and returns the message. */
  private static String assertError(HttpResponse<String> r, int status, String type) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    assertThat(r.headers().firstValue("content-type")).hasValue("application/json");
    assertThat(r.headers().firstValue("request-id")).hasValueSatisfying(id ->
        assertThat(id).isNotBlank().isEqualTo(r.headers().firstValue("x-request-id")
            .orElseThrow()));
    JsonNode body = FacadeHttp.json(r);
    assertThat(body.path("type").asText()).isEqualTo("error");
    assertThat(body.path("error").path("type").asText()).isEqualTo(type);
    assertThat(body.path("error").size()).as("type and message only").isEqualTo(2);
    String message = body.path("error").path("message").asText();
    assertThat(message).isNotBlank();
    return message;
  }

  @Test
  void aStreamIsInAnthropicsEventOrderWithTheCostBeforeMessageStop() throws Exception {
    HttpResponse<String> r = post("/v1/messages", rig.key, messages(ContractRig.MODEL, 50,
        true));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    assertThat(r.headers().firstValue("request-id")).isPresent();
    List<String> names = new ArrayList<>();
    StringBuilder text = new StringBuilder();
    String cost = null;
    JsonNode delta = null;
    for (String frame : r.body().split("\n\n")) {
      if (frame.startsWith(": pointsman")) {
        assertThat(names).as("the cost comes after message_delta").last()
            .isEqualTo("message_delta");
        cost = frame;
        continue;
      }
      String[] lines = frame.split("\n");
      assertThat(lines[0]).startsWith("event: ");
      assertThat(lines[1]).startsWith("data: ");
      String name = lines[0].substring("event: ".length());
      JsonNode data = Json.mapper().readTree(lines[1].substring("data: ".length()));
      assertThat(data.path("type").asText()).isEqualTo(name);
      names.add(name);
      if (name.equals("content_block_delta")) {
        text.append(data.path("delta").path("text").asText());
      } else if (name.equals("message_delta")) {
        delta = data;
      }
    }
    assertThat(names.get(0)).isEqualTo("message_start");
    assertThat(names.get(1)).isEqualTo("content_block_start");
    assertThat(names.subList(names.size() - 3, names.size()))
        .containsExactly("content_block_stop", "message_delta", "message_stop");
    assertThat(text.toString()).isEqualTo(ContractRig.ANSWER);
    assertThat(delta.path("delta").path("stop_reason").asText()).isEqualTo("end_turn");
    assertThat(delta.path("usage").path("input_tokens").asLong()).isEqualTo(12);
    assertThat(delta.path("usage").path("output_tokens").asLong()).isEqualTo(9);
    assertThat(cost).contains("cost_micros=").contains("event_id=");
  }

  @Test
  void aPlainMessageCarriesTheAccountingHeaders() throws Exception {
    HttpResponse<String> r = post("/v1/messages", rig.key, messages(ContractRig.MODEL, 50,
        false));
    assertThat(r.statusCode()).isEqualTo(200);
    JsonNode m = FacadeHttp.json(r);
    assertThat(m.path("type").asText()).isEqualTo("message");
    assertThat(m.path("content").get(0).path("text").asText()).isEqualTo(ContractRig.ANSWER);
    assertThat(Long.parseLong(r.headers().firstValue("x-pointsman-cost-micros")
        .orElseThrow())).isPositive();
    assertThat(r.headers().firstValue("request-id")).isPresent();
  }

  @Test
  void everyRefusalIsInAnthropicsErrorShapeWithItsStatus() throws Exception {
    assertThat(assertError(post("/v1/messages", null, messages(ContractRig.MODEL, 10, false)),
        401, "authentication_error")).contains("x-api-key");
    assertError(post("/v1/messages", VirtualKeys.generate(),
        messages(ContractRig.MODEL, 10, false)), 401, "authentication_error");
    assertError(post("/v1/messages", rig.limitedKey, messages(ContractRig.VISION_MODEL, 10,
        false)), 403, "permission_error");
    assertError(post("/v1/messages", rig.key, messages("no-such-model", 10, false)), 404,
        "not_found_error");
    assertThat(assertError(post("/v1/messages", rig.poorKey, messages(ContractRig.MODEL,
        1_000, false)), 402, "billing_error")).isNotBlank();
    assertThat(assertError(post("/v1/messages", rig.key, "{\"model\":\"" + ContractRig.MODEL
        + "\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"), 400,
        "invalid_request_error")).isEqualTo("max_tokens: field required");
    assertThat(assertError(post("/v1/messages", rig.key, "{\"model\":\"" + ContractRig.MODEL
        + "\",\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":"
        + "\"document\",\"source\":{\"type\":\"text\",\"media_type\":\"text/plain\",\"data\":"
        + "\"x\"}}]}]}"), 400, "invalid_request_error")).contains("'document' block");
    assertError(post("/v1/messages", rig.key, "{not json"), 400, "invalid_request_error");
    HttpResponse<String> get = http.send(HttpRequest.newBuilder(rig.server.baseUri()
        .resolve("/v1/messages")).GET().build(), HttpResponse.BodyHandlers.ofString());
    assertError(get, 405, "invalid_request_error");
    assertThat(get.headers().firstValue("allow")).hasValue("POST");
    assertThat(rig.upstreamCalls()).isZero();
  }

  @Test
  void anUpstreamRateLimitIsARateLimitErrorWithItsRetryAfter() throws Exception {
    rig.upstreamAnswers(r -> ContractRig.upstreamError(429, "requests", "rate_limit_exceeded",
        "Rate limit reached").header("retry-after", "3600"));
    HttpResponse<String> r = post("/v1/messages", rig.key, messages(ContractRig.MODEL, 10,
        false));
    assertError(r, 429, "rate_limit_error");
    assertThat(r.headers().firstValue("retry-after")).hasValue("3600");
  }

  @Test
  void aStreamThatFailsMidWayEndsWithAnErrorEventAndNoMessageStop() throws Exception {
    rig.upstreamAnswers(r -> ContractRig.failingStream());
    // A raw socket: what arrived before the abort is read before the abort is seen (an HTTP
    // client may drop its buffered bytes once the connection fails).
    byte[] payload = messages(ContractRig.MODEL, 50, true).getBytes(StandardCharsets.UTF_8);
    StringBuilder got = new StringBuilder();
    try (java.net.Socket socket = new java.net.Socket("127.0.0.1", rig.server.port())) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(("POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\n"
          + "x-api-key: " + rig.key + "\r\ncontent-type: application/json\r\n"
          + "content-length: " + payload.length + "\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(payload);
      socket.getOutputStream().flush();
      java.io.InputStream in = socket.getInputStream();
      byte[] buf = new byte[4096];
      int n;
      try {
        while ((n = in.read(buf)) > 0) {
          got.append(new String(buf, 0, n, StandardCharsets.UTF_8));
        }
      } catch (java.io.IOException aborted) {
        // The abort.
      }
    }
    assertThat(got.toString()).startsWith("HTTP/1.1 200");
    assertThat(got.toString()).as("the chunked body is not terminated").doesNotEndWith(
        "0\r\n\r\n");
    String raw = got.toString();
    String body = raw.substring(raw.indexOf("event: message_start"));
    assertThat(body).startsWith("event: message_start\n").contains("event: content_block_delta")
        .doesNotContain("message_stop");
    int at = body.indexOf("event: error\ndata: ");
    assertThat(at).as(body).isPositive();
    JsonNode error = Json.mapper().readTree(body.substring(at + "event: error\ndata: ".length())
        .split("\n")[0]);
    assertThat(error.path("type").asText()).isEqualTo("error");
    // The gateway's status for a stream that broke after output (504) in Anthropic's words.
    assertThat(error.path("error").path("type").asText()).isEqualTo("timeout_error");
    assertThat(error.path("error").path("message").asText()).contains("stream_error");
  }

  @Test
  void countTokensCountsTheTranslatedPromptAndRefusesLikeMessages() throws Exception {
    String body = "{\"model\":\"" + ContractRig.MODEL + "\",\"system\":\"Be brief.\","
        + "\"messages\":[{\"role\":\"user\",\"content\":\"What is a pointsman?\"}]}";
    HttpResponse<String> r = post("/v1/messages/count_tokens", rig.key, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    long expected = TokenBounds.exact(AnthropicMessages.toCountRequest(
        AnthropicMessages.readRequest(body.getBytes(StandardCharsets.UTF_8))));
    assertThat(FacadeHttp.json(r).path("input_tokens").asLong()).isEqualTo(expected)
        .isPositive();
    assertError(post("/v1/messages/count_tokens", null, body), 401, "authentication_error");
    assertError(post("/v1/messages/count_tokens", rig.key, body.replace(ContractRig.MODEL,
        "no-such-model")), 404, "not_found_error");
    assertError(post("/v1/messages/count_tokens", rig.limitedKey, body.replace(
        ContractRig.MODEL, ContractRig.VISION_MODEL)), 403, "permission_error");
    assertError(post("/v1/messages/count_tokens", rig.key, body.replace("\"system\"",
        "\"top_k\":5,\"system\"")), 400, "invalid_request_error");
    assertThat(rig.upstream.requests()).isEmpty();
  }

  @Test
  void aBearerTokenIsAcceptedAndTheChatRouteKeepsOpenAisShape() throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(rig.server.baseUri()
        .resolve("/v1/messages")).POST(HttpRequest.BodyPublishers.ofString(messages(
            ContractRig.MODEL, 10, false))).header("Authorization", "Bearer " + rig.key)
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    HttpResponse<String> chat = http.send(HttpRequest.newBuilder(rig.server.baseUri()
        .resolve("/v1/chat/completions")).POST(HttpRequest.BodyPublishers.ofString(
            "{\"model\":\"no-such-model\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}"))
        .header("Authorization", "Bearer " + rig.key).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(chat.statusCode()).isEqualTo(404);
    assertThat(FacadeHttp.json(chat).path("error").path("code").asText())
        .isEqualTo("model_not_found");
    assertThat(chat.headers().firstValue("request-id")).isEmpty();
  }

}
