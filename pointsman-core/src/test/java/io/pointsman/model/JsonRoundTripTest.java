package io.pointsman.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.PointsmanException;
import io.pointsman.Stages;
import io.pointsman.Status;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonRoundTripTest {

  private static byte[] golden(String name) throws IOException {
    try (InputStream in = JsonRoundTripTest.class.getResourceAsStream("/golden/" + name)) {
      assertThat(in).as(name).isNotNull();
      return in.readAllBytes();
    }
  }

  private static JsonNode tree(byte[] json) throws IOException {
    return Json.mapper().readTree(json);
  }

  @Test
  void requestWithToolsMultiPartContentAndUnknownFieldsRoundTripsExactly() throws IOException {
    byte[] original = golden("request-tools-multipart.json");
    ChatRequest request = Json.readRequest(original);

    assertThat(tree(Json.writeBytes(request))).isEqualTo(tree(original));
    assertThat(request.messages()).hasSize(5);
    assertThat(request.messages().get(1).content()).isInstanceOf(Content.Parts.class);
    assertThat(((Content.Parts) request.messages().get(1).content()).parts())
        .extracting(ContentPart::type).containsExactly("text", "image_url", "input_audio");
    assertThat(request.messages().get(2).toolCalls().get(0).function().arguments())
        .isEqualTo("{\"q\":\"cat\"}");
    assertThat(request.messages().get(2).extra()).containsKey("refusal");
    assertThat(request.extra()).containsKeys("logit_bias", "parallel_tool_calls",
        "reasoning_effort");
    assertThat(request.streamOptions().extra()).containsKey("vendor_flag");
    assertThat(request.outputTokenCap()).isEqualTo(256);
  }

  @Test
  void responseWithToolCallsCachedTokensAndUnknownFieldsRoundTripsExactly() throws IOException {
    byte[] original = golden("response-tool-calls.json");
    ChatResponse response = Json.readResponse(original);

    assertThat(tree(Json.writeBytes(response))).isEqualTo(tree(original));
    assertThat(response.usage().cachedTokens()).isEqualTo(64);
    assertThat(response.usage().promptTokensDetails().extra()).containsKey("audio_tokens");
    assertThat(response.choices().get(0).message().toolCalls()).hasSize(1);
    assertThat(response.extra()).containsKey("service_tier");
  }

  @Test
  void streamChunkRoundTripsExactly() throws IOException {
    byte[] original = golden("chunk-with-usage.json");
    ChatChunk chunk = Json.readChunk(original);

    assertThat(tree(Json.writeBytes(chunk))).isEqualTo(tree(original));
    assertThat(chunk.text()).isEqualTo("Bon");
    assertThat(chunk.usage().totalTokens()).isEqualTo(6);
  }

  @Test
  void builtRequestWritesOpenAiFieldNames() throws IOException {
    ChatRequest request = ChatRequest.builder().model("m").addMessage(Message.user("hi"))
        .maxTokens(5).topP(0.5).build();
    JsonNode json = tree(Json.writeBytes(request));
    assertThat(json.get("max_tokens").asInt()).isEqualTo(5);
    assertThat(json.get("top_p").asDouble()).isEqualTo(0.5);
    assertThat(json.has("temperature")).as("absent fields are not written").isFalse();
    assertThat(json.get("messages").get(0).get("content").asText()).isEqualTo("hi");
  }

  @Test
  void canonicalBytesIgnoreKeyOrderAndWhitespace() {
    ChatRequest a = Json.readRequest("{\"model\":\"m\",\"messages\":[{\"role\":\"user\","
        + "\"content\":\"x\"}],\"metadata\":{\"b\":1,\"a\":2},\"zz\":1,\"aa\":2}");
    ChatRequest b = Json.readRequest("{ \"aa\" : 2, \"zz\":1, \"metadata\":{\"a\":2,\"b\":1},"
        + "\n\"messages\":[{\"content\":\"x\",\"role\":\"user\"}], \"model\":\"m\"}");
    assertThat(Json.canonicalBytes(a)).isEqualTo(Json.canonicalBytes(b));
    java.io.ByteArrayOutputStream sa = new java.io.ByteArrayOutputStream();
    java.io.ByteArrayOutputStream sb = new java.io.ByteArrayOutputStream();
    Json.writeCanonical(a, sa);
    Json.writeCanonical(b, sb);
    assertThat(sa.toByteArray()).isEqualTo(sb.toByteArray());
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "null",
      "[]",
      "42",
      "{",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]} trailing",
      "{\"model\":\"m\",\"messages\":5}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\",\"content\":\"x\"}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":7}]}",
      "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":[1]}]}",
      "{\"model\":\"m\",\"max_tokens\":\"many\"}",
      "{\"model\":\"m\",\"temperature\":{}}",
      "{\"model\":\"m\",\"model\":\"n\"}",
      "\u0000\u0001garbage",
  })
  void malformedRequestsAreTyped400sThatNeverEchoTheDocument(String json) {
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> Json.readRequest(json));
    assertThat(e).as("input %s", json).isNotNull();
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
    assertThat(e.stage()).isEqualTo(Stages.REQUEST);
    assertThat(e.getMessage()).isNotBlank().doesNotContain("garbage");
  }

  @Test
  void unknownRoleIsNamed() {
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> Json.readRequest("{\"model\":\"m\",\"messages\":[{\"role\":\"wizard\","
            + "\"content\":\"x\"}]}"));
    assertThat(e.getMessage()).contains("unknown message role: 'wizard'");
  }

  @Test
  void nestingBeyondTheLimitIsRefused() {
    String deep = "{\"model\":\"m\",\"metadata\":" + "[".repeat(2_000) + "]".repeat(2_000)
        + "}";
    PointsmanException e = catchThrowableOfType(PointsmanException.class,
        () -> Json.readRequest(deep.getBytes(StandardCharsets.UTF_8)));
    assertThat(e.status()).isEqualTo(Status.BAD_REQUEST);
  }
}
