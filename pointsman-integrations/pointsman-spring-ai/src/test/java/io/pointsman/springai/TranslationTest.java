package io.pointsman.springai;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.pointsman.PointsmanException;
import io.pointsman.Status;
import io.pointsman.model.ChatRequest;
import io.pointsman.model.Content;
import io.pointsman.model.ContentPart;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.Tool;
import io.pointsman.model.ToolCall;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.SystemMessage;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.content.Media;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.retry.NonTransientAiException;
import org.springframework.ai.retry.TransientAiException;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.util.MimeTypeUtils;

/** The translation between Spring AI's types and the gateway's, without a gateway. */
class TranslationTest {

  @Test
  void everyMessageKindTranslates() {
    byte[] png = "not really a png".getBytes(StandardCharsets.UTF_8);
    UserMessage user = UserMessage.builder().text("What is in these pictures?")
        .media(List.of(new Media(MimeTypeUtils.IMAGE_PNG, URI.create("https://example.com/a.png")),
            Media.builder().mimeType(MimeTypeUtils.IMAGE_PNG).data(png).build()))
        .build();
    AssistantMessage assistant = AssistantMessage.builder().content("")
        .toolCalls(List.of(new AssistantMessage.ToolCall("c1", "function", "look", "{}")))
        .build();
    ToolResponseMessage tool = ToolResponseMessage.builder()
        .responses(List.of(new ToolResponseMessage.ToolResponse("c1", "look", "a cat"))).build();

    List<Message> out = Translation.messages(List.of(new SystemMessage("Be brief."), user,
        assistant, tool, new AssistantMessage("A cat.")));

    assertThat(out).extracting(Message::role).containsExactly(Role.SYSTEM, Role.USER,
        Role.ASSISTANT, Role.TOOL, Role.ASSISTANT);
    assertThat(out.get(0).text()).isEqualTo("Be brief.");
    List<ContentPart> parts = ((Content.Parts) out.get(1).content()).parts();
    assertThat(parts).extracting(ContentPart::type).containsExactly("text", "image_url",
        "image_url");
    assertThat(parts.get(0).text()).isEqualTo("What is in these pictures?");
    assertThat(parts.get(1).imageUrl().get("url").asText())
        .isEqualTo("https://example.com/a.png");
    assertThat(parts.get(2).imageUrl().get("url").asText())
        .isEqualTo("data:image/png;base64," + Base64.getEncoder().encodeToString(png));
    assertThat(out.get(2).content()).as("a message that only calls tools has no content")
        .isNull();
    assertThat(out.get(2).toolCalls()).singleElement().satisfies(c -> {
      assertThat(c.id()).isEqualTo("c1");
      assertThat(c.type()).isEqualTo("function");
      assertThat(c.function().name()).isEqualTo("look");
      assertThat(c.function().arguments()).isEqualTo("{}");
    });
    assertThat(out.get(3).toolCallId()).isEqualTo("c1");
    assertThat(out.get(3).text()).isEqualTo("a cat");
    assertThat(out.get(4).text()).isEqualTo("A cat.");
    assertThat(out.get(4).toolCalls()).isNull();
  }

  @Test
  void optionsBecomeRequestFields() {
    PointsmanChatOptions options = PointsmanChatOptions.builder().model("m").temperature(0.2)
        .topP(0.9).maxTokens(64).stopSequences(List.of("END", "STOP")).seed(7L).user("u1")
        .frequencyPenalty(0.5).presencePenalty(-0.5)
        .outputSchema("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}}}")
        .outputSchemaName("answer").strictSchema(false).build();

    ChatRequest request = Translation.request(List.of(new UserMessage("hi")), options,
        List.of());

    assertThat(request.model()).isEqualTo("m");
    assertThat(request.temperature()).isEqualTo(0.2);
    assertThat(request.topP()).isEqualTo(0.9);
    assertThat(request.maxCompletionTokens()).isEqualTo(64);
    assertThat(request.maxTokens()).isNull();
    assertThat(request.stop().toString()).isEqualTo("[\"END\",\"STOP\"]");
    assertThat(request.seed()).isEqualTo(7L);
    assertThat(request.user()).isEqualTo("u1");
    assertThat(request.extra().get("frequency_penalty").asDouble()).isEqualTo(0.5);
    assertThat(request.extra().get("presence_penalty").asDouble()).isEqualTo(-0.5);
    assertThat(request.responseFormat().toString()).isEqualTo("{\"type\":\"json_schema\","
        + "\"json_schema\":{\"name\":\"answer\",\"schema\":{\"type\":\"object\",\"properties\":"
        + "{\"a\":{\"type\":\"string\"}}},\"strict\":false}}");
    assertThat(request.tools()).isNull();
  }

