package io.pointsman.provider;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.ChatResponse;
import io.pointsman.model.Json;
import io.pointsman.model.anthropic.AnthropicMessages;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The Messages API through the gateway's model and back out through {@link AnthropicProvider}
 * to an Anthropic upstream: what both sides can say survives the round trip unchanged, both for
 * a request (Messages request to the gateway's request to the wire body the provider sends) and
 * for a response (the upstream's message to the gateway's response to the Messages response a
 * client gets).
 */
class AnthropicRoundTripTest {
  /** A request in the form the provider writes: every content a list of blocks. */
  private static final String REQUEST = "{\"model\":\"claude-x\",\"max_tokens\":300,"
      + "\"system\":[{\"type\":\"text\",\"text\":\"Be brief.\"},{\"type\":\"text\","
      + "\"text\":\"Use Celsius.\"}],"
      + "\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
      + "\"Weather in Oslo?\"},{\"type\":\"image\",\"source\":{\"type\":\"base64\","
      + "\"media_type\":\"image/png\",\"data\":\"aGk=\"}}]},"
      + "{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"Checking.\"},"
      + "{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"weather\",\"input\":{\"city\":"
      + "\"Oslo\"}},{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"map\",\"input\":{}}]},"
      + "{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\","
      + "\"content\":\"4 C\"},{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\","
      + "\"content\":[{\"type\":\"text\",\"text\":\"Here.\"},{\"type\":\"image\",\"source\":{"
      + "\"type\":\"url\",\"url\":\"https://example.com/map.png\"}}]},{\"type\":\"text\","
      + "\"text\":\"And tomorrow?\"}]}],"
      + "\"temperature\":0.5,\"top_p\":0.9,\"stop_sequences\":[\"END\",\"STOP\"],"
      + "\"tools\":[{\"name\":\"weather\",\"description\":\"forecast\",\"input_schema\":{"
      + "\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}},{\"name\":"
      + "\"map\",\"input_schema\":{\"type\":\"object\"}}],"
      + "\"tool_choice\":{\"type\":\"any\",\"disable_parallel_tool_use\":true},"
      + "\"metadata\":{\"user_id\":\"u-1\"},\"stream\":true}";

  @Test
  void aMessagesRequestReachesAnAnthropicUpstreamAsItWasSent() throws Exception {
    ChatRequest gateway = AnthropicMessages.toChatRequest(AnthropicMessages.readRequest(
        REQUEST.getBytes(StandardCharsets.UTF_8)));
    JsonNode wire = AnthropicProvider.builder().build().translateRequest(gateway, true);
    assertThat(tree(Json.write(wire))).isEqualTo(tree(REQUEST));
  }

  @Test
  void eachToolChoiceSurvivesTheRoundTrip() throws Exception {
    for (String choice : new String[] {"{\"type\":\"auto\"}", "{\"type\":\"none\"}",
        "{\"type\":\"tool\",\"name\":\"weather\"}", "{\"type\":\"any\"}",
        "{\"type\":\"tool\",\"name\":\"weather\",\"disable_parallel_tool_use\":true}"}) {
      String request = "{\"model\":\"claude-x\",\"max_tokens\":10,\"messages\":[{\"role\":"
          + "\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}],\"tools\":[{\"name\":"
          + "\"weather\",\"input_schema\":{\"type\":\"object\"}}],\"tool_choice\":" + choice
          + "}";
      ChatRequest gateway = AnthropicMessages.toChatRequest(AnthropicMessages.readRequest(
          request.getBytes(StandardCharsets.UTF_8)));
      JsonNode wire = AnthropicProvider.builder().build().translateRequest(gateway, false);
      assertThat(tree(Json.write(wire))).as(choice).isEqualTo(tree(request));
    }
  }

  @Test
  void anUpstreamMessageReachesAMessagesClientAsItWasSent() throws Exception {
    for (String message : new String[] {
        "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Up to\"}],\"stop_reason\":"
            + "\"stop_sequence\",\"stop_sequence\":\"END\",\"usage\":{\"input_tokens\":10,"
            + "\"output_tokens\":3,\"cache_creation_input_tokens\":5,"
            + "\"cache_read_input_tokens\":20}}",
        "{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"Checking.\"},{\"type\":\"tool_use\","
            + "\"id\":\"toolu_2\",\"name\":\"weather\",\"input\":{\"city\":\"Oslo\"}}],"
            + "\"stop_reason\":\"tool_use\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":10,"
            + "\"output_tokens\":12,\"cache_creation_input_tokens\":0,"
            + "\"cache_read_input_tokens\":0}}",
        "{\"id\":\"msg_3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\","
            + "\"content\":[{\"type\":\"text\",\"text\":\"One, two\"}],\"stop_reason\":"
            + "\"max_tokens\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":1,"
            + "\"output_tokens\":2,\"cache_creation_input_tokens\":0,"
            + "\"cache_read_input_tokens\":0}}"}) {
      ChatResponse gateway = AnthropicProvider.translateResponse(tree(message), 1);
      JsonNode back = tree(Json.write(AnthropicMessages.fromChatResponse(gateway)));
      assertThat(back).isEqualTo(tree(message));
    }
  }

  private static JsonNode tree(String json) throws Exception {
    return Json.mapper().readTree(json);
  }
}
