package io.pointsman.langchain4j;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.AudioContent;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.SystemMessage;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.exception.AuthenticationException;
import dev.langchain4j.exception.ContentFilteredException;
import dev.langchain4j.exception.InternalServerException;
import dev.langchain4j.exception.InvalidRequestException;
import dev.langchain4j.exception.LangChain4jException;
import dev.langchain4j.exception.ModelNotFoundException;
import dev.langchain4j.exception.NonRetriableException;
import dev.langchain4j.exception.RateLimitException;
import dev.langchain4j.exception.RetriableException;
import dev.langchain4j.exception.TimeoutException;
import dev.langchain4j.exception.UnsupportedFeatureException;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.request.ChatRequestParameters;
import dev.langchain4j.model.chat.request.ResponseFormat;
import dev.langchain4j.model.chat.request.ResponseFormatType;
import dev.langchain4j.model.chat.request.ToolChoice;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.model.chat.request.json.JsonSchema;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.output.FinishReason;
import io.pointsman.CacheStatus;
import io.pointsman.CallOptions;
import io.pointsman.Clock;
import io.pointsman.Gateway;
import io.pointsman.auth.InMemoryKeyStore;
import io.pointsman.auth.KeySpec;
import io.pointsman.catalog.ModelCatalog;
import io.pointsman.catalog.ModelSpec;
import io.pointsman.spi.Deployment;
import io.pointsman.testing.FixtureProvider;
import io.pointsman.ChatResult;
import io.pointsman.PointsmanException;
import io.pointsman.StageTimings;
import io.pointsman.Stages;
import io.pointsman.Status;
import io.pointsman.model.Choice;
import io.pointsman.model.Content;
import io.pointsman.model.FunctionCall;
import io.pointsman.model.Json;
import io.pointsman.model.Message;
import io.pointsman.model.Role;
import io.pointsman.model.ToolCall;
import io.pointsman.model.Usage;
import io.pointsman.spi.UsageOutcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The translation between LangChain4j's model and the gateway's, both ways, and the errors. */
class TranslationTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static JsonNode wire(io.pointsman.model.ChatRequest request) throws Exception {
    return MAPPER.readTree(Json.write(request));
  }

  @Test
  void messagesOfEveryKindBecomeChatCompletionsMessages() throws Exception {
    ToolExecutionRequest call = ToolExecutionRequest.builder().id("call_7").name("temperature")
        .arguments("{\"city\":\"Oslo\"}").build();
    ChatRequest request = ChatRequest.builder()
        .messages(SystemMessage.from("Be brief."),
            UserMessage.from("alice", List.of(TextContent.from("What is this?"),
                ImageContent.from("https://example.invalid/a.png", ImageContent.DetailLevel.LOW),
                ImageContent.from("aGVsbG8=", "image/png"))),
            AiMessage.from(call),
            ToolExecutionResultMessage.from(call, "21"),
            AiMessage.from("It is 21."),
            UserMessage.from("Thanks"))
        .build();

    JsonNode json = wire(Translation.toGateway(request, "gpt-4o-mini", false));

    assertThat(json.get("model").asText()).isEqualTo("gpt-4o-mini");
    JsonNode m = json.get("messages");
    assertThat(m).hasSize(6);
    assertThat(m.get(0).toString()).isEqualTo("{\"role\":\"system\",\"content\":\"Be brief.\"}");
    assertThat(m.get(1).get("role").asText()).isEqualTo("user");
    assertThat(m.get(1).get("name").asText()).isEqualTo("alice");
    assertThat(m.get(1).get("content").toString()).isEqualTo("[{\"type\":\"text\",\"text\":"
        + "\"What is this?\"},{\"type\":\"image_url\",\"image_url\":{\"url\":"
        + "\"https://example.invalid/a.png\",\"detail\":\"low\"}},{\"type\":\"image_url\","
        + "\"image_url\":{\"url\":\"data:image/png;base64,aGVsbG8=\",\"detail\":\"low\"}}]");
    assertThat(m.get(2).toString()).isEqualTo("{\"role\":\"assistant\",\"content\":null,"
        + "\"tool_calls\":[{\"id\":\"call_7\",\"type\":\"function\",\"function\":{\"name\":"
        + "\"temperature\",\"arguments\":\"{\\\"city\\\":\\\"Oslo\\\"}\"}}]}");
    assertThat(m.get(3).toString())
        .isEqualTo("{\"role\":\"tool\",\"content\":\"21\",\"tool_call_id\":\"call_7\"}");
    assertThat(m.get(4).toString()).isEqualTo("{\"role\":\"assistant\",\"content\":\"It is 21.\"}");
    assertThat(m.get(5).toString()).isEqualTo("{\"role\":\"user\",\"content\":\"Thanks\"}");
  }

  @Test
  void toolsToolChoiceAndSamplingParametersAreCarried() throws Exception {
    ToolSpecification weather = ToolSpecification.builder().name("temperature")
        .description("The temperature in a city, in degrees Celsius")
        .parameters(JsonObjectSchema.builder().addStringProperty("city", "The city")
            .required("city").build())
        .build();
    ToolSpecification clock = ToolSpecification.builder().name("now").strict(true).build();
    ChatRequest request = ChatRequest.builder().messages(UserMessage.from("Weather?"))
        .modelName("tool-mini").temperature(0.2).topP(0.9).maxOutputTokens(123)
        .stopSequences(List.of("END", "STOP")).frequencyPenalty(0.5).presencePenalty(0.25)
        .toolSpecifications(weather, clock).toolChoice(ToolChoice.REQUIRED).build();

    JsonNode json = wire(Translation.toGateway(request, "ignored", false));

    assertThat(json.get("model").asText()).as("the request's model wins").isEqualTo("tool-mini");
    assertThat(json.get("temperature").asDouble()).isEqualTo(0.2);
    assertThat(json.get("top_p").asDouble()).isEqualTo(0.9);
    assertThat(json.get("max_completion_tokens").asInt()).isEqualTo(123);
    assertThat(json.has("max_tokens")).isFalse();
    assertThat(json.get("stop").toString()).isEqualTo("[\"END\",\"STOP\"]");
    assertThat(json.get("frequency_penalty").asDouble()).isEqualTo(0.5);
    assertThat(json.get("presence_penalty").asDouble()).isEqualTo(0.25);
    assertThat(json.get("tool_choice").asText()).isEqualTo("required");
    assertThat(json.get("tools").get(0).toString()).isEqualTo("{\"type\":\"function\","
        + "\"function\":{\"name\":\"temperature\",\"description\":\"The temperature in a city,"
        + " in degrees Celsius\",\"parameters\":{\"type\":\"object\",\"properties\":{\"city\":"
        + "{\"type\":\"string\",\"description\":\"The city\"}},\"required\":[\"city\"]}}}");
    assertThat(json.get("tools").get(1).toString()).isEqualTo("{\"type\":\"function\","
        + "\"function\":{\"name\":\"now\",\"parameters\":{\"type\":\"object\",\"properties\":{}},"
        + "\"strict\":true}}");
  }

  @Test
  void toolChoiceWithoutToolsIsNotSentAndAutoAndNoneMapByName() throws Exception {
    ChatRequest noTools = ChatRequest.builder().messages(UserMessage.from("x"))
        .toolChoice(ToolChoice.AUTO).build();
    assertThat(wire(Translation.toGateway(noTools, "m", false)).has("tool_choice")).isFalse();
    assertThat(Translation.toolChoice(ToolChoice.AUTO)).isEqualTo("auto");
    assertThat(Translation.toolChoice(ToolChoice.NONE)).isEqualTo("none");
  }

  @Test
  void responseFormatsBecomeJsonObjectOrJsonSchema() throws Exception {
    JsonSchema schema = JsonSchema.builder().name("Forecast").rootElement(JsonObjectSchema
        .builder().addStringProperty("city").addIntegerProperty("temperature")
        .required("city", "temperature").build()).build();
    ResponseFormat withSchema = ResponseFormat.builder().type(ResponseFormatType.JSON)
        .jsonSchema(schema).build();

    assertThat(Translation.responseFormat(withSchema, true).toString()).isEqualTo(
        "{\"type\":\"json_schema\",\"json_schema\":{\"name\":\"Forecast\",\"strict\":true,"
        + "\"schema\":{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"},"
        + "\"temperature\":{\"type\":\"integer\"}},\"required\":[\"city\",\"temperature\"],"
        + "\"additionalProperties\":false}}}");
    assertThat(Translation.responseFormat(withSchema, false).get("json_schema").get("strict")
        .asBoolean()).isFalse();
    assertThat(Translation.responseFormat(ResponseFormat.JSON, false).toString())
        .isEqualTo("{\"type\":\"json_object\"}");
    assertThat(Translation.responseFormat(ResponseFormat.TEXT, false)).isNull();

    ChatRequest request = ChatRequest.builder().messages(UserMessage.from("Oslo"))
        .responseFormat(withSchema).build();
    assertThat(wire(Translation.toGateway(request, "m", false)).get("response_format")
        .get("type").asText()).isEqualTo("json_schema");
  }

  @Test
  void whatTheGatewayCannotCarryIsRefusedBeforeAnyCall() {
    assertThatThrownBy(() -> Translation.toGateway(ChatRequest.builder()
        .messages(UserMessage.from("x")).build(), null, false))
        .isInstanceOf(InvalidRequestException.class).hasMessageContaining("no model");
    assertThatThrownBy(() -> Translation.toGateway(ChatRequest.builder()
        .messages(UserMessage.from("x")).topK(5).build(), "m", false))
        .isInstanceOf(UnsupportedFeatureException.class).hasMessageContaining("topK");
    assertThatThrownBy(() -> Translation.toGateway(ChatRequest.builder()
        .messages(UserMessage.from(TextContent.from("listen"),
            AudioContent.from("aGVsbG8=", "audio/wav"))).build(), "m", false))
        .isInstanceOf(UnsupportedFeatureException.class).hasMessageContaining("AUDIO");
  }

  @Test
  void theResponseCarriesTextToolCallsUsageFinishReasonAndTheGatewaysResult() {
    Message assistant = new Message(Role.ASSISTANT, null, null, List.of(
        new ToolCall("call_1", "function", new FunctionCall("temperature",
            "{\"city\":\"Oslo\"}", null), null),
        new ToolCall("call_2", "function", new FunctionCall("now", null, null), null)),
        null, null);
    ChatResult result = result(assistant, "tool_calls", Usage.of(30, 10));

    ChatResponse response = Translation.toLangChain4j(result);

    assertThat(response.aiMessage().text()).isNull();
    assertThat(response.aiMessage().toolExecutionRequests()).containsExactly(
        ToolExecutionRequest.builder().id("call_1").name("temperature")
            .arguments("{\"city\":\"Oslo\"}").build(),
        ToolExecutionRequest.builder().id("call_2").name("now").arguments("{}").build());
    assertThat(response.finishReason()).isEqualTo(FinishReason.TOOL_EXECUTION);
    assertThat(response.tokenUsage().inputTokenCount()).isEqualTo(30);
    assertThat(response.tokenUsage().outputTokenCount()).isEqualTo(10);
    assertThat(response.tokenUsage().totalTokenCount()).isEqualTo(40);
    assertThat(response.id()).isEqualTo("chatcmpl-1");
    assertThat(response.modelName()).isEqualTo("gpt-4o-mini");
    assertThat(response.metadata()).isInstanceOfSatisfying(PointsmanChatResponseMetadata.class,
        m -> {
          assertThat(m.eventId()).isEqualTo("ev-1");
          assertThat(m.costMicros()).isEqualTo(50);
          assertThat(m.result()).isSameAs(result);
        });

    ChatResponse text = Translation.toLangChain4j(result(
        new Message(Role.ASSISTANT, Content.text("Hi"), null, null, null, null), "stop",
        Usage.of(1, 1)));
    assertThat(text.aiMessage().text()).isEqualTo("Hi");
    assertThat(text.aiMessage().hasToolExecutionRequests()).isFalse();
  }

  @Test
  void finishReasonsMapOntoLangChain4js() {
    assertThat(Translation.finishReason("stop")).isEqualTo(FinishReason.STOP);
    assertThat(Translation.finishReason("length")).isEqualTo(FinishReason.LENGTH);
    assertThat(Translation.finishReason("tool_calls")).isEqualTo(FinishReason.TOOL_EXECUTION);
    assertThat(Translation.finishReason("function_call")).isEqualTo(FinishReason.TOOL_EXECUTION);
    assertThat(Translation.finishReason("content_filter"))
        .isEqualTo(FinishReason.CONTENT_FILTER);
    assertThat(Translation.finishReason("something_new")).isEqualTo(FinishReason.OTHER);
    assertThat(Translation.finishReason(null)).isNull();
  }

  @Test
  void everyStatusMapsToLangChain4jsExceptionWithTheGatewaysFailureAsCause() {
    assertMapped(Status.BAD_REQUEST, Stages.REQUEST, InvalidRequestException.class, false);
    assertMapped(Status.BAD_REQUEST, Stages.GUARDRAIL_INPUT, ContentFilteredException.class,
        false);
    assertMapped(Status.UNAUTHORIZED, Stages.IDENTITY_AUTH, AuthenticationException.class,
        false);
    assertMapped(Status.FORBIDDEN, Stages.MODEL_RESOLVE, AuthenticationException.class, false);
    assertMapped(Status.PAYMENT_REQUIRED, Stages.RATELIMIT_RESERVE,
        BudgetExceededException.class, false);
    assertMapped(Status.NOT_FOUND, Stages.MODEL_RESOLVE, ModelNotFoundException.class, false);
    assertMapped(Status.TOO_MANY_REQUESTS, Stages.RATELIMIT_RESERVE, RateLimitException.class,
        true);
    assertMapped(Status.INTERNAL, "custom", InternalServerException.class, true);
    assertMapped(Status.BAD_GATEWAY, Stages.PROVIDER_ATTEMPT, InternalServerException.class,
        true);
    assertMapped(Status.UNAVAILABLE, Stages.ROUTER_SELECT, InternalServerException.class, true);
    assertMapped(Status.GATEWAY_TIMEOUT, Stages.PROVIDER_ATTEMPT, TimeoutException.class, true);

    PointsmanException budget = PointsmanException.denied(Status.PAYMENT_REQUIRED,
        Stages.RATELIMIT_RESERVE, "team:trial", "the team's budget is spent");
    LangChain4jException mapped = Errors.toLangChain4j(budget);
    assertThat(mapped.getMessage()).isEqualTo("budget exceeded: 402 PAYMENT_REQUIRED"
        + " [ratelimit.reserve/team:trial] the team's budget is spent");
    assertThat(((BudgetExceededException) mapped).refusal()).isSameAs(budget);
  }

  private static void assertMapped(Status status, String stage,
      Class<? extends LangChain4jException> type, boolean retriable) {
    PointsmanException e = PointsmanException.denied(status, stage, "rule-x", "why");
    LangChain4jException mapped = Errors.toLangChain4j(e);
    assertThat(mapped).as(status + " at " + stage).isExactlyInstanceOf(type);
    assertThat(mapped).as(status + " retriable").isInstanceOf(
        retriable ? RetriableException.class : NonRetriableException.class);
    assertThat(mapped.getCause()).isSameAs(e);
    assertThat(mapped.getMessage()).contains(String.valueOf(status.httpStatus()), stage,
        "rule-x", "why");
  }

  @Test
  void requestParametersKeepTheirVirtualKeyThroughLangChain4jsMerging() {
    PointsmanChatRequestParameters defaults = PointsmanChatRequestParameters.builder()
        .modelName("gpt-4o-mini").temperature(0.0).virtualKey("pm-default").build();
    ChatRequestParameters plain = ChatRequestParameters.builder().temperature(0.7).build();
    PointsmanChatRequestParameters perCall = PointsmanChatRequestParameters.builder()
        .virtualKey("pm-tenant").build();

    PointsmanChatRequestParameters merged = defaults.overrideWith(plain);
    assertThat(merged.virtualKey()).isEqualTo("pm-default");
    assertThat(merged.temperature()).isEqualTo(0.7);
    assertThat(merged.modelName()).isEqualTo("gpt-4o-mini");
    assertThat(defaults.overrideWith(perCall).virtualKey()).isEqualTo("pm-tenant");
    assertThat(perCall.defaultedBy(defaults).virtualKey()).isEqualTo("pm-tenant");
    assertThat(perCall.defaultedBy(defaults).modelName()).isEqualTo("gpt-4o-mini");
    assertThat(merged.toString()).doesNotContain("pm-default").contains("<redacted>");
    assertThat(merged).isEqualTo(PointsmanChatRequestParameters.builder().overrideWith(merged)
        .build()).isNotEqualTo(PointsmanChatRequestParameters.builder().overrideWith(merged)
        .virtualKey("other").build());
  }

  private static ChatResult result(Message message, String finish, Usage usage) {
    io.pointsman.model.ChatResponse response = new io.pointsman.model.ChatResponse("chatcmpl-1",
        "chat.completion", 0, "gpt-4o-mini", List.of(new Choice(0, message, finish, null, null)),
        usage, null, null);
    return new ChatResult(response, usage, 50, false, CacheStatus.miss("exact"), "fixture-mini",
        1, "ev-1", "req-1", UsageOutcome.SUCCESS, timings(), -1, List.of());
  }

  /** Stage timings have no public constructor: take them from one in-memory call. */
  private static StageTimings timings() {
    InMemoryKeyStore keys = new InMemoryKeyStore(Clock.system());
    keys.addKey("pm-translation-key", KeySpec.builder("k").build());
    try (Gateway gateway = Gateway.builder().authenticator(keys)
        .models(ModelCatalog.builder().model(ModelSpec.builder("m")
            .price(io.pointsman.catalog.Price.of(1, 1)).build()).build())
        .provider("fixture", FixtureProvider.builder().build())
        .deployment(Deployment.of("d", "fixture", "m")).build()) {
      return gateway.chat(io.pointsman.model.ChatRequest.builder().model("m")
          .addMessage(Message.user("hi")).build(), CallOptions.of("pm-translation-key"))
          .timings();
    }
  }
}