  @Test
  void unsetOptionsLeaveTheRequestFieldsUnset() {
    ChatRequest request = Translation.request(List.of(new UserMessage("hi")),
        new PointsmanChatOptions(), List.of());

    assertThat(request.model()).isNull();
    assertThat(request.temperature()).isNull();
    assertThat(request.topP()).isNull();
    assertThat(request.maxCompletionTokens()).isNull();
    assertThat(request.stop()).isNull();
    assertThat(request.responseFormat()).isNull();
    assertThat(request.extra()).isEmpty();
  }

  @Test
  void aToolDefinitionBecomesAFunctionTool() {
    ToolDefinition definition = ToolDefinition.builder().name("weather")
        .description("The weather of a city")
        .inputSchema("{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}")
        .build();

    Tool tool = Translation.tool(definition);

    assertThat(tool.type()).isEqualTo("function");
    assertThat(tool.function().toString()).isEqualTo("{\"name\":\"weather\",\"description\":"
        + "\"The weather of a city\",\"parameters\":{\"type\":\"object\",\"properties\":"
        + "{\"city\":{\"type\":\"string\"}}}}");
    assertThatThrownBy(() -> Translation.tool(ToolDefinition.builder().name("bad")
        .description("d").inputSchema("{not json").build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("bad");
  }

  @Test
  void aGenerationCarriesTextToolCallsAndTheFinishReason() {
    Message message = new Message(Role.ASSISTANT, Content.text("Looking."), null,
        List.of(new ToolCall("c9", "function", new FunctionCall("look", "{\"x\":1}", null),
            null)), null, null);

    Generation generation = Translation.generation(message, "tool_calls", 0, "resp-1");

    assertThat(generation.getOutput().getText()).isEqualTo("Looking.");
    assertThat(generation.getOutput().getToolCalls()).containsExactly(
        new AssistantMessage.ToolCall("c9", "function", "look", "{\"x\":1}"));
    assertThat(generation.getMetadata().getFinishReason()).isEqualTo("TOOL_CALLS");
    assertThat(generation.getOutput().getMetadata()).containsEntry("id", "resp-1")
        .containsEntry("finishReason", "tool_calls");

    Generation empty = Translation.generation(null, null, 0, null);
    assertThat(empty.getOutput().getText()).isEmpty();
    assertThat(empty.getOutput().hasToolCalls()).isFalse();
    assertThat(empty.getMetadata().getFinishReason()).isNull();
  }

  @Test
  void gatewayFailuresMapToTransientAndNonTransientExceptionsKeepingTheCause() {
    for (Status status : Status.values()) {
      PointsmanException failure = PointsmanException.denied(status, "limits", "budget.key",
          "refused");
      RuntimeException mapped = Translation.error(failure);
      boolean transientStatus = switch (status.httpStatus()) {
        case 429, 500, 502, 503, 504 -> true;
        default -> false;
      };
      assertThat(mapped).as(status.toString())
          .isInstanceOf(transientStatus ? TransientAiException.class
              : NonTransientAiException.class)
          .hasCause(failure)
          .hasMessageContaining(String.valueOf(status.httpStatus()))
          .hasMessageContaining("limits").hasMessageContaining("budget.key");
    }
    assertThat(Translation.error(PointsmanException.denied(Status.PAYMENT_REQUIRED, "limits",
        null, "x"))).isInstanceOf(NonTransientAiException.class);
    assertThat(Translation.error(PointsmanException.denied(Status.TOO_MANY_REQUESTS, "limits",
        null, "x"))).isInstanceOf(TransientAiException.class);
  }

  @Test
  void streamedToolCallFragmentsAreAssembledByIndex() {
    Translation.ToolCallAssembler assembler = new Translation.ToolCallAssembler();
    assertThat(assembler.isEmpty()).isTrue();
    assembler.add(null);
    assembler.add(Translation.tree("[{\"index\":0,\"id\":\"a\",\"type\":\"function\","
        + "\"function\":{\"name\":\"wea\",\"arguments\":\"{\\\"ci\"}},"
        + "{\"index\":1,\"id\":\"b\",\"function\":{\"name\":\"time\",\"arguments\":\"\"}}]"));
    assembler.add(Translation.tree("[{\"index\":0,\"function\":{\"name\":\"ther\","
        + "\"arguments\":\"ty\\\":\\\"Paris\\\"}\"}},{\"index\":1,\"function\":"
        + "{\"arguments\":\"{}\"}}]"));

    assertThat(assembler.isEmpty()).isFalse();
    assertThat(assembler.calls()).containsExactly(
        new AssistantMessage.ToolCall("a", "function", "weather", "{\"city\":\"Paris\"}"),
        new AssistantMessage.ToolCall("b", "function", "time", "{}"));
  }

  @Test
  void optionsMergeOverDefaultsAndReadOtherOptionTypes() {
    PointsmanChatOptions defaults = PointsmanChatOptions.builder().model("default-model")
        .temperature(0.1).maxTokens(100).virtualKey("pm-default").toolContext(
            Map.of("tenant", "a", "region", "eu")).build();
    ChatOptions portable = ChatOptions.builder().temperature(0.7).topP(0.5).build();

    PointsmanChatOptions merged = PointsmanChatOptions.from(portable).withDefaults(defaults);

    assertThat(merged.getModel()).isEqualTo("default-model");
    assertThat(merged.getTemperature()).isEqualTo(0.7);
    assertThat(merged.getTopP()).isEqualTo(0.5);
    assertThat(merged.getMaxTokens()).isEqualTo(100);
    assertThat(merged.getVirtualKey()).isEqualTo("pm-default");
    assertThat(merged.getTopK()).isNull();

    ToolCallingChatOptions tools = ToolCallingChatOptions.builder().toolNames("weather")
        .internalToolExecutionEnabled(false).toolContext(Map.of("tenant", "b")).build();
    PointsmanChatOptions withTools = PointsmanChatOptions.from(tools).withDefaults(defaults);
    assertThat(withTools.getToolNames()).containsExactly("weather");
    assertThat(withTools.getInternalToolExecutionEnabled()).isFalse();
    assertThat(withTools.getToolContext()).containsExactlyInAnyOrderEntriesOf(
        Map.of("tenant", "b", "region", "eu"));

    PointsmanChatOptions perCall = PointsmanChatOptions.builder().virtualKey("pm-call").build();
    assertThat(perCall.withDefaults(defaults).getVirtualKey()).isEqualTo("pm-call");
    assertThat(defaults.getVirtualKey()).as("merging changes neither input")
        .isEqualTo("pm-default");
    assertThat(perCall.getModel()).isNull();
  }

  @Test
  void copiesAreEqualAndIndependentAndNeverPrintTheKey() {
    PointsmanChatOptions options = PointsmanChatOptions.builder().model("m")
        .stopSequences(List.of("x")).toolNames(Set.of("t")).virtualKey("pm-secret-key")
        .build();

    PointsmanChatOptions copy = options.copy();

    assertThat(copy).isEqualTo(options).hasSameHashCodeAs(options).isNotSameAs(options);
    copy.getStopSequences().add("y");
    copy.getToolNames().add("u");
    assertThat(options.getStopSequences()).containsExactly("x");
    assertThat(options.getToolNames()).containsExactly("t");
    assertThat(options.toString()).doesNotContain("pm-secret-key").contains("virtualKey=set");
  }

  @Test
  void aFixedCallerKeyNamesTheSameKeyForEveryPrompt() {
    CallerKeys keys = CallerKeys.fixed("pm-one");
    assertThat(keys.keyFor(new org.springframework.ai.chat.prompt.Prompt("a")))
        .isEqualTo("pm-one");
    assertThat(keys.keyFor(new org.springframework.ai.chat.prompt.Prompt("b")))
        .isEqualTo("pm-one");
    assertThatThrownBy(() -> CallerKeys.fixed(null)).isInstanceOf(NullPointerException.class);
  }
}
