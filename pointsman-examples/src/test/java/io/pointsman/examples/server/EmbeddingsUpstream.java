package io.pointsman.examples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pointsman.model.Json;
import io.pointsman.provider.testing.FixtureResponse;
import io.pointsman.provider.testing.RecordedRequest;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Base64;

/**
 * The contract rig's upstream answer to {@code POST /embeddings}, in OpenAI's shape: one vector
 * of {@link #DIMENSIONS} floats per input (or the request's {@code dimensions}), as floats or
 * base64 as asked, and usage of {@link #TOKENS_PER_INPUT} prompt tokens per input.
 */
final class EmbeddingsUpstream {
  static final int DIMENSIONS = 4;
  static final int TOKENS_PER_INPUT = 3;

  private EmbeddingsUpstream() {}

  /** The value of dimension {@code d} of input {@code i}. */
  static float value(int i, int d) {
    return (i + 1) * 0.125f - d * 0.0625f;
  }

  static FixtureResponse answer(RecordedRequest r) {
    JsonNode request = Json.read(r.body(), JsonNode.class);
    JsonNode input = request.get("input");
    int inputs = input.isArray() && input.size() > 0 && !input.get(0).isNumber()
        ? input.size() : 1;
    int dims = request.has("dimensions") ? request.get("dimensions").asInt() : DIMENSIONS;
    boolean base64 = "base64".equals(request.path("encoding_format").asText());
    ObjectNode body = JsonNodeFactory.instance.objectNode();
    body.put("object", "list");
    ArrayNode data = body.putArray("data");
    for (int i = 0; i < inputs; i++) {
      ObjectNode item = data.addObject();
      item.put("object", "embedding");
      item.put("index", i);
      if (base64) {
        ByteBuffer b = ByteBuffer.allocate(4 * dims).order(ByteOrder.LITTLE_ENDIAN);
        for (int d = 0; d < dims; d++) {
          b.putFloat(value(i, d));
        }
        item.put("embedding", Base64.getEncoder().encodeToString(b.array()));
      } else {
        ArrayNode v = item.putArray("embedding");
        for (int d = 0; d < dims; d++) {
          v.add(value(i, d));
        }
      }
    }
    body.put("model", request.path("model").asText());
    body.putObject("usage").put("prompt_tokens", TOKENS_PER_INPUT * inputs)
        .put("total_tokens", TOKENS_PER_INPUT * inputs);
    return FixtureResponse.json(200, Json.write(body));
  }
}
